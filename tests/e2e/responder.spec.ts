import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { E2E } from './playwright.config.js';
import { api as apiAs, expectNoSeriousAxeViolations, signInAsAdmin, closeContexts } from './checks.js';

/**
 * Issue 4's responder screens, one signed-in session for all: status boards, report pages, the
 * entity case view (escalate, probable cause, comment), the export dialog (a CSV of the current
 * filter), the handoff dialog (from an incident and from the shift, then in the handoffs list), and
 * the data and feedback dashboards. Axe checks each screen; screenshots go to test-results/responder/.
 */
test.describe.configure({ mode: 'serial' });
test.afterAll(closeContexts);

const shots = join(import.meta.dirname, '..', '..', 'test-results', 'responder');
mkdirSync(shots, { recursive: true });
const shot = (name: string) => page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });

let page: Page;
let token: string;
let project: { id: number; name: string };
const stamp = Date.now().toString(36);

const api = <T = any>(method: string, path: string, body?: unknown) => apiAs<T>(page, token, method, path, body);

const noSeriousAxeViolations = (where: string) => expectNoSeriousAxeViolations(page, where);

test.beforeAll(async ({ browser }) => {
  page = await (await browser.newContext({ acceptDownloads: true })).newPage();
  page.setDefaultTimeout(20_000);
  token = await signInAsAdmin(page);
  const created = await api('POST', '/projects', { name: `Responders ${stamp}` });
  expect(created.status).toBe(201);
  project = created.json;
});

test('an incident is reported from iaos/report, then listed on the iaos/status board', async () => {
  await page.goto('/default/iaos/report');
  await expect(page.locator('#main-content').getByRole('heading', { name: 'Report an incident' })).toBeVisible();
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.getByText('This field is required').first()).toBeVisible();
  await noSeriousAxeViolations('iaos/report');
  await page.getByRole('textbox', { name: 'Title' }).fill(`Login failures ${stamp}`);
  await page.getByRole('textbox', { name: 'Description' }).fill('Customers cannot sign in since 09:10.');
  await page.getByRole('combobox', { name: 'Project' }).fill(project.name.slice(0, 10));
  await page.getByRole('option', { name: project.name }).click();
  await shot('01-iaos-report');
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.getByText(/^Incident IAO-\d+ has been reported\.$/)).toBeVisible();
  // The conversation and conference come from a background job; the page polls every 5 s.
  await expect(page.getByText('Its conversation is ready.')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByRole('link', { name: 'Conference' })).toBeVisible();
  const name = (await page.getByText(/^Incident IAO-\d+ has been reported\.$/).textContent())!.match(/IAO-\d+/)![0];
  await shot('02-iaos-reported');

  await page.getByRole('link', { name: 'Incident status' }).click();
  await expect(page).toHaveURL(/\/default\/iaos\/status$/);
  const active = page.getByRole('table', { name: /^Active \(\d+\)$/ });
  await expect(active.getByRole('row', { name: new RegExp(`${name}\\s*Login failures ${stamp}`) })).toBeVisible();
  await noSeriousAxeViolations('iaos/status');
  await shot('03-iaos-status');

  // Marked stable, it moves to the Stable group; closed, it leaves the board.
  const id = (await api('GET', `/iaos?q=${encodeURIComponent(`Login failures ${stamp}`)}`)).json.items[0].id;
  await api('POST', `/iaos/${id}/stable`);
  await page.reload();
  await expect(page.getByRole('table', { name: /^Stable \(\d+\)$/ }).getByRole('link', { name })).toBeVisible();
  await api('POST', `/iaos/${id}/closed`);
  await page.reload();
  await expect(page.getByRole('link', { name, exact: true })).toHaveCount(0);
});

test('a case is reported from cases/report and shows on cases/status; its view escalates it, gives a probable cause and takes a comment', async () => {
  await page.goto('/default/cases/report');
  await page.getByRole('textbox', { name: 'Title' }).fill(`Phishing wave ${stamp}`);
  await page.getByRole('textbox', { name: 'Description' }).fill('Several staff received a fake payroll e-mail. Links point to a lookalike domain.');
  await page.getByRole('combobox', { name: 'Project' }).fill(project.name.slice(0, 10));
  await page.getByRole('option', { name: project.name }).click();
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.getByText(/^Case OCO-\d+ has been reported\.$/)).toBeVisible();
  await expect(page.getByText('Its conversation is ready.')).toBeVisible({ timeout: 30_000 });
  const name = (await page.getByText(/^Case OCO-\d+ has been reported\.$/).textContent())!.match(/OCO-\d+/)![0];
  await noSeriousAxeViolations('cases/report');

  await page.goto('/default/cases/status');
  await expect(page.getByRole('table', { name: /^New \(\d+\)$/ }).getByRole('row', { name: new RegExp(`${name}\\s*Phishing wave ${stamp}`) })).toBeVisible();
  await noSeriousAxeViolations('cases/status');
  await shot('04-cases-status');

  await page.getByRole('link', { name, exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/default/cases/${name}/view$`));
  await expect(page.getByRole('heading', { name: `${name}: Phishing wave ${stamp}` })).toBeVisible();
  await expect(page.getByRole('table', { name: 'Timeline' })).toContainText(`Case ${name} created by ${E2E.adminEmail}`);

  await page.getByRole('button', { name: 'Probable cause' }).click();
  await expect(page.getByRole('region', { name: 'Probable cause' })).toContainText(/payroll|lookalike/);

  await page.getByLabel('New comment').fill('Blocked the lookalike domain at the mail gateway.');
  await page.getByRole('button', { name: 'Add comment' }).click();
  await expect(page.getByText('Comment added successfully.')).toBeVisible();
  await expect(page.getByText(`${E2E.adminEmail}: Blocked the lookalike domain at the mail gateway.`)).toBeVisible();

  await page.getByLabel('Participant e-mail').fill('analyst@firewatch.test');
  await page.getByRole('button', { name: 'Add participant' }).click();
  await expect(page.getByRole('list', { name: 'Participants' })).toContainText('analyst@firewatch.test');

  await page.getByLabel('New task').fill('Reset passwords of the staff who clicked');
  await page.getByRole('button', { name: 'Add task' }).click();
  await expect(page.getByRole('table', { name: 'Tasks' }).getByRole('row', { name: /Reset passwords of the staff who clicked\s*Open/ })).toBeVisible();
  await noSeriousAxeViolations('cases/{name}/view');

  await page.getByRole('button', { name: 'Escalate to incident' }).click();
  await page
    .getByRole('dialog', { name: /^Escalate .* to an incident\?$/ })
    .getByRole('button', { name: 'Confirm' })
    .click();
  await expect(page.getByText('Case escalated successfully.')).toBeVisible();
  await expect(page.getByLabel('Status Escalated')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Escalate to incident' })).toHaveCount(0);
  // The new incident is linked, and the view polls until its conference exists.
  const incident = page.getByRole('link', { name: new RegExp(`^IAO-\\d+: Phishing wave ${stamp}$`) });
  await expect(incident).toBeVisible();
  await expect(page.getByRole('link', { name: 'Conference' })).toBeVisible({ timeout: 30_000 });
  await shot('05-case-view');
  await incident.click();
  await expect(page.getByRole('table', { name: 'Timeline' })).toContainText(`Incident created by escalating case ${name}`);
});

test('the incident list exports the rows of its current filter as CSV', async () => {
  // The filter names this attempt's rows only: a retry's list also holds the first attempt's.
  for (const title of [`Export ${stamp} alpha`, `Export ${stamp} beta`, `Other ${stamp} gamma`])
    expect((await api('POST', '/iaos', { title, project_id: project.id })).status).toBe(201);
  await page.goto(`/default/iaos?filter=${encodeURIComponent(JSON.stringify({ q: `Export ${stamp}` }))}`);
  await expect(page.locator('tbody tr', { hasText: `Export ${stamp} alpha` })).toBeVisible();
  await expect(page.locator('tbody tr', { hasText: `Other ${stamp} gamma` })).toHaveCount(0);
  await page.getByRole('button', { name: 'Export' }).click();
  const dialog = page.getByRole('dialog', { name: 'Export to CSV' });
  await expect(dialog).toContainText('2 rows match the current filter and sort.');
  await dialog.getByRole('checkbox', { name: 'Visibility' }).uncheck();
  await noSeriousAxeViolations('export dialog');
  await shot('06-export');
  const [download] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('button', { name: 'Download CSV' }).click()]);
  expect(download.suggestedFilename()).toMatch(/^iaos-\d{4}-\d{2}-\d{2}\.csv$/);
  const csv = readFileSync((await download.path())!, 'utf8')
    .trim()
    .split('\n');
  expect(csv[0]).toContain('Name');
  expect(csv[0]).toContain('Title');
  expect(csv[0]).not.toContain('Visibility');
  expect(
    csv
      .slice(1)
      .map((l) => l.match(/Export \w+ (alpha|beta)|Other \w+ gamma/)?.[0])
      .sort(),
  ).toEqual([`Export ${stamp} alpha`, `Export ${stamp} beta`]);
  await expect(page.getByText('Exported 2 rows.')).toBeVisible();
});

test('a handoff from an incident and one from the shift are recorded and listed', async () => {
  const incident = (await api('POST', '/iaos', { title: `Payments latency ${stamp}`, project_id: project.id })).json;
  expect((await api('POST', '/tasks', { description: `Watch p99 of payments ${stamp}`, incident_id: incident.id })).status).toBe(201);
  await page.goto(`/default/iaos/${incident.name}/view`);
  await page.getByRole('button', { name: 'Handoff' }).click();
  const dialog = page.getByRole('dialog', { name: 'On-call handoff' });
  await expect(dialog.getByLabel('Handover from')).toHaveValue(E2E.adminEmail);
  await expect(dialog.getByLabel('Critical ongoing issues')).toHaveValue(new RegExp(`^${incident.name} Payments latency ${stamp}: Active`));
  await expect(dialog.getByLabel('Pending tasks')).toHaveValue(`- Watch p99 of payments ${stamp} (${incident.name})`);
  await dialog.getByRole('button', { name: 'Hand off' }).click();
  await expect(dialog.getByText('This field is required')).toBeVisible();
  await dialog.getByLabel('Handover to').fill(`night-${stamp}@firewatch.test`);
  await noSeriousAxeViolations('handoff dialog');
  await shot('07-handoff');
  await dialog.getByRole('button', { name: 'Hand off' }).click();
  await expect(page.getByText('Handoff created successfully.')).toBeVisible();
  await expect(page.getByRole('table', { name: 'Timeline' })).toContainText(
    `On-call handoff from ${E2E.adminEmail} to night-${stamp}@firewatch.test recorded by ${E2E.adminEmail}`,
  );

  await page.goto('/default/oncall/handoffs');
  await expect(page.locator('tbody tr', { hasText: `night-${stamp}@firewatch.test` })).toBeVisible();
  await page.getByRole('button', { name: 'Shift handoff' }).click();
  const shift = page.getByRole('dialog', { name: 'On-call handoff' });
  await expect(shift.getByLabel('Handover from')).toHaveValue(E2E.adminEmail);
  await shift.getByLabel('Handover to').fill(`day-${stamp}@firewatch.test`);
  await shift.getByRole('button', { name: 'Hand off' }).click();
  await expect(page.getByText('Handoff created successfully.')).toBeVisible();
  await expect(page.locator('tbody tr', { hasText: `day-${stamp}@firewatch.test` })).toBeVisible();
  await noSeriousAxeViolations('oncall/handoffs');
  await shot('08-handoffs');
});

test('the data and feedback dashboards chart sources and ratings, filtered by project', async () => {
  const type = (await api('POST', '/data/sources/types', { name: `Logs ${stamp}` })).json.id;
  expect(
    (
      await api('POST', '/data/sources', {
        name: `nginx-${stamp}`,
        source_type_id: type,
        size: 2_000_000,
        cost: 40,
        data_last_loaded_at: new Date().toISOString(),
        project_id: project.id,
      })
    ).status,
  ).toBe(201);
  const incident = (await api('POST', '/iaos', { title: `Feedback target ${stamp}`, project_id: project.id })).json;
  expect(
    (await api('POST', '/feedback', { rating: 'Very satisfied', feedback: `Calm and clear ${stamp}`, incident_id: incident.id, project_id: project.id }))
      .status,
  ).toBe(201);
  expect((await api('POST', '/servicefeedback', { rating: 'Little effort', project_id: project.id })).status).toBe(201);

  await page.goto('/default/dashboards/data');
  await expect(page.getByRole('tab', { name: 'Data', selected: true })).toBeVisible();
  const picker = page.getByRole('combobox', { name: 'Project' });
  await picker.selectOption({ label: project.name });
  await expect(page.getByLabel('Sources', { exact: true })).toHaveText('1');
  await expect(page.getByLabel('Daily volume')).toHaveText('2 MB');
  await expect(page.getByLabel('Loaded in the last day')).toHaveText('1');
  await expect(page.getByRole('img', { name: new RegExp(`Sources added by type: .*Logs ${stamp} 1`) })).toBeVisible();
  await noSeriousAxeViolations('dashboards/data');
  await shot('09-dashboard-data');

  await page.getByRole('tab', { name: 'Feedback' }).click();
  await expect(page).toHaveURL(/\/dashboards\/feedback$/);
  // The project chosen on the Data tab stays chosen on this one.
  await expect(picker.locator('option:checked')).toHaveText(project.name);
  // Choosing the chosen project again, on a slow machine (the CPU 20 times slower), leaves the page usable:
  // nothing stays over it, so the next clicks reach their tabs.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 20 });
  await picker.selectOption({ label: project.name });
  await page.getByRole('tab', { name: 'People' }).click({ timeout: 10_000 });
  await expect(page).toHaveURL(/\/dashboards\/people$/);
  await page.getByRole('tab', { name: 'Feedback' }).click({ timeout: 10_000 });
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
  await expect(picker.locator('option:checked')).toHaveText(project.name);
  await expect(page.getByLabel('Feedback received')).toHaveText('1');
  await expect(page.getByLabel('Mean rating')).toHaveText('5 of 5');
  await expect(page.getByRole('img', { name: /Incident feedback ratings: .*Very satisfied 1/ })).toBeVisible();
  await expect(page.getByRole('list', { name: 'Latest comments' })).toContainText(`Very satisfied · ${incident.name}: Calm and clear ${stamp}`);
  await expect(page.getByLabel('Mean effort score')).toHaveText('4 of 5');
  // No model is configured here: the summary quotes the comments themselves.
  await page.getByRole('button', { name: 'Summarize feedback' }).click();
  await expect(page.getByLabel('What the feedback says')).toContainText(`Calm and clear ${stamp}`);
  await noSeriousAxeViolations('dashboards/feedback');
  await shot('10-dashboard-feedback');
});
