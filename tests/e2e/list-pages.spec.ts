import { expect, test, type Page } from '@playwright/test';
import { freePort, startOwnServer, type OwnServer } from './own-server.js';
import { api, signInAsAdmin, closeContexts } from './checks.js';

/**
 * Spec §9's list constants as a person meets them: every project on one page (9999 a page, more than
 * react-admin's usual 100), and a document search that reloads 200 ms after typing where other lists
 * wait 500. A server of its own: the hundred projects made here would crowd the shared servers' pickers.
 */
test.describe.configure({ mode: 'serial' });
test.afterAll(closeContexts);
let server: OwnServer;
let page: Page;
let token: string;

test.beforeAll(async ({ browser }) => {
  test.setTimeout(180_000);
  server = await startOwnServer(await freePort());
  page = await (await browser.newContext({ baseURL: server.base })).newPage();
  token = await signInAsAdmin(page);
});

test.afterAll(async () => {
  await server?.stop();
});

test('the projects list shows every project on one page', async () => {
  test.setTimeout(180_000);
  for (let i = 1; i <= 105; i++) expect((await api(page, token, 'POST', '/projects', { name: `Team ${String(i).padStart(3, '0')}` })).status).toBe(201);
  const listCall = page.waitForRequest((r) => new URL(r.url()).pathname === '/api/v1/default/projects');
  await page.goto('/default/projects');
  expect(new URL((await listCall).url()).searchParams.get('itemsPerPage')).toBe('9999');
  // 105 made here and the seeded Default, sorted by name: the last one is on the first page.
  await expect(page.locator('.RaDatagrid-tbody tr')).toHaveCount(106);
  await expect(page.getByRole('cell', { name: 'Team 105', exact: true })).toBeVisible();
  await expect(page.getByText('1-106 of 106')).toBeVisible();
});

/** Types `text` in a list's search box with the page's clock stopped; resolves the time the list waited before asking. */
async function searchWait(path: string, text: string) {
  await page.goto(`/default/${path}`);
  await expect(page.locator('.RaList-main')).toBeVisible();
  const asked: string[] = [];
  const watch = (r: { url(): string }) => {
    const url = new URL(r.url());
    if (url.pathname === `/api/v1/default/${path}` && url.searchParams.get('q') === text) asked.push(r.url());
  };
  page.on('request', watch);
  await page.clock.pauseAt(new Date(Date.now() + 60_000));
  // The list's own search box (the toolbar's global search is a combobox).
  await page.getByRole('textbox', { name: 'Search' }).fill(text);
  // 50 ms at a time, with real time between for what the timers set off (a render, the fetch).
  let waited = 0;
  while (!asked.length && waited < 1_000) {
    await page.clock.runFor(50);
    waited += 50;
    await page.waitForTimeout(150);
  }
  page.off('request', watch);
  await page.clock.resume();
  return waited;
}

test('a document search reloads 200 ms after typing, other lists 500 ms', async () => {
  await page.clock.install();
  // Documents ask 200 ms after the last key (and the few ticks a render and the fetch take), tags 500.
  const documents = await searchWait('documents', 'runbook');
  expect(documents).toBeGreaterThanOrEqual(200);
  expect(documents).toBeLessThan(400);
  const tags = await searchWait('tags', 'latency');
  expect(tags).toBeGreaterThanOrEqual(500);
  expect(tags).toBeLessThan(700);
});

test('a list that fails to load says why once, and stops loading', async () => {
  // Spec §8: the server's message as one persistent error notification; the table just stops loading.
  await page.route('**/api/v1/default/tags?*', (route) =>
    route.fulfill({
      status: 503,
      contentType: 'application/json',
      body: JSON.stringify({ detail: [{ msg: 'The database is busy.', loc: [], type: 'unavailable' }] }),
    }),
  );
  await page.goto('/default/tags');
  // (After react-admin's retries.)
  await expect(page.getByText('The database is busy.')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByText('The database is busy.')).toHaveCount(1);
  await expect(page.locator('.RaList-main [role="progressbar"], header [role="progressbar"]')).toHaveCount(0);
  await page.waitForTimeout(1_000);
  await expect(page.getByText('The database is busy.'), 'errors persist').toBeVisible();
  await page.unroute('**/api/v1/default/tags?*');
});
