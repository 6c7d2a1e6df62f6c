import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AxeResults } from 'axe-core';
import { expect, type Browser, type Locator, type Page } from '@playwright/test';
import { E2E } from './playwright.config.js';

/** A call to the organization `default`'s API with a bearer token (set-up a test is not about). */
export async function api<T = any>(page: Page, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: T }> {
  const response = await page.request.fetch(`/api/v1/default${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    data: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status(), json: (await response.text().then((t) => (t ? JSON.parse(t) : null))) as T };
}

/**
 * For `test.afterAll` in every file that opens browser contexts: the browser outlives the file (one per
 * worker), and a context left open keeps its pages polling and rendering while the later files run.
 */
export async function closeContexts({ browser }: { browser: Browser }) {
  await Promise.all(browser.contexts().map((c) => c.close()));
}

/** axe-core's browser build, evaluated in a page the first time a check runs there. */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe on the page as it stands, once transitions end, with no serious or critical violation.
 * axe-core runs in the page itself, injected once per document: @axe-core/playwright's AxeBuilder
 * injects it anew for every check and finishes each run in a blank page of its own, which made a check
 * cost about 900 ms against 150 here, a third of the settings walk (the app has no iframes to cover).
 */
export async function expectNoSeriousAxeViolations(page: Page, where: string) {
  // Mid-fade colours (a notification sliding in) are blends axe reads as low contrast.
  await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running'));
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(() =>
    (window as unknown as { axe: { run(context: Document, options: object): Promise<AxeResults> } }).axe
      .run(document, { resultTypes: ['violations'] })
      .then((results) =>
        results.violations
          .filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
      ),
  );
  expect(violations.map((v) => `${where}: ${v}`)).toEqual([]);
}

/** Signs in as the seeded administrator with the password form; returns the bearer token it got. */
export async function signInAsAdmin(page: Page): Promise<string> {
  await page.goto('/default/auth/login');
  await page.getByLabel('E-mail').fill(E2E.adminEmail);
  await page.getByLabel('Password').fill(E2E.adminPassword);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).not.toHaveURL(/auth\/login/);
  return (await page.evaluate(() => localStorage.getItem('token')))!;
}

/**
 * Closes a notification with its Dismiss button, once it has grown in. Until its entrance starts the
 * snackbar sits still at three quarters of its size, so Playwright may find it "stable" and aim at the
 * small button; as it grows the button moves from under the pointer and the click misses (seen in CI:
 * the notification stayed).
 */
export async function dismiss(notification: Locator) {
  await expect(notification.locator('.MuiSnackbarContent-root')).toHaveCSS('transform', 'none');
  await notification.getByRole('button', { name: 'Dismiss' }).click();
  await expect(notification).toHaveCount(0);
}
