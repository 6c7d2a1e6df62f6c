import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { LOOPBACK_STAND_INS, testApp } from '../../helpers.js';
import { SocketClient } from './socket-client.js';

/** A local chat-completions server (SSE) that names itself in its answer and records who called. */
async function model(t: Test, name: string) {
  const calls: { auth: string | undefined; model: string }[] = [];
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const c of req) body += c;
    calls.push({ auth: req.headers.authorization, model: JSON.parse(body).model });
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(
      `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: `Use keyctl rotate, says ${name} [1].` } }] })}\n\n`,
    );
    res.end('data: [DONE]\n\n');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return { calls, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` };
}

t.test('the AI model is a plugin instance; the environment is the default', async (t) => {
  const envModel = await model(t, 'env');
  const orgModel = await model(t, 'org');
  const projectModel = await model(t, 'project');
  const { app, request, login, ticket, database } = await testApp(t, {
    AI_BASE_URL: envModel.url,
    AI_API_KEY: 'sk-env',
    AI_MODEL: 'env-model',
    AI_TIMEOUT_MS: '5000',
    JOB_POLL_SECONDS: '0.5',
    ...LOOPBACK_STAND_INS,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const token = await login('owner@example.com');
  const api = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: Record<string, unknown>) =>
    request({ method, url: `/api/v1/default${url}`, token, payload });
  const project = (await api('POST', '/projects', { name: 'Ops' })).body;
  const ws = await SocketClient.open(`ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1/default/ws?ticket=${await ticket(token)}`);
  t.teardown(() => ws.close());
  const up = await ws.request(
    'text_submission',
    { title: 'Keys', text: 'Rotate the kraken keys with keyctl rotate --all.', project_id: project.id },
    'submit_text_response',
  );
  await ws.next((f) => f.type === 'submission_status' && f.data.submission_id === up.data.submission_id && f.data.status === 'indexed');
  const ask = async () => (await ws.request('chat', { project_id: project.id, text: 'How do I rotate the kraken keys?' }, 'chat_done')).data;

  const catalog = (await api('GET', '/plugins')).body;
  t.match(JSON.stringify(catalog), /"slug":"ai-model"/, 'the catalog lists the AI model plugin');

  t.match(await ask(), { answered_by: 'env-model', answer: /says env/, notice: null }, 'without an instance the environment answers');
  t.equal(envModel.calls.at(-1)!.auth, 'Bearer sk-env');

  const bad = await api('POST', '/plugins/instances', { plugin_slug: 'ai-model', title: 'Broken', configuration: { base_url: 'ftp://models', model: 'x' } });
  t.equal(bad.status, 422);
  t.match(bad.body, { detail: [{ loc: ['body', 'configuration', 'base_url'] }] });
  const missing = await api('POST', '/plugins/instances', { plugin_slug: 'ai-model', title: 'No model', configuration: { base_url: orgModel.url } });
  t.equal(missing.status, 422);
  t.match(missing.body, { detail: [{ loc: ['body', 'configuration', 'model'] }] });

  const created = await api('POST', '/plugins/instances', {
    plugin_slug: 'ai-model',
    title: 'Our model',
    configuration: { base_url: orgModel.url, model: 'org-model', api_key: 'sk-org-secret' },
  });
  t.equal(created.status, 201);
  t.match(created.body.configuration, { base_url: orgModel.url, model: 'org-model', api_key: '********' }, 'the key is never shown');
  const stored = await database.db.execute(`select secrets::text as s, configuration::text as c from plugin_instances where id = ${created.body.id}`);
  const row = ((stored as unknown as { rows?: { s: string; c: string }[] }).rows ?? (stored as unknown as { s: string; c: string }[]))[0]!;
  t.notMatch(row.s + row.c, /sk-org-secret/, 'nor stored in the clear');
  t.match(row.s, /"api_key": ?"v1:/, 'it is sealed like other plugin secrets');

  t.match(await ask(), { answered_by: 'org-model', answer: /says org/ }, "the organization's instance wins over the environment");
  t.same(orgModel.calls.at(-1), { auth: 'Bearer sk-org-secret', model: 'org-model' });

  const forProject = await api('POST', '/plugins/instances', {
    plugin_slug: 'ai-model',
    title: 'Ops model',
    project_id: project.id,
    configuration: { base_url: projectModel.url, model: 'ops-model' },
  });
  t.equal(forProject.status, 201);
  t.match(await ask(), { answered_by: 'ops-model', answer: /says project/ }, "the project's instance wins over the organization's");

  // Renaming the model keeps the stored key (the mask sent back means "unchanged").
  await api('PUT', `/plugins/instances/${forProject.body.id}`, { enabled: false });
  await api('PUT', `/plugins/instances/${created.body.id}`, { configuration: { base_url: orgModel.url, model: 'org-model-2', api_key: '********' } });
  t.match(await ask(), { answered_by: 'org-model-2' }, 'a disabled instance is skipped');
  t.same(orgModel.calls.at(-1), { auth: 'Bearer sk-org-secret', model: 'org-model-2' });

  await api('PUT', `/plugins/instances/${created.body.id}`, { enabled: false });
  t.match(await ask(), { answered_by: 'env-model' }, 'with every instance disabled the environment answers again');
});
