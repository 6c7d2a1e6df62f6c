import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Browser, type BrowserContextOptions, type Page } from '@playwright/test';
import { signInAsAdmin, closeContexts } from './checks.js';
import { useMailbox } from './mailbox.js';

/**
 * Issue 2's walk through the admin shell, on the run's fresh server: a new person signs in with an
 * e-mailed code, makes a tag type and a tag through the screens, finds the tag with the list filter,
 * switches to dark mode and logs out. Each step's screenshot is kept in test-results/foundation/.
 * Then the shell's rules: empty path, signed-out redirect, persistent errors, stored preferences.
 * These run with motion, as most people see the app (the other specs ask for less motion).
 */
test.describe.configure({ mode: 'serial' });
test.afterAll(closeContexts);
test.use({ reducedMotion: 'no-preference' });

const shots = join(import.meta.dirname, '..', '..', 'test-results', 'foundation');
mkdirSync(shots, { recursive: true });
const shot = (page: Page, name: string) => page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });

const codeFor = useMailbox();

async function newPage(browser: Browser, options?: BrowserContextOptions) {
  return (await browser.newContext(options)).newPage();
}

/** From the landing page's Sign in link, with a code sent to `email`. */
async function signInWithCode(page: Page, email: string, step?: (name: string) => Promise<unknown>) {
  await page.getByRole('link', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/default\/auth\/login$/);
  await page.getByRole('tab', { name: 'E-mail code' }).click();
  await page.getByLabel('E-mail').fill(email);
  await page.getByRole('button', { name: 'Send code' }).click();
  await expect(page.getByText('Verification code sent to your email.')).toBeVisible();
  await step?.('02-code-sent');
  await page.getByLabel('Code').fill(await codeFor(email));
  await page.getByRole('button', { name: 'Verify code' }).click();
}

/** A side menu entry (the drawer may be minimized: entries keep their names). */
async function openFromMenu(page: Page, label: string, path: string) {
  const item = page.locator('.RaSidebar-fixed').getByRole('menuitem', { name: label, exact: true });
  // Settings' screens sit behind its entry (issue 40): opened once, it stays open.
  const settings = page.getByRole('button', { name: 'Settings' });
  if (!(await item.isVisible()) && (await settings.getAttribute('aria-expanded')) !== 'true') await settings.click();
  await item.click();
  await expect(page).toHaveURL(new RegExp(`/${path}(\\?.*)?$`));
}

const stamp = Date.now() % 1_000_000;

test('first walk: code sign-in, a tag type and a tag from the screens, the list filter, dark mode, log out', async ({ browser }) => {
  const page = await newPage(browser);
  const step = (name: string) => shot(page, name);

  await page.goto('/');
  await expect(page).toHaveURL(/\/default\/landing$/);
  await step('01-landing');
  await signInWithCode(page, `walker-${stamp}@firewatch.test`, step);
  await expect(page).toHaveURL(/\/default\/chat$/);
  await expect(page.getByTestId('organization-banner')).toBeVisible();
  await step('03-signed-in');

  await openFromMenu(page, 'Tag types', 'tag_types');
  await page.getByRole('link', { name: 'Create' }).and(page.locator('a[href$="/tag_types/create"]')).click();
  await page.getByRole('textbox', { name: 'Name' }).fill(`Impact ${stamp}`);
  await page.getByRole('textbox', { name: 'Description' }).fill('Who is affected');
  await step('04-tag-type-form');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Tag type created successfully.')).toBeVisible();
  await expect(page.getByRole('cell', { name: `Impact ${stamp}` })).toBeVisible();
  await step('05-tag-type-created');

  await openFromMenu(page, 'Tags', 'tags');
  await page.getByRole('link', { name: 'Create' }).and(page.locator('a[href$="/tags/create"]')).click();
  await page.getByRole('textbox', { name: 'Name' }).fill(`customers-${stamp}`);
  await page.getByRole('combobox', { name: 'Tag type' }).fill(`Impact ${stamp}`);
  await page.getByRole('option', { name: `Impact ${stamp}` }).click();
  await step('06-tag-form');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Tag created successfully.')).toBeVisible();
  await step('07-tag-created');

  await page.getByPlaceholder('Search', { exact: true }).fill(`customers-${stamp}`);
  await expect(page).toHaveURL(new RegExp(`filter=.*customers-${stamp}`));
  const rows = page.locator('tbody tr');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText(`customers-${stamp}`);
  await expect(rows.first()).toContainText(`Impact ${stamp}`);
  await step('08-tag-found');

  const background = () => page.locator('body').evaluate((el) => getComputedStyle(el).backgroundColor);
  const light = await background();
  await page.getByRole('button', { name: 'Toggle light/dark mode' }).click();
  await expect.poll(background).not.toBe(light);
  await step('09-dark-mode');

  const token = (await page.evaluate(() => localStorage.getItem('token')))!;
  await page.getByRole('button', { name: 'Profile' }).click();
  await page.getByRole('menuitem', { name: 'Logout' }).click();
  await expect(page).toHaveURL(/\/default\/auth\/login$/);
  expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull();
  const after = await page.request.get('/api/v1/default/auth/me', { headers: { authorization: `Bearer ${token}` } });
  expect(after.status(), 'the server ended the session: a copy of the token no longer works').toBe(401);
  await step('10-logged-out');
  await page.context().close();
});

test('signed out, a protected page leads to the landing page keeping chat_id; signed in, an empty path is the chat', async ({ browser }) => {
  const page = await newPage(browser);
  const chatId = '0b7e4a8c-1f7a-4c57-9a49-3f1c2b1d0e5a';
  await page.goto(`/default/chat?chat_id=${chatId}`);
  await expect(page).toHaveURL(new RegExp(`/default/landing\\?chat_id=${chatId}$`));
  await page.goto('/default/tags');
  await expect(page).toHaveURL(/\/default\/landing$/);

  // The Sign in link carries the page along: signing in returns to the tags.
  await signInWithCode(page, `returner-${stamp}@firewatch.test`);
  await expect(page).toHaveURL(/\/default\/tags$/);
  await page.goto('/default/');
  await expect(page).toHaveURL(/\/default\/chat$/);
  await page.goto('/');
  await expect(page).toHaveURL(/\/default\/chat$/);
  // An address under another first segment is put under the stored organization.
  await page.goto('/default/tags');
  await page.evaluate(() => window.history.pushState(null, '', '/elsewhere/tags'));
  await page.evaluate(() => window.dispatchEvent(new PopStateEvent('popstate')));
  await expect(page).toHaveURL(/\/default\/tags$/);
  await page.context().close();
});

test('an error notification with the server’s message stays until dismissed', async ({ browser }) => {
  const page = await newPage(browser);
  await page.goto('/default/tags');
  await signInWithCode(page, `errors-${stamp}@firewatch.test`);
  await expect(page).toHaveURL(/\/default\/tags$/);

  await page.goto('/default/tags/987654321');
  const error = page.locator('.MuiSnackbar-root', { hasText: "Tag '987654321' could not be found." });
  await expect(error).toBeVisible();
  await shot(page, '11-error-notification');
  // The next user actions (typing in the list search, clicking elsewhere) leave it on screen.
  await page.getByPlaceholder('Search', { exact: true }).fill('nothing-like-this');
  await page.locator('tbody, .RaList-noResults, main').first().click();
  await expect(page.locator('tbody tr')).toHaveCount(0);
  await expect(error).toBeVisible();
  await error.getByRole('button', { name: 'Dismiss' }).click();
  await expect(error).toHaveCount(0);
  await page.context().close();
});

test('a new message takes the place of the one on screen at once, not after its timeout', async ({ browser }) => {
  const page = await newPage(browser);
  // The page's timers run on Playwright's clock, so the test decides how much time passes.
  await page.clock.install();
  await page.goto('/default/tag_types/create');
  await signInWithCode(page, `messages-${stamp}@firewatch.test`);
  await expect(page).toHaveURL(/\/default\/tag_types\/create$/);
  await page.getByRole('textbox', { name: 'Name' }).fill(`Reach ${stamp}`);
  await page.getByRole('button', { name: 'Save' }).click();
  const row = page.locator('tbody tr', { hasText: `Reach ${stamp}` });
  await row.click();
  await page.getByRole('textbox', { name: 'Description' }).fill('Who hears of it');
  await page.getByRole('button', { name: 'Save' }).click();
  const updated = page.locator('.MuiSnackbar-root', { hasText: 'Tag type updated successfully.' });
  await expect(updated).toBeVisible();

  // Time stops (half a second ahead: it is still running while the call travels), so the update's
  // 4-second message cannot time out.
  await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 500);
  // Back to the form with the browser's Back button, then delete from there.
  await page.goBack();
  await page.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
  // One second covers one message's exit and the next one's entrance, not a timeout.
  await page.clock.runFor(1000);
  await expect(updated).toHaveCount(0);
  await expect(page.locator('.MuiSnackbar-root', { hasText: 'Tag type deleted successfully.' })).toBeVisible();
  await page.context().close();
});

test('preferences live under the spec’s localStorage keys: dark_theme, mini_nav (minimized by default), and a full screen toggle', async ({ browser }) => {
  const page = await newPage(browser);
  await page.goto('/default/tags');
  await signInWithCode(page, `prefs-${stamp}@firewatch.test`);
  await expect(page).toHaveURL(/\/default\/tags$/);
  const stored = () =>
    page.evaluate(() => ({
      dark_theme: localStorage.getItem('dark_theme'),
      mini_nav: localStorage.getItem('mini_nav'),
      organization: localStorage.getItem('organization'),
      token: !!localStorage.getItem('token'),
    }));
  const drawer = () => page.locator('.RaSidebar-paper').evaluate((el) => el.getBoundingClientRect().width);

  expect(await stored()).toEqual({ dark_theme: 'false', mini_nav: 'true', organization: 'default', token: true });
  expect(await drawer()).toBe(80);
  await page.getByRole('button', { name: 'Open menu' }).click();
  await expect.poll(drawer).toBe(250);
  await page.getByRole('button', { name: 'Toggle light/dark mode' }).click();
  await expect.poll(stored).toMatchObject({ dark_theme: 'true', mini_nav: 'false' });
  const dark = await page.locator('body').evaluate((el) => getComputedStyle(el).backgroundColor);

  await page.reload();
  await expect.poll(drawer).toBe(250);
  await expect(page.locator('body')).toHaveCSS('background-color', dark);
  await page.getByRole('button', { name: 'Close menu' }).click();
  await expect.poll(stored).toMatchObject({ mini_nav: 'true' });
  await expect.poll(drawer).toBe(80);
  await shot(page, '12-dark-mini-drawer');

  await page.getByRole('button', { name: 'Enter full screen' }).click();
  await expect.poll(() => page.evaluate(() => !!document.fullscreenElement)).toBe(true);
  await page.getByRole('button', { name: 'Exit full screen' }).click();
  await expect.poll(() => page.evaluate(() => !!document.fullscreenElement)).toBe(false);
  await page.context().close();
});

test('asking the system for less motion (prefers-reduced-motion) opens the drawer at once; otherwise it slides', async ({ browser }) => {
  for (const reducedMotion of ['no-preference', 'reduce'] as const) {
    const page = await newPage(browser, { reducedMotion });
    await signInAsAdmin(page);
    await expect(page.locator('.RaSidebar-paper')).toHaveCSS('width', '80px');
    // Pressed inside the page, so no time passes between the press and the look: the drawer's width
    // and what is moving once React has rendered the press (a microtask later).
    const justAfter = await page.getByRole('button', { name: 'Open menu' }).evaluate(async (button) => {
      (button as HTMLElement).click();
      await Promise.resolve();
      return {
        width: document.querySelector('.RaSidebar-paper')!.getBoundingClientRect().width,
        // Longer than a millisecond: inputs run a 10 ms keyframe (1 ms here) to notice autofill; it does not move.
        moving: document.getAnimations().filter((a) => a.playState === 'running' && Number(a.effect?.getComputedTiming().duration) > 1).length,
      };
    });
    if (reducedMotion === 'reduce') expect(justAfter).toEqual({ width: 250, moving: 0 });
    else {
      expect(justAfter.width).toBeLessThan(250);
      expect(justAfter.moving).toBeGreaterThan(0);
    }
    await expect(page.locator('.RaSidebar-paper')).toHaveCSS('width', '250px');
    await page.context().close();
  }
});
