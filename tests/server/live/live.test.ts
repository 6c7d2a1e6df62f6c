import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { incidentApp } from '../incidents/helpers.js';
import { SocketClient } from '../ai/socket-client.js';
import { freePort } from '../../free-port.js';

const changedFor = (incidentId: number) => (f: { type: string; data: any }) => f.type === 'changed' && f.data.incident_id === incidentId;

t.test('an open incident page hears every change; stale writes are refused with the fresh record', async (t) => {
  const ia = await incidentApp(t);
  const { app, api, login, ticket } = ia;
  await app.listen({ port: 0, host: '127.0.0.1' });
  const wsBase = `ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1/default/ws`;
  const incident = await ia.createIncident();
  const sam = await login('sam@example.com', { role: 'Member' });

  const page = await SocketClient.open(`${wsBase}?ticket=${await ticket(ia.token)}`);
  t.teardown(() => page.ws.close());
  page.send('watch', { incident_id: incident.id }, 'w1');
  t.match(await page.next((f) => f.id === 'w1'), { type: 'watching', data: { incident_id: incident.id } });

  // Sam joins, adds an event and a task; the commander marks it stable: the commander's page hears each.
  t.equal((await api('POST', `/iaos/${incident.id}/join`, undefined, sam)).status, 200);
  await page.next(changedFor(incident.id));
  t.equal((await api('POST', `/iaos/${incident.id}/stable`, undefined, sam)).status, 403, 'joining gives no right to change the status');
  t.equal((await api('POST', `/iaos/${incident.id}/stable`)).status, 200, 'the commander may');
  await page.next(changedFor(incident.id));
  const event = await api('POST', `/iaos/${incident.id}/event`, { description: 'Failover started' }, sam);
  t.equal(event.status, 201);
  await page.next(changedFor(incident.id));
  t.equal((await api('POST', '/tasks', { description: 'Find the root cause', incident_id: incident.id }, sam)).status, 201);
  await page.next(changedFor(incident.id));

  // Marking stable again (the page was stale) answers 409 with the incident as it is.
  const again = await api('POST', `/iaos/${incident.id}/stable`);
  t.equal(again.status, 409);
  t.equal(again.body.detail[0].msg, `Incident ${incident.name} is already stable.`);
  t.equal(again.body.incident.status, 'Stable', 'the answer carries the fresh record');

  // A field edit based on an older version is refused with the current record; the current one is taken.
  const fresh = (await api('GET', `/iaos/${incident.id}`)).body;
  const put = (title: string, version: string, as = ia.token) =>
    ia.request({ method: 'PUT', url: `/api/v1/default/iaos/${incident.id}`, token: as, headers: { 'if-match': `"${version}"` }, payload: { title } });
  const first = await put('Database down (primary)', fresh.updated_at);
  t.equal(first.status, 200);
  await page.next(changedFor(incident.id));
  const stale = await put('Database slow', fresh.updated_at, sam);
  t.equal(stale.status, 409, 'a write based on an old version is refused');
  t.equal(stale.body.detail[0].type, 'stale_write');
  t.equal(stale.body.record.title, 'Database down (primary)', 'with the record as it is now');
  t.equal((await api('GET', `/iaos/${incident.id}`)).body.title, 'Database down (primary)', 'nothing was overwritten');
  t.equal((await put('Database slow', first.body.updated_at, sam)).status, 200, 'the fresh version is accepted');
  t.equal(
    (await ia.request({ method: 'PUT', url: `/api/v1/default/iaos/${incident.id}`, token: sam, headers: { 'if-match': 'yesterday' }, payload: { title: 'x' } }))
      .status,
    422,
  );

  // Who may change the status: a member without a role on the incident may not.
  const lee = await login('lee@example.com', { role: 'Member' });
  const refused = await api('POST', `/iaos/${incident.id}/closed`, undefined, lee);
  t.equal(refused.status, 403);
  t.equal(
    refused.body.detail[0].msg,
    "Only the incident's commander, reporter, liaison or scribe, and Admins and above may change its status; joining as a participant does not give that right.",
  );
  t.equal((await api('GET', `/iaos/${incident.id}`)).body.status, 'Stable');

  // Timeline: system entries stay; one's own custom event can be deleted (by its author or an Admin).
  const timeline = (await api('GET', `/iaos/${incident.id}`)).body.events as any[];
  const system = timeline.find((e) => e.type !== 'Custom event')!;
  t.equal((await api('DELETE', `/iaos/${incident.id}/event/${system.id}`)).status, 403, 'a system event cannot be deleted');
  t.equal((await api('PATCH', `/iaos/${incident.id}/event`, { id: system.id, description: 'rewritten' })).status, 403, 'nor rewritten');
  t.equal((await api('PATCH', `/iaos/${incident.id}/event`, { id: system.id, pinned: true })).status, 200, 'but it can be pinned');
  t.equal((await api('DELETE', `/iaos/${incident.id}/event/${event.body.id}`, undefined, lee)).status, 403, "a member cannot delete someone else's event");
  t.equal((await api('DELETE', `/iaos/${incident.id}/event/${event.body.id}`, undefined, sam)).status, 204, 'its author can');
  await page.next(changedFor(incident.id));

  // Subscribe and unsubscribe.
  t.equal((await api('POST', `/iaos/${incident.id}/subscribe`, undefined, sam)).status, 200);
  t.equal((await api('POST', `/iaos/${incident.id}/unsubscribe`, undefined, sam)).status, 200);
  t.equal((await api('POST', `/iaos/${incident.id}/unsubscribe`, undefined, sam)).status, 409);

  // Another organization's incident cannot be watched, and its changes never reach this page.
  const acme = await ia.organization('acme');
  const project = await ia.request({ method: 'POST', url: '/api/v1/acme/projects', token: acme.token, payload: { name: 'Acme ops' } });
  const theirs = await ia.request({ method: 'POST', url: '/api/v1/acme/iaos', token: acme.token, payload: { title: 'Theirs', project_id: project.body.id } });
  page.send('watch', { incident_id: theirs.body.id }, 'w2');
  t.match(await page.next((f) => f.id === 'w2'), { type: 'error', data: { detail: [{ type: 'not_found' }] } });
  page.send('watch', {}, 'w3');
  t.match(await page.next((f) => f.id === 'w3'), { type: 'error', data: { detail: [{ msg: 'Give either incident_id or case_id.' }] } });
});

t.test('a case page hears its changes', async (t) => {
  const ia = await incidentApp(t);
  await ia.app.listen({ port: 0, host: '127.0.0.1' });
  const wsBase = `ws://127.0.0.1:${(ia.app.server.address() as AddressInfo).port}/api/v1/default/ws`;
  const kase = await ia.api('POST', '/cases', { title: 'Phishing mail', project_id: ia.projectId });
  t.equal(kase.status, 201);
  const page = await SocketClient.open(`${wsBase}?ticket=${await ia.ticket(ia.token)}`);
  t.teardown(() => page.ws.close());
  page.send('watch', { case_id: kase.body.id }, 'w');
  await page.next((f) => f.id === 'w');
  t.equal((await ia.api('POST', `/cases/${kase.body.id}/comments/add`, { text: 'Looking' })).status, 201);
  t.match(await page.next((f) => f.type === 'changed'), { data: { case_id: kase.body.id } });
});

t.test(
  'a change made through one app process reaches a socket connected to another, and a sign-out through one closes it (PostgreSQL)',
  { skip: process.env.DATABASE_URL ? false : 'PGlite is one process; set DATABASE_URL' },
  async (t) => {
    const ia = await incidentApp(t);
    const incident = await ia.createIncident();
    // The second app: its own process on the same database, as behind a load balancer.
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/server.ts'], {
      env: {
        ...process.env,
        DATABASE_URL: ia.url!,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
        JWT_SECRET: ia.config.JWT_SECRET,
        ADMIN_DIST: 'dist/no-admin-in-tests',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    t.teardown(() => void child.kill('SIGTERM'));
    const other = `http://127.0.0.1:${port}/api/v1/default`;
    // The bound only stops a hung test (a loaded machine takes over a minute to start a process).
    for (const deadline = Date.now() + 300_000; ;) {
      const up = await fetch(`${other}/iaos/timeline/filters`, { headers: { authorization: `Bearer ${ia.token}` } }).catch(() => null);
      if (up?.ok) break;
      if (Date.now() > deadline) throw new Error('the second app process did not start');
      await new Promise((r) => setTimeout(r, 200));
    }
    const ticket = await fetch(`${other}/auth/ws-ticket`, { method: 'POST', headers: { authorization: `Bearer ${ia.token}` } }).then(
      (r) => r.json() as Promise<{ ticket: string }>,
    );
    const page = await SocketClient.open(`ws://127.0.0.1:${port}/api/v1/default/ws?ticket=${ticket.ticket}`);
    t.teardown(() => page.ws.close());
    page.send('watch', { incident_id: incident.id }, 'w');
    t.match(await page.next((f) => f.id === 'w'), { type: 'watching' });
    // Through the first process (this one).
    t.equal((await ia.api('POST', `/iaos/${incident.id}/stable`)).status, 200);
    t.match(await page.next(changedFor(incident.id)), { data: { incident_id: incident.id } }, 'the page on the other process hears it');

    // Signing out through this process closes the session's socket on the other one.
    const closed = new Promise<number>((resolve) => page.ws.once('close', (code) => resolve(code)));
    t.equal((await ia.app.inject({ method: 'POST', url: '/api/v1/default/auth/logout', headers: { authorization: `Bearer ${ia.token}` } })).statusCode, 204);
    t.equal(
      await Promise.race([closed, new Promise((r) => setTimeout(() => r('still open after 10 s'), 10_000))]),
      4001,
      "the other process closes the signed-out session's socket",
    );
  },
);
