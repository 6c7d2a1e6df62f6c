import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test, type Page } from '@playwright/test';
import { Webhook } from 'standardwebhooks';
import { api as apiAs, expectNoSeriousAxeViolations, signInAsAdmin, closeContexts } from './checks.js';

/**
 * Issue 21 in the browser: an HTTP workflow engine (a local server in this test speaking the engine
 * contract: signed POST /runs, then a signed callback) configured through the schema-drawn plugin
 * form, a workflow made in the editor, run from an incident until its instance is Completed; a stable
 * workflow of the built-in step engine whose message reaches a local Slack-compatible receiver; the
 * filter editor's preview and the webhook delivery log's replay. axe checks each new screen.
 */
test.describe.configure({ mode: 'serial' });
test.afterAll(closeContexts);

interface Hit {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

const servers: Server[] = [];
async function peer(answer: (hit: Hit, reply: (status: number, body?: unknown) => void) => void = (_h, reply) => reply(200, 'ok')) {
  const hits: Hit[] = [];
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const hit = { path: req.url!, headers: req.headers, body };
    hits.push(hit);
    answer(hit, (status, out) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(typeof out === 'string' ? out : JSON.stringify(out ?? {}));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push(server);
  return { hits, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
test.afterAll(() => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))));

const ENGINE_SECRET = `whsec_${Buffer.from('e2e engine secret of 32 bytes!!!').toString('base64')}`;
const stamp = Date.now().toString(36);

let page: Page;
let token: string;
let projectId: number;
const api = <T = any>(method: string, path: string, body?: unknown) => apiAs<T>(page, token, method, path, body);

test.beforeAll(async ({ browser }) => {
  page = await (await browser.newContext()).newPage();
  page.setDefaultTimeout(20_000);
  token = await signInAsAdmin(page);
  const project = await api('POST', '/projects', { name: `Workflows ${stamp}` });
  expect(project.status).toBe(201);
  projectId = project.json.id;
});

/** Picks an option of a react-admin autocomplete or select by its label. */
async function choose(label: RegExp | string, option: RegExp | string) {
  await page.getByRole('combobox', { name: label }).click();
  await page.getByRole('option', { name: option }).first().click();
}

/** Picks the record named exactly `name` (other tests on the same server make records whose names contain it). */
async function pickExactly(label: RegExp, name: string) {
  const box = page.getByRole('combobox', { name: label });
  await box.click();
  await box.fill(name);
  await page.getByRole('option', { name, exact: true }).click();
}

test('an HTTP engine instance from its schema form, a workflow from the editor, run from an incident until Completed', async () => {
  // The engine: accepts a signed run, then reports Completed by a signed callback.
  const signer = new Webhook(ENGINE_SECRET);
  const engine = await peer((hit, reply) => {
    if (hit.path !== '/runs') return reply(404);
    try {
      signer.verify(hit.body, hit.headers as Record<string, string>);
    } catch {
      return reply(401, { error: 'bad signature' });
    }
    const run = JSON.parse(hit.body) as { instance_id: number; callback_url: string; incident: { name: string } };
    reply(200, { id: `run-${run.instance_id}`, status: 'Running' });
    setTimeout(() => {
      const body = JSON.stringify({
        status: 'Completed',
        reason: `Paged the owners of ${run.incident.name}`,
        artifacts: [{ name: 'Engine log', url: 'https://engine.example.com/log' }],
      });
      const id = `cb_${run.instance_id}`;
      const at = new Date();
      void fetch(run.callback_url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': signer.sign(id, at, body),
        },
        body,
      });
    }, 500);
  });

  // The plugin instance form is drawn from the plugin's schema.
  await page.goto('/default/plugins/instances/create');
  await page.getByRole('textbox', { name: /^Title/ }).fill(`Engine ${stamp}`);
  await choose(/^Plugin/, 'HTTP workflow engine');
  await expect(page.getByRole('textbox', { name: /^Engine URL/ })).toHaveValue('');
  await page.getByLabel(/^Signing secret/).fill(ENGINE_SECRET);
  // The server's refusal of one configuration field shows under that field, not only as a notification.
  const url = page.getByRole('textbox', { name: /^Engine URL/ });
  await url.fill('http://169.254.169.254/latest/meta-data');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(url).toHaveAccessibleDescription(/The server may not call this address: .*cloud metadata/);
  await url.fill(engine.url);
  await expectNoSeriousAxeViolations(page, 'plugin instance form');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Plugin instance created successfully.')).toBeVisible();
  const instances = await api('GET', `/plugins/instances?q=${encodeURIComponent(`Engine ${stamp}`)}`);
  const instance = instances.json.items[0];
  expect(instance.configuration).toEqual({ url: engine.url, signing_secret: '********' });
  expect(instance.enabled).toBe(true);

  // Edited again, the secret shows masked and is kept.
  await page.goto(`/default/plugins/instances/${instance.id}`);
  await expect(page.getByLabel(/^Signing secret/)).toHaveValue('********');
  await expect(page.getByLabel(/^Signing secret/)).toHaveAttribute('type', 'password');

  // A slack plugin starts from its schema's default (username) and the empty string (webhook URL).
  await page.goto('/default/plugins/instances/create');
  await choose(/^Plugin/, 'Slack-compatible incoming webhook');
  await expect(page.getByRole('textbox', { name: /^Shown as/ })).toHaveValue('Firewatch');
  await expect(page.getByRole('textbox', { name: /^Webhook URL/ })).toHaveValue('');

  // The workflow, in the editor.
  await page.goto('/default/workflows/create');
  await page.getByRole('textbox', { name: /^Name/ }).fill(`Page owners ${stamp}`);
  await choose(/^Engine/, `Engine ${stamp}`);
  await expectNoSeriousAxeViolations(page, 'workflow editor');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Workflow created successfully.')).toBeVisible();

  // Run from an incident: the dialog follows the instance until Completed.
  const incident = await api('POST', '/iaos', { title: `Checkout down ${stamp}`, project_id: projectId });
  expect(incident.status).toBe(201);
  await page.goto(`/default/iaos/${incident.json.id}`);
  await page.getByRole('button', { name: 'Run workflow' }).click();
  const dialog = page.getByRole('dialog', { name: /Run/ });
  await dialog.getByRole('combobox', { name: /^Workflow/ }).click();
  await page.getByRole('option', { name: `Page owners ${stamp}` }).click();
  await dialog.getByRole('textbox', { name: 'Run reason' }).fill('Owners must know');
  await expectNoSeriousAxeViolations(page, 'run dialog');
  await dialog.getByRole('button', { name: 'Run' }).click();
  await expect(dialog.getByRole('status')).toContainText('Completed', { timeout: 30_000 });
  await expect(dialog.getByRole('status')).toContainText(`Paged the owners of ${incident.json.name}`);
  await expect(dialog.getByRole('link', { name: 'Engine log' })).toHaveAttribute('href', 'https://engine.example.com/log');
  await expectNoSeriousAxeViolations(page, 'run dialog, completed');
  expect(engine.hits.filter((h) => h.path === '/runs')).toHaveLength(1);
  expect(JSON.parse(engine.hits[0]!.body).run.reason).toBe('Owners must know');
});

test('marking an incident stable runs its stable workflow, whose message reaches the Slack receiver', async () => {
  const slack = await peer();
  const channel = await api('POST', '/plugins/instances', {
    plugin_slug: 'slack-webhook',
    title: `Ops channel ${stamp}`,
    configuration: { webhook_url: `${slack.url}/services/T1/B1/secret` },
  });
  expect(channel.status).toBe(201);
  const discord = await api('POST', '/plugins/instances', {
    plugin_slug: 'discord-webhook',
    title: `Discord room ${stamp}`,
    configuration: { webhook_url: `${slack.url}/api/webhooks/1/secret` },
  });
  expect(discord.status).toBe(201);
  const steps = await api('POST', '/plugins/instances', { plugin_slug: 'step-engine', title: `Steps ${stamp}` });
  expect(steps.status).toBe(201);

  // The editor: a stable trigger and one message step with its parameters.
  await page.goto('/default/workflows/create');
  await page.getByRole('textbox', { name: /^Name/ }).fill(`Announce stable ${stamp}`);
  await choose(/^Engine/, `Steps ${stamp}`);
  await page.getByRole('combobox', { name: /^Incident statuses/ }).click();
  await page.getByRole('option', { name: 'Stable' }).click();
  await page.keyboard.press('Escape');
  // The step list comes after the parameters' list: its Add button is the last.
  await page.getByRole('button', { name: 'Add' }).last().click();
  await choose(/^Step/, 'Send a message');
  // Every plugin that can send a message is offered, Discord's webhook among them.
  const conversation = page.getByRole('combobox', { name: /^Conversation plugin/ });
  await conversation.fill(`Discord room ${stamp}`);
  await expect(page.getByRole('option', { name: `Discord room ${stamp}` })).toBeVisible();
  await conversation.fill(`Ops channel ${stamp}`);
  await page
    .getByRole('option', { name: `Ops channel ${stamp}` })
    .first()
    .click();
  await page.getByRole('textbox', { name: /^Message/ }).fill('{{incident.name}} is stable: {{incident.title}}');
  await expectNoSeriousAxeViolations(page, 'workflow editor with a step');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Workflow created successfully.')).toBeVisible();

  const incident = await api('POST', '/iaos', { title: `Queue backlog ${stamp}`, project_id: projectId });
  await page.goto(`/default/iaos/${incident.json.id}`);
  await page.getByRole('button', { name: 'Mark stable' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Mark stable' }).click();
  await expect(page.getByText('Incident marked as stable. Running stable status workflows.')).toBeVisible();
  await expect
    .poll(() => slack.hits.map((h) => JSON.parse(h.body).text), { timeout: 30_000 })
    .toContain(`${incident.json.name} is stable: Queue backlog ${stamp}`);
  expect(slack.hits[0]!.path).toBe('/services/T1/B1/secret');
});

test('the filter editor previews the last 30 days; the delivery log replays a delivery', async () => {
  // Filter preview.
  await page.goto('/default/search/filters/create');
  await page.getByRole('switch', { name: 'Pick values' }).uncheck();
  await page.getByRole('textbox', { name: /^Expression/ }).fill(JSON.stringify({ and: [{ field: 'title', op: 'like', value: `%${stamp}%` }] }));
  await page.getByRole('button', { name: 'Preview last 30 days' }).click();
  const preview = page.getByLabel('Preview').getByRole('status');
  await expect(preview).toContainText('Would have matched 2 incidents in the last 30 days');
  await expect(preview).toContainText(`Queue backlog ${stamp}`);
  await expectNoSeriousAxeViolations(page, 'filter editor preview');

  // A delivery to a local receiver, then replayed from the log with the same webhook-id.
  const receiver = await peer();
  const endpoint = await api('POST', '/webhooks/endpoints', { url: `${receiver.url}/hooks`, events: ['incident.created'] });
  expect(endpoint.status).toBe(201);
  await api('POST', '/iaos', { title: `Delivered ${stamp}`, project_id: projectId });
  await expect.poll(() => receiver.hits.length, { timeout: 30_000 }).toBe(1);
  const wh = new Webhook(endpoint.json.secret);
  expect(() => wh.verify(receiver.hits[0]!.body, receiver.hits[0]!.headers as Record<string, string>)).not.toThrow();
  await page.goto('/default/webhooks/deliveries');
  const row = page.getByRole('row').filter({ hasText: 'incident.created' }).first();
  await expect(row).toContainText('Delivered');
  await row.getByRole('button', { name: /1 attempt · 200/ }).click();
  await expect(page.getByRole('dialog', { name: /Delivery msg_/ })).toContainText(`Delivered ${stamp}`);
  await expectNoSeriousAxeViolations(page, 'delivery attempts');
  await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
  await expectNoSeriousAxeViolations(page, 'delivery log');
  await row.getByRole('button', { name: 'Replay' }).click();
  await expect(page.getByText('Delivery queued again.')).toBeVisible();
  await expect.poll(() => receiver.hits.length, { timeout: 30_000 }).toBe(2);
  expect(receiver.hits[1]!.headers['webhook-id']).toBe(receiver.hits[0]!.headers['webhook-id']);
});

test('a search filter made with the picker: values from the organization’s records, saved as their expression', async () => {
  const types = (await api('GET', '/incident_types?itemsPerPage=50')).json.items as { id: number; name: string }[];
  const outage = types.find((x) => x.name === 'Outage')!;
  const security = types.find((x) => x.name === 'Security')!;
  const made = await api('POST', '/iaos', { title: `Picked outage ${stamp}`, incident_type_id: outage.id, project_id: projectId });
  expect(made.status).toBe(201);

  await page.goto('/default/search/filters/create');
  await page.getByRole('textbox', { name: /^Name/ }).fill(`Picked ${stamp}`);
  await expect(page.getByRole('switch', { name: 'Pick values' })).toBeChecked();
  await pickExactly(/^Incident types/, 'Outage');
  await pickExactly(/^Incident types/, 'Security');
  await page.getByRole('combobox', { name: /^Status/ }).click();
  await page.getByRole('option', { name: 'Active' }).click();
  await page.keyboard.press('Escape');
  await choose(/^Projects/, `Workflows ${stamp}`);
  const expected = [
    {
      and: [
        { or: [{ field: 'status', op: '==', value: 'Active' }] },
        {
          or: [
            { model: 'IncidentType', field: 'id', op: '==', value: outage.id },
            { model: 'IncidentType', field: 'id', op: '==', value: security.id },
          ],
        },
        { or: [{ model: 'Project', field: 'id', op: '==', value: projectId }] },
      ],
    },
  ];
  // The expression the picks make is shown, read-only, with what it would have matched.
  const expression = page.getByRole('figure', { name: 'Expression, made from the picks' }).locator('pre');
  const shown = async () => JSON.parse((await expression.textContent())!.replace('Pick values to make it.', 'null'));
  await expect.poll(shown).toEqual(expected);
  await expect(page.getByRole('textbox', { name: /^Expression/ })).toHaveCount(0);
  await expect(page.getByLabel('Preview').getByRole('status')).toContainText(`Picked outage ${stamp}`);
  await expectNoSeriousAxeViolations(page, 'search filter picker');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Search filter created successfully.')).toBeVisible();

  const saved = (await api('GET', `/search/filters?q=${encodeURIComponent(`Picked ${stamp}`)}`)).json.items[0];
  expect(saved.expression).toEqual(expected);
  expect(saved.filters).toEqual({ status: ['Active'], incident_type: [{ id: outage.id }, { id: security.id }], project: [{ id: projectId }] });

  // Opened again, the picks show by name; one taken away is saved as the smaller expression.
  await page.goto(`/default/search/filters/${saved.id}`);
  await expect(page.getByRole('button', { name: 'Security' })).toBeVisible();
  await page.getByRole('button', { name: 'Security' }).locator('svg').click();
  await expect.poll(async () => (await shown())?.[0].and[1].or.length).toBe(1);
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Search filter updated successfully.')).toBeVisible();
  const changed = (await api('GET', `/search/filters/${saved.id}`)).json;
  expect(changed.filters.incident_type).toEqual([{ id: outage.id }]);
});
