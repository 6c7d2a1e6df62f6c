import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { api, signInAsAdmin, closeContexts } from './checks.js';

/**
 * Issue 20 in the browser: a recorded Alertmanager group sent to the endpoint becomes cases; the raw
 * signal, its entity and the entity's other cases are one click apart; a snooze filter made on its
 * screen snoozes the next alert. Issue 35: an Alertmanager source set up through the guided screen,
 * its snippet copied, its test alert sent and seen arriving.
 */
test.describe.configure({ mode: 'serial' });
test.afterAll(closeContexts);

const recorded = (name: string) => JSON.parse(readFileSync(join(import.meta.dirname, '..', 'server', 'signals', 'fixtures', name), 'utf8'));

let page: Page;
let token: string;
let key: string;
let signalId: number;
const call = (method: string, path: string, body?: unknown) => api(page, token, method, path, body);
const send = (body: unknown) =>
  page.request.post('/api/v1/default/signals/alertmanager', {
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    data: JSON.stringify(body),
  });

test('an Alertmanager group sent to the endpoint shows up as cases', async ({ browser }) => {
  page = await (await browser.newContext()).newPage();
  token = await signInAsAdmin(page);
  const project = (await call('POST', '/projects', { name: `Signals ${Date.now() % 100000}` })).json;
  const email = (
    await call('POST', '/entity_type', { name: 'Email', regular_expression: '[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\\.[A-Za-z]{2,}', project_id: project.id })
  ).json;
  const host = (
    await call('POST', '/entity_type', { name: 'Host', jpath: '$.labels.instance', regular_expression: '^([a-z0-9.-]+?)(?::\\d+)?$', project_id: project.id })
  ).json;
  // A case per alert here (the default is one per Alertmanager group), so the entity is seen in two.
  const signal = await call('POST', '/signals', { name: 'Prometheus', project_id: project.id, entity_type_ids: [email.id, host.id], grouping: 'alert' });
  expect(signal.status).toBe(201);
  key = signal.json.ingest_key;
  signalId = signal.json.id;

  const res = await send(recorded('alertmanager-firing.json'));
  expect(res.status()).toBe(202);
  await page.goto('/default/cases');
  await expect(async () => {
    await page.reload();
    await expect(page.getByText('Error rate above 5% on api-1.prod.example.com')).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
  await expect(page.getByText('Error rate above 5% on api-2.prod.example.com')).toBeVisible();
});

test("the raw signal, its entity and the entity's other cases", async () => {
  await page.goto('/default/iaos/other_ados');
  await expect(page).toHaveURL(/\/default\/signals\/instances/);
  await page.getByRole('button', { name: 'Raw' }).first().click();
  const dialog = page.getByRole('dialog', { name: /Raw signal/ });
  await expect(dialog.getByLabel('Raw payload')).toContainText('"alertname": "HighErrorRate"');
  await expect(dialog.getByText('source: alertmanager')).toBeVisible();
  await dialog.getByRole('link', { name: 'Email: oncall-payments@example.com' }).click();

  await expect(page).toHaveURL(/\/default\/entity\/\d+/);
  await expect(page.getByLabel('Seen in')).toHaveText('Seen in 2 open cases');
  const cases = page.getByRole('list', { name: 'Cases' });
  await expect(cases.getByRole('listitem')).toHaveCount(2);
  await cases.getByRole('link').first().click();
  await expect(page).toHaveURL(/\/default\/cases\/[^/]+\/view/);
  await expect(page.getByText(/Error rate above 5% on api-\d\.prod\.example\.com/).first()).toBeVisible();
});

test('a snooze filter made on its screen snoozes the next alert', async () => {
  await page.goto('/default/signals/filters/create');
  await page.getByRole('textbox', { name: 'Name' }).fill('Snooze api-3 during the migration');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText(/created successfully/)).toBeVisible();
  const filters = (await call('GET', '/signals/filters?q=api-3')).json.items;
  expect(filters[0].action).toBe('snooze');
  expect((await call('PUT', `/signals/${signalId}`, { filter_ids: [filters[0].id] })).status).toBe(200);

  const next = recorded('alertmanager-firing.json');
  next.alerts = [{ ...next.alerts[0], labels: { ...next.alerts[0].labels, instance: 'api-3.prod.example.com:9100' }, fingerprint: '3333333333333333' }];
  const res = await send(next);
  expect(res.status()).toBe(202);
  const [id] = (await res.json()).ids;
  await page.goto('/default/signals/instances');
  await expect(async () => {
    await page.reload();
    await expect(page.getByRole('row').filter({ hasText: '3333333333333333' }).getByText('snooze')).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
  expect((await call('GET', `/signals/instances/${id}`)).json.case_id).toBeNull();
});

test('an Alertmanager source set up through the guided screen: snippet copied, test alert sent and seen arriving', async ({ browser }) => {
  const context = await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] });
  const guided = await context.newPage();
  const guidedToken = await signInAsAdmin(guided);
  const project = (await api(guided, guidedToken, 'POST', '/projects', { name: `Guided ${Date.now() % 100000}` })).json;
  await guided.goto('/default/signals/create');
  await guided.getByRole('button', { name: 'Prometheus Alertmanager' }).click();
  await guided.getByRole('textbox', { name: 'Name' }).fill('Prometheus production');
  await guided.getByRole('combobox', { name: 'Project' }).fill(project.name.slice(0, 8));
  await guided.getByRole('option', { name: project.name }).click();
  await guided.getByRole('button', { name: 'Save' }).click();

  const dialog = guided.getByRole('dialog', { name: 'Send alerts from Prometheus Alertmanager' });
  await expect(dialog.getByRole('textbox', { name: 'URL' })).toHaveValue(/\/api\/v1\/default\/signals\/alertmanager$/);
  const key = await dialog.getByRole('textbox', { name: 'Ingest key' }).inputValue();
  expect(key).toMatch(/^[0-9a-f]{32}$/);
  await dialog.getByRole('button', { name: 'Copy configuration snippet' }).click();
  const copied = await guided.evaluate(() => navigator.clipboard.readText());
  expect(copied).toContain('webhook_configs:');
  expect(copied).toContain(`credentials: ${key}`);
  await expect(dialog.getByLabel('Last received')).toHaveText('Last received: nothing yet');

  await dialog.getByRole('button', { name: 'Send a test alert' }).click();
  await expect(dialog.getByLabel('Last received')).toContainText(/\(alertmanager\) — opened case \d+/, { timeout: 30_000 });
  await dialog.getByRole('button', { name: 'Done' }).click();
  await expect(guided).toHaveURL(/\/default\/signals\/\d+$/);
  await expect(guided.getByLabel('Last received')).toContainText('opened case');
  await context.close();
});
