import { expect, test, type Page, type Response } from '@playwright/test';
import { signInAsAdmin } from './checks.js';

/**
 * Review F10 in the browser: the built admin app runs under its Content-Security-Policy without a
 * single refusal (landing, sign-in and a signed-in screen), the document and the API carry the headers,
 * and the app cannot be framed.
 */

/** Every CSP refusal the page reports, from the console and from securitypolicyviolation events. */
async function watchViolations(page: Page) {
  const seen: string[] = [];
  page.on('console', (msg) => {
    if (/Refused to|Content Security Policy/i.test(msg.text())) seen.push(`console: ${msg.text()}`);
  });
  await page.exposeFunction('reportCspViolation', (text: string) => void seen.push(`event: ${text}`));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) =>
      (window as unknown as { reportCspViolation(t: string): void }).reportCspViolation(
        `${e.violatedDirective} blocked ${e.blockedURI || 'inline'} (${e.sourceFile}:${e.lineNumber})`,
      ),
    );
  });
  return seen;
}

function expectHardened(res: Response | null, what: string) {
  expect(res, what).not.toBeNull();
  const h = res!.headers();
  expect(h['content-security-policy'], what).toContain("script-src 'self';");
  expect(h['content-security-policy'], what).toContain("frame-ancestors 'none'");
  expect(h['x-frame-options'], what).toBe('DENY');
  expect(h['x-content-type-options'], what).toBe('nosniff');
  expect(h['referrer-policy'], what).toBe('no-referrer');
  expect(h['strict-transport-security'], `${what}: no HSTS over plain http`).toBeUndefined();
  expect(h['x-request-id'], what).toMatch(/^[0-9a-f-]{36}$/);
}

test('the admin app runs under its CSP with no violation; document and API answers carry the headers', async ({ page }) => {
  const violations = await watchViolations(page);

  const landing = await page.goto('/');
  expectHardened(landing, 'the landing document');
  await expect(page).toHaveURL(/\/default\/landing$/);
  await expect(page.getByRole('link', { name: 'Sign in' })).toBeVisible();

  const login = await page.goto('/default/auth/login');
  expectHardened(login, 'the login document');
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();

  await signInAsAdmin(page);
  const apiAnswer = page.waitForResponse((r) => r.url().includes('/api/v1/default/tags') && r.request().method() === 'GET');
  await page.goto('/default/tags');
  expectHardened(await apiAnswer, 'an API answer');
  await expect(page.getByRole('link', { name: 'Create' }).first()).toBeVisible();
  expect(violations).toEqual([]);
  // Styles emotion inserts at run time are in place: MUI's buttons are drawn, not bare.
  const created = page.getByRole('link', { name: 'Create' }).first();
  expect(await created.evaluate((el) => getComputedStyle(el).display)).not.toBe('inline');
});

test('another site cannot frame the app (frame-ancestors none)', async ({ page, baseURL }) => {
  // setContent waits for the frame's load event, which a refused frame fires too (on Chromium's error page).
  await page.setContent(`<iframe id="app" src="${baseURL}/default/auth/login" width="600" height="400"></iframe>`, { waitUntil: 'load' });
  const child = page.frames().find((f) => f !== page.mainFrame());
  expect(child?.url()).toMatch(/^chrome-error:/);
  await expect(page.frameLocator('#app').getByRole('button', { name: 'Sign in' })).toHaveCount(0);
});
