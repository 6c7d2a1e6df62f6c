import { expect, test, type Page } from '@playwright/test';
import { api as apiAs, closeContexts, expectNoSeriousAxeViolations, signInAsAdmin } from './checks.js';
import { jiraStandIn } from '../jira-standin.js';
import { zoomStandIn } from '../meetings-standin.js';
import { statuspageStandIn } from '../statuspage-standin.js';

/**
 * Issue 38 in the browser: Jira and Atlassian Statuspage configured from their schema-drawn plugin
 * forms against local stand-ins speaking their protocols (tests/*-standin.ts, run in this process), a
 * Zoom meeting plugin beside them; an incident reported from the form gets its Jira ticket and a Zoom
 * meeting on its page, and is posted to the status page from that page through the preview (the public
 * wording and the components' statuses chosen there; the internal notes shown apart and never sent).
 * The instances belong to this file's own project, so the other files' incidents on this server make
 * no call to the stand-ins, which close with the file.
 */
test.describe.configure({ mode: 'serial' });

const teardowns: (() => unknown)[] = [];
const owner = { teardown: (fn: () => unknown) => void teardowns.push(fn) };
test.afterAll(closeContexts);
test.afterAll(async () => {
  for (const fn of teardowns.reverse()) await fn();
});

const stamp = Date.now().toString(36);
const projectName = `Outside ${stamp}`;
const title = `Checkout errors ${stamp}`;
const internal = `Internal: the payments pod ${stamp} ran out of memory after the deploy.`;

let page: Page;
let token: string;
let projectId: number;
let incidentName: string;
let jira: Awaited<ReturnType<typeof jiraStandIn>>;
let zoom: Awaited<ReturnType<typeof zoomStandIn>>;
let statuspage: Awaited<ReturnType<typeof statuspageStandIn>>;
const api = <T = any>(method: string, path: string, body?: unknown) => apiAs<T>(page, token, method, path, body);

test.beforeAll(async ({ browser }) => {
  jira = await jiraStandIn(owner, { email: 'bot@example.com', token: 'jira-api-token' });
  zoom = await zoomStandIn(owner, { accountId: 'acct', clientId: 'cid', secret: 'csecret' });
  statuspage = await statuspageStandIn(owner, { key: 'sp-api-key', pageId: 'pg1' });
  page = await (await browser.newContext()).newPage();
  page.setDefaultTimeout(20_000);
  token = await signInAsAdmin(page);
  const project = await api('POST', '/projects', { name: projectName });
  expect(project.status).toBe(201);
  projectId = project.json.id;
});

/** Picks an option of a react-admin autocomplete or select by its label. */
async function choose(label: RegExp, option: string) {
  await page.getByRole('combobox', { name: label }).click();
  await page.getByRole('option', { name: option }).first().click();
}

/** Starts a plugin instance of this file's project from the create form. */
async function newInstance(instanceTitle: string, plugin: string) {
  await page.goto('/default/plugins/instances/create');
  await page.getByRole('textbox', { name: /^Title/ }).fill(instanceTitle);
  await choose(/^Plugin/, plugin);
  const project = page.getByRole('combobox', { name: /^Project/ });
  await project.click();
  await project.fill(projectName);
  await page.getByRole('option', { name: projectName, exact: true }).click();
}

/** Reloads the incident's page until `check` passes (its ticket and status page post come from background jobs). */
const onIncidentPage = (check: () => Promise<void>) =>
  expect(async () => {
    await page.goto(`/default/iaos/${incidentName}/view`);
    await check();
  }).toPass({ timeout: 30_000, intervals: [500, 1000, 2000] });

test('Jira configured from its form: a reported incident shows its ticket, and its Zoom meeting', async () => {
  await newInstance(`Jira ${stamp}`, 'Jira Cloud');
  await page.getByRole('textbox', { name: /^Site URL/ }).fill(jira.url);
  await page.getByRole('textbox', { name: /^Account e-mail/ }).fill('bot@example.com');
  await page.getByLabel(/^API token/).fill('jira-api-token');
  await page.getByRole('textbox', { name: /^Default project key/ }).fill('OPS');
  await expectNoSeriousAxeViolations(page, 'Jira plugin form');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Plugin instance created successfully.')).toBeVisible();
  // The meeting plugin is set-up here, not what this test walks (its form is the same schema-drawn one).
  const meeting = await api('POST', '/plugins/instances', {
    plugin_slug: 'zoom-meeting',
    title: `Zoom ${stamp}`,
    project_id: projectId,
    configuration: { account_id: 'acct', client_id: 'cid', client_secret: 'csecret', oauth_url: `${zoom.url}/oauth/token`, api_url: `${zoom.url}/v2` },
  });
  expect(meeting.status).toBe(201);

  await page.goto('/default/iaos/create');
  await page.getByRole('textbox', { name: 'Title' }).fill(title);
  await page.getByRole('textbox', { name: 'Description' }).fill(internal);
  await page.getByRole('combobox', { name: 'Project' }).fill(projectName);
  await page.getByRole('option', { name: projectName, exact: true }).click();
  await page.getByRole('button', { name: 'Send' }).click();
  const reported = page.getByText(/^Incident IAO-\d+ has been reported\.$/);
  await expect(reported).toBeVisible();
  incidentName = /IAO-\d+/.exec((await reported.textContent())!)![0];

  const outside = page.getByRole('region', { name: 'Outside' });
  await onIncidentPage(async () => {
    await expect(outside.getByRole('link', { name: `OPS-1: ${title}` })).toHaveAttribute('href', `${jira.url}/browse/OPS-1`, { timeout: 2000 });
  });
  // What Jira got: the summary, and a description in Atlassian Document Format linking back.
  const issue = jira.issues.get('OPS-1')!;
  expect(issue.fields.summary).toBe(`${incidentName}: ${title}`);
  expect(JSON.stringify(issue.fields.description)).toContain(`/default/iaos/${incidentName}/view`);
  expect(issue.status.name).toBe('In Progress');
  // The meeting is Zoom's, not the link template's.
  expect(zoom.meetings).toHaveLength(1);
  await expect(page.getByRole('link', { name: 'Conference' })).toHaveAttribute('href', zoom.meetings[0].join_url);
  await expect(page.getByRole('table', { name: 'Timeline' })).toContainText(`Ticket OPS-1 opened in Jira ${stamp}`);
});

test('Statuspage configured from its form: the incident is posted from its page with the preview', async () => {
  await newInstance(`Status page ${stamp}`, 'Atlassian Statuspage');
  await page.getByLabel(/^API key/).fill('sp-api-key');
  await page.getByRole('textbox', { name: /^Page id/ }).fill('pg1');
  await page.getByRole('textbox', { name: /^API URL/ }).fill(`${statuspage.url}/v1`);
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Plugin instance created successfully.')).toBeVisible();

  await page.goto(`/default/iaos/${incidentName}/view`);
  const outside = page.getByRole('region', { name: 'Outside' });
  await outside.getByRole('button', { name: 'Post to status page' }).click();
  const preview = page.getByRole('dialog', { name: 'Post to status page' });
  // The preview: the public title, the page's components with their status now, the internal notes apart.
  await expect(preview.getByRole('textbox', { name: 'Public title' })).toHaveValue(title);
  await expect(preview.getByRole('combobox', { name: 'API (now: operational)' })).toBeVisible();
  await expect(preview.getByRole('combobox', { name: 'Website (now: operational)' })).toBeVisible();
  await expect(preview.getByText(`Internal notes (not posted): ${internal}`)).toBeVisible();
  await expect(preview.getByRole('textbox', { name: 'Public message' })).not.toHaveValue(new RegExp(stamp));
  await expectNoSeriousAxeViolations(page, 'status page preview');

  await preview.getByRole('textbox', { name: 'Public title' }).fill('Checkout is failing for some customers');
  await preview.getByRole('textbox', { name: 'Public message' }).fill('Some payments fail at checkout; we are on it.');
  await preview.getByRole('combobox', { name: 'API (now: operational)' }).click();
  await page.getByRole('option', { name: 'major_outage' }).click();
  await preview.getByRole('button', { name: 'Post to status page' }).click();
  await expect(preview).toHaveCount(0);

  await onIncidentPage(async () => {
    await expect(outside.getByRole('link', { name: 'https://stspg.io/inc1' })).toBeVisible({ timeout: 2000 });
  });
  // What the page got: the chosen wording and component statuses, and nothing of the internal notes.
  const posted = statuspage.incidents.get('inc1')!;
  expect(posted).toMatchObject({ name: 'Checkout is failing for some customers', status: 'investigating' });
  expect(posted.updates).toEqual([{ status: 'investigating', body: 'Some payments fail at checkout; we are on it.' }]);
  expect(statuspage.components).toEqual([
    { id: 'cmp-api', name: 'API', status: 'major_outage' },
    { id: 'cmp-web', name: 'Website', status: 'operational' },
  ]);
  expect(JSON.stringify(statuspage.seen.map((s) => s.body))).not.toContain(stamp);

  // A follow-up opens the preview as an update of the same post.
  await outside.getByRole('button', { name: 'Post to status page' }).click();
  await expect(preview.getByRole('button', { name: 'Post update' })).toBeVisible();
  await preview.getByRole('button', { name: 'Cancel' }).click();
  expect(statuspage.incidents.size).toBe(1);
});
