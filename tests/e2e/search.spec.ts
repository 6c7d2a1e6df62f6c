import { expect, test, type Page } from '@playwright/test';
import { api as apiAs, expectNoSeriousAxeViolations, signInAsAdmin, closeContexts } from './checks.js';

/**
 * Global search (issue 22): type in the toolbar's box, see results grouped as you type, move with the
 * arrow keys and open one with Enter; the search/results screen with its groups and counts; and the
 * classic iaos/old_school_search form.
 */
test.describe.configure({ mode: 'serial' });
test.afterAll(closeContexts);

let page: Page;
let token: string;
const stamp = `pangolin${Date.now().toString(36)}`;
const api = <T = any>(method: string, path: string, body?: unknown) => apiAs<T>(page, token, method, path, body);
let incidentName = '';
let projectName = '';

test.beforeAll(async ({ browser }) => {
  page = await (await browser.newContext()).newPage();
  page.setDefaultTimeout(20_000);
  token = await signInAsAdmin(page);
  projectName = `Search ${stamp}`;
  const project = await api('POST', '/projects', { name: projectName });
  expect(project.status).toBe(201);
  const incident = await api('POST', '/iaos', { title: `Checkout ${stamp} latency`, description: 'p99 above two seconds', project_id: project.json.id });
  expect(incident.status).toBe(201);
  incidentName = incident.json.name;
  expect((await api('POST', '/services', { name: `${stamp}-payments` })).status).toBe(201);
});

test('the toolbar box shows results as you type; arrow keys and Enter open one', async () => {
  await page.goto('/default/overview');
  const box = page.getByRole('combobox', { name: 'Search' });
  await box.fill(stamp.slice(0, -2)); // typed halfway: words match as prefixes
  const results = page.getByRole('listbox', { name: 'Search results' });
  await expect(results.getByRole('option', { name: new RegExp(`${incidentName}: Checkout ${stamp} latency`) })).toBeVisible();
  await expect(results.getByRole('option', { name: new RegExp(`${stamp}-payments`) })).toBeVisible();
  await expect(results.getByText('Incidents')).toBeVisible();
  await expect(results.getByText('Services')).toBeVisible();
  await expectNoSeriousAxeViolations(page, 'search box');
  // The incident ranks first: the arrow key selects it and Enter opens its view.
  await box.press('ArrowDown');
  await expect(results.getByRole('option', { selected: true })).toContainText(incidentName);
  await box.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/default/iaos/${incidentName}/view$`));
  await expect(page.getByText(`Checkout ${stamp} latency`).first()).toBeVisible();
});

test('Enter with nothing chosen opens search/results: groups with counts, a chip narrows to one type', async () => {
  const box = page.getByRole('combobox', { name: 'Search' });
  await box.fill(stamp);
  await expect(page.getByRole('listbox', { name: 'Search results' }).getByRole('option').first()).toBeVisible();
  await box.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/default/search/results\\?q=${stamp}$`));
  await expect(page.locator('#main-content').getByRole('heading', { name: 'Search results', level: 1 })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Incidents (1)' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Services (1)' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Services' }).getByRole('link', { name: `${stamp}-payments` })).toBeVisible();
  await expectNoSeriousAxeViolations(page, 'search/results');
  await page.getByRole('button', { name: 'Services (1)' }).click();
  await expect(page.getByRole('region', { name: 'Incidents' })).toHaveCount(0);
  await page
    .getByRole('region', { name: 'Services' })
    .getByRole('link', { name: `${stamp}-payments` })
    .click();
  await expect(page).toHaveURL(/\/default\/services\/\d+$/);
});

test('iaos/old_school_search: a form, a Search button, a table', async () => {
  await page.goto('/default/iaos/old_school_search');
  await expect(page.locator('#main-content').getByRole('heading', { name: 'Incident search', level: 1 })).toBeVisible();
  await page.getByRole('textbox', { name: 'Name or title contains' }).fill(stamp);
  await expect(page.getByRole('table', { name: 'Incidents found' })).toHaveCount(0); // nothing until Search
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  const table = page.getByRole('table', { name: 'Incidents found' });
  await expect(table.getByRole('link', { name: incidentName })).toBeVisible();
  await expectNoSeriousAxeViolations(page, 'iaos/old_school_search');
  await page.getByRole('combobox', { name: 'Status' }).click();
  await page.getByRole('option', { name: 'Closed' }).click();
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await expect(page.getByText('No incident matches.')).toBeVisible();
});

test('an upload found by search opens on the chat page as the active object; closing it clears it', async () => {
  await page.goto('/default/chat');
  await expect(page.getByText('Connected')).toBeVisible();
  await page.getByLabel('Project').click();
  await page.getByRole('option', { name: projectName }).click();
  await page.getByTestId('upload-input').setInputFiles({
    name: `runbook-${stamp}.txt`,
    mimeType: 'text/plain',
    buffer: Buffer.from(`Failover for ${stamp}: promote the replica with pg_ctl promote, then repoint the pooler.`),
  });
  await expect(
    page
      .getByTestId('submission')
      .filter({ hasText: `runbook-${stamp}.txt` })
      .getByTestId('submission-status'),
  ).toHaveText('indexed', { timeout: 60_000 });

  await page.goto(`/default/search/results?q=${stamp}`);
  await page
    .getByRole('region', { name: 'File submissions' })
    .getByRole('button', { name: `runbook-${stamp}.txt` })
    .click();
  await expect(page).toHaveURL(/\/default\/chat$/);
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByRole('heading')).toContainText(`runbook-${stamp}.txt`);
  await expect(dialog.getByTestId('source-passage')).toContainText('pg_ctl promote');
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toHaveCount(0);
  // Reset: coming back to the chat page does not reopen it.
  await page.goto('/default/overview');
  await page.goto('/default/chat');
  await expect(page.getByText('Connected')).toBeVisible();
  await expect(page.getByRole('dialog')).toHaveCount(0);
});
