import type { AddressInfo } from 'node:net';
import t from 'tap';
import WebSocket from 'ws';
import { testApp } from '../../helpers.js';
import { SocketClient } from './socket-client.js';

/** The `ready` frame a socket opened at `url` starts with. */
function readyFrame(url: string, headers?: Record<string, string>): Promise<{ type: string; data: Record<string, unknown> }> {
  const ws = new WebSocket(url, { headers });
  return new Promise((resolve, reject) => {
    ws.once('message', (raw) => {
      resolve(JSON.parse(raw.toString()));
      ws.close();
    });
    ws.once('error', reject);
  });
}

/** Scripts send their API key in the upgrade's Authorization header and get on the socket what they get on the API: Member rights. */
t.test('an API key opens the live socket with Member rights', async (t) => {
  const { app, request, login, organization } = await testApp(t);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const ws = (slug: string) => `ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1/${slug}/ws`;
  const owner = await login('owner@example.com');
  const project = (await request({ method: 'POST', url: '/api/v1/default/projects', token: owner, payload: { name: 'Ops' } })).body;
  const created = await request({
    method: 'POST',
    url: '/api/v1/default/apikeys',
    token: owner,
    payload: { project_id: project.id, description: 'ingest script' },
  });
  t.equal(created.status, 201);
  const key = created.body.key as string;

  const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });
  const ticket = (await request({ method: 'POST', url: '/api/v1/default/auth/ws-ticket', token: owner })).body.ticket;
  const userReady = await readyFrame(`${ws('default')}?ticket=${ticket}`);
  const keyReady = await readyFrame(ws('default'), bearer(key));
  t.match(keyReady.data, { authenticated: true, kind: 'apikey', organization: 'default' }, 'the key is known before the upgrade');
  t.equal(keyReady.data.max_frame_bytes, userReady.data.max_frame_bytes, "frames up to the plan's largest upload, as for a member");

  const script = await SocketClient.open(ws('default'), bearer(key));
  t.teardown(() => script.close());
  t.match((await script.request('fetch_limits', {}, 'limits')).data, { plan: 'free', messages_per_day: Number }, 'the key reads its limits');
  const text = await script.request(
    'text_submission',
    { title: 'Heron runbook', text: 'Page the database team first.', project_id: project.id, buildIndex: false },
    'submit_text_response',
  );
  t.match(text.data, { status: 'success', submission_id: Number }, 'and submits text into its organization');
  const listed = await script.request('fetch_submissions', { project_id: project.id }, 'submissions');
  t.ok(
    listed.data.items.some((s: { id: number }) => s.id === text.data.submission_id),
    'and lists it',
  );
  t.match(
    (await script.request('fetch_submissions', { project_id: 9999 }, 'submissions')).data.detail[0].msg,
    "Project '9999' could not be found.",
    'other ids are still refused',
  );

  // A wrong key, or a key of another organization, is no sign-in.
  const other = await organization('other');
  for (const [what, url, headers] of [
    ['a wrong key', ws('default'), bearer(`fw_${'0'.repeat(40)}`)],
    ['the key in another organization', ws(other.slug), bearer(key)],
    ['the key in the URL, where logs would keep it', `${ws('default')}?token=${key}`, undefined],
  ] as const) {
    t.match((await readyFrame(url, headers)).data, { authenticated: false, kind: 'none' }, what);
    const stranger = await SocketClient.open(url, headers);
    t.teardown(() => stranger.close());
    const refused = await stranger.request('fetch_limits', {}, 'limits');
    t.equal(refused.data.detail[0].type, 'no_session', `${what}: refused`);
  }
});
