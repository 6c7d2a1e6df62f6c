import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { E2E } from './playwright.config.js';
import { api, closeContexts } from './checks.js';

/**
 * Issue 4, a responder's incident from start to finish in the browser, against the real server:
 * create, join, timeline event, task added and resolved, stable, tactical report, closed, dashboard;
 * then a case escalated to an incident. Screenshots of each stage are kept in test-results/incidents/.
 */
test.describe.configure({ mode: 'serial' });
test.afterAll(closeContexts);

const shots = join(import.meta.dirname, '..', '..', 'test-results', 'incidents');
mkdirSync(shots, { recursive: true });
const shot = (page: Page, name: string) => page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });

let page: Page;
const title = `Checkout errors ${Date.now() % 100000}`;

/** A call to the API as the signed-in user (setup the test is not about, e.g. a project). */
async function apiCall(path: string, method = 'GET', body?: unknown) {
  return api(page, (await page.evaluate(() => localStorage.getItem('token')))!, method, path, body);
}

test('a responder creates an incident reported by the pager, and opens it', async ({ browser }) => {
  page = await (await browser.newContext()).newPage();
  await page.goto('/default/iaos');
  // Signed out, a protected page leads to the landing page; its Sign in link returns here once signed in.
  await page.getByRole('link', { name: 'Sign in' }).click();
  await page.getByLabel('E-mail').fill(E2E.adminEmail);
  await page.getByLabel('Password').fill(E2E.adminPassword);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/default\/iaos/);
  const project = await apiCall('/projects', 'POST', { name: `Storefront ${Date.now() % 100000}` });
  expect(project.status).toBe(201);

  await page.getByRole('link', { name: 'Create' }).click();
  await expect(page).toHaveURL(/\/iaos\/create$/);
  await page.getByRole('textbox', { name: 'Title' }).fill(title);
  await page.getByRole('combobox', { name: 'Project' }).fill(project.json.name.slice(0, 8));
  await page.getByRole('option', { name: project.json.name }).click();
  await shot(page, '01-create');
  // Create is the report form (issue 40): sent, it says so.
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.getByText(/^Incident IAO-\d+ has been reported\.$/)).toBeVisible();

  const listed = await apiCall(`/iaos?q=${encodeURIComponent(title)}`);
  const name = listed.json.items[0].name as string;
  await page.goto(`/default/iaos/${name}/view`);
  await expect(page.getByRole('heading', { name: `${name}: ${title}` })).toBeVisible();
  await expect(page.getByLabel('Status Active')).toBeVisible();
  // The conversation and conference come from a background job; the page polls until they exist.
  await expect(page.getByRole('link', { name: 'Conference' })).toBeVisible({ timeout: 20_000 });
});

test('its reporter adds a timeline event, adds and resolves a task', async () => {
  // Reported through the report form, the responder is its reporter already (Join is walked in room.spec.ts).
  await expect(page.getByRole('button', { name: 'Join' })).toHaveCount(0);
  const roles = page.getByRole('table', { name: 'Roles' });
  await expect(roles.getByRole('row', { name: new RegExp(`${E2E.adminEmail}.*reporter.*Active`) })).toBeVisible();

  await page.getByRole('button', { name: 'Add event' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add timeline event' });
  await dialog.getByLabel('Description').fill('Rolled back the payment service deploy');
  await dialog.getByRole('button', { name: 'Add event' }).click();
  await expect(page.getByText('Event added.')).toBeVisible();
  // A custom event ("user curated") shows at once: its filter is off by default (spec §9), and the page turns it on for an event just added.
  const timeline = page.getByRole('table', { name: 'Timeline' });
  await expect(timeline).toContainText('Rolled back the payment service deploy');

  await page.getByLabel('New task').fill('Add an alert on checkout error rate');
  await page.getByRole('button', { name: 'Add task' }).click();
  const tasks = page.getByRole('table', { name: 'Tasks' });
  await expect(tasks.getByRole('row', { name: /Add an alert on checkout error rate\s*Open/ })).toBeVisible();
  await tasks.getByRole('button', { name: 'Resolve' }).click();
  await expect(page.getByText('Task resolved successfully.')).toBeVisible();
  await expect(tasks.getByRole('row', { name: /Add an alert on checkout error rate\s*Resolved/ })).toBeVisible();
  await expect(timeline).toContainText(`Task resolved by ${E2E.adminEmail}: Add an alert on checkout error rate`);
  await shot(page, '02-timeline-task');
});

test('marks it stable, sends a tactical report, closes it and sees it on the incident dashboard', async () => {
  await page.getByRole('button', { name: 'Mark stable' }).click();
  await page
    .getByRole('dialog', { name: /stable\?$/ })
    .getByRole('button', { name: 'Confirm' })
    .click();
  await expect(page.getByText('Incident marked as stable. Running stable status workflows.')).toBeVisible();
  await expect(page.getByLabel('Status Stable')).toBeVisible();

  await page.getByRole('button', { name: 'Subscribe' }).click();
  await expect(page.getByText(/subscribed to tactical report emails/)).toBeVisible();
  await page.getByRole('button', { name: 'Report' }).click();
  const report = page.getByRole('dialog', { name: 'Report' });
  await report.getByLabel('Conditions').fill('Error rate back to normal after the rollback.');
  await report.getByLabel('Needs').fill('Nothing right now.');
  await shot(page, '03-report');
  await report.getByRole('button', { name: 'Send report' }).click();
  await expect(page.getByText('Tactical report created successfully.')).toBeVisible();
  await expect(page.getByRole('table', { name: 'Timeline' })).toContainText(`Tactical report created by ${E2E.adminEmail}`);

  await page.getByRole('button', { name: 'Mark closed' }).click();
  await page
    .getByRole('dialog', { name: /^Close / })
    .getByRole('button', { name: 'Confirm' })
    .click();
  await expect(page.getByText('Incident marked as closed. Running closed status workflows.')).toBeVisible();
  await expect(page.getByLabel('Status Closed')).toBeVisible();
  await shot(page, '04-closed');

  await page.goto('/default/dashboards/iaos');
  await expect(page.getByRole('tab', { name: 'Incidents', selected: true })).toBeVisible();
  await expect(page.getByRole('img', { name: /Incidents by status: .*Closed [1-9]/ })).toBeVisible();
  await expect(page.getByLabel('Mean time to close')).not.toHaveText('–');
  await shot(page, '05-dashboard');
});

test('a case is escalated and its incident appears', async () => {
  const project = (await apiCall('/projects')).json.items[0];
  const kase = await apiCall('/cases', 'POST', { title: `Card testing attack ${Date.now() % 100000}`, project_id: project.id });
  expect(kase.status).toBe(201);
  await page.goto(`/default/cases/${kase.json.id}`);
  await page.getByRole('button', { name: 'Escalate to incident' }).click();
  await page.getByRole('dialog', { name: 'Escalate this case to a new incident?' }).getByRole('button', { name: 'Escalate to incident' }).click();
  await expect(page.getByText('Case escalated successfully.')).toBeVisible();
  await page.goto('/default/iaos');
  await expect(page.getByRole('cell', { name: kase.json.title })).toBeVisible();
  await shot(page, '06-escalated');
  const escalated = await apiCall(`/cases/${kase.json.id}`);
  expect(escalated.json.status).toBe('Escalated');
  await page.goto(`/default/iaos/${escalated.json.incidents[0].name}/view`);
  await expect(page.getByRole('table', { name: 'Timeline' })).toContainText(`Incident created by escalating case ${kase.json.name}`);
});
