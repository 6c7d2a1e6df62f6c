import type { AddressInfo } from 'node:net';
import t from 'tap';
import { testApp } from '../../helpers.js';
import { SocketClient } from './socket-client.js';

const NO_SESSION = 'No authentication or temporary session found';

t.test('anonymous sessions: trending, projects and a public chat; everything else refused', async (t) => {
  const { app, request, login, organization, ticket } = await testApp(t, { JOB_POLL_SECONDS: '0.5' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const wsBase = `ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1/default/ws`;
  const token = await login('owner@example.com');

  const session = await request({ method: 'POST', url: '/api/v1/default/auth/anonymous' });
  t.equal(session.status, 201);
  t.match(session.body, { key: /^fwanon_/, anonymous: true, organization_slug: 'default' });
  const key = session.body.key as string;
  t.match((await request({ method: 'GET', url: `/api/v1/default/auth/anonymous/me/${key}` })).body, { anonymous: true, projects: [] });

  for (const url of [
    `/api/v1/default/auth/anonymous/me/fwanon_nope`,
    `/api/v1/default/projects/anonymous/fwanon_nope`,
    `/api/v1/default/curated_content/anonymous/trending/nope`,
  ]) {
    const res = await request({ method: 'GET', url });
    t.match(res, { status: 401, body: { detail: [{ msg: NO_SESSION }] } }, `${url.split('/').slice(4, 6).join('/')} refuses a bad key`);
  }
  const other = await organization('acme');
  t.equal((await request({ method: 'GET', url: `/api/v1/acme/auth/anonymous/me/${key}` })).status, 401, 'a key works only in its own organization');
  t.ok(other.id);
  t.equal(
    (await request({ method: 'GET', url: '/api/v1/default/projects', headers: { authorization: `Bearer ${key}` } })).status,
    401,
    'an anonymous key opens no other call',
  );

  t.match(
    (await request({ method: 'GET', url: `/api/v1/default/organizations/anonymous/${key}` })).body,
    { total: 1, items: [{ slug: 'default' }] },
    "a visitor's organization list is its own",
  );

  // Projects
  const created = await request({ method: 'POST', url: `/api/v1/default/projects/anonymous/${key}`, payload: { name: 'Visitor notes' } });
  t.match(created, { status: 201, body: { id: Number, name: 'Visitor notes' } });
  t.equal(
    (await request({ method: 'POST', url: `/api/v1/default/projects/anonymous/${key}`, payload: { name: '' } })).body.detail[0].msg,
    'This field is required',
  );
  t.equal(
    (await request({ method: 'POST', url: `/api/v1/default/projects/anonymous/${key}`, payload: { name: 'x', owner_email: 'a@b.c' } })).status,
    422,
    'unknown fields are refused',
  );
  t.match((await request({ method: 'GET', url: `/api/v1/default/projects/anonymous/user/${key}` })).body, { total: 1, items: [{ name: 'Visitor notes' }] });
  const key2 = (await request({ method: 'POST', url: '/api/v1/default/auth/anonymous' })).body.key;
  t.match((await request({ method: 'GET', url: `/api/v1/default/projects/anonymous/user/${key2}` })).body, { total: 0 }, 'another visitor does not see them');

  // Public material in a members' project: visible to visitors' chat; internal material is not.
  const ops = (await request({ method: 'POST', url: '/api/v1/default/projects', token, payload: { name: 'Ops' } })).body;
  const member = await SocketClient.open(`${wsBase}?ticket=${await ticket(token)}`);
  t.teardown(() => member.close());
  for (const [text, level] of [
    ['Our status page lives at status.example.com and is updated every 15 minutes during an outage.', 'public'],
    ['The outage bridge PIN is 99871, internal only.', 'internal'],
  ] as const) {
    const up = await member.request('text_submission', { text, project_id: ops.id, sensitivityLevel: level }, 'submit_text_response');
    await member.next((f) => f.type === 'submission_status' && f.data.submission_id === up.data.submission_id && f.data.status === 'indexed');
  }
  const listed = await request({ method: 'GET', url: `/api/v1/default/projects/anonymous/${key}` });
  t.same(
    listed.body.items.map((p: { name: string }) => p.name).sort(),
    ['Ops', 'Visitor notes'],
    'visitors may chat in projects with public material and their own',
  );

  // The landing page's counter: questions asked on the public page today, everyone's together.
  const askedToday = async () => (await request({ method: 'GET', url: `/api/v1/default/curated_content/anonymous/trending/${key2}` })).body.asked_today;
  t.equal(await askedToday(), 0, 'nothing asked yet today');
  const visitor = await SocketClient.open(`${wsBase}?key=${key}`);
  t.teardown(() => visitor.close());
  t.match((await visitor.request('fetch_limits', {}, 'limits')).data, { plan: 'anonymous' });
  const answer = await visitor.request('chat', { project_id: ops.id, text: 'Where is the status page during an outage?' }, 'chat_done');
  t.match(answer.data, { answer: /status\.example\.com.*\[1\]/s, sources: [{ n: 1 }] }, 'a visitor gets a cited answer from public material');
  t.notMatch(answer.data.answer, /99871/, 'internal material stays hidden');
  t.equal(answer.data.sources.length, 1);
  const pin = await visitor.request('chat', { project_id: ops.id, text: 'outage bridge PIN' }, 'chat_done');
  t.notMatch(JSON.stringify(pin.data), /99871/);
  t.equal(await askedToday(), 2, "the counter shows the visitor's two questions, to another visitor too");
  t.match(
    (await visitor.request('fetch_submissions', { project_id: ops.id }, 'submissions')).data.detail[0].msg,
    /could not be found/,
    "visitors cannot list members' submissions",
  );
  const own = await visitor.request('text_submission', { text: 'My own visitor note about the pelican.', project_id: created.body.id }, 'submit_text_response');
  t.match(own.data, { status: 'success' }, 'visitors may upload into their own projects');
  t.match((await request({ method: 'GET', url: `/api/v1/default/chats/${answer.data.chat_id}`, token })).status, 404, "a member cannot open a visitor's chat");

  // Curated content: Admins manage items; trending ranks by recent engagement.
  const a = await request({
    method: 'POST',
    url: '/api/v1/default/curated_content',
    token,
    payload: { text: 'Postmortem culture', link: 'https://example.com/a' },
  });
  const b = await request({ method: 'POST', url: '/api/v1/default/curated_content', token, payload: { text: 'On-call health' } });
  await request({ method: 'POST', url: '/api/v1/default/curated_content', token, payload: { text: 'Elsewhere', platform: 'twitter' } });
  t.equal(a.status, 201);
  t.equal(a.body.platform, 'linkedin', 'platform defaults to linkedin');
  const memberToken = await login('member@example.com', { role: 'Member' });
  t.equal(
    (await request({ method: 'POST', url: '/api/v1/default/curated_content', token: memberToken, payload: { text: 'x' } })).status,
    403,
    'members cannot manage curated content',
  );
  for (let i = 0; i < 3; i++)
    t.equal(
      (await request({ method: 'POST', url: `/api/v1/default/curated_content/${b.body.id}/engagements?key=${key}`, payload: { kind: 'click' } })).status,
      204,
    );
  await request({ method: 'POST', url: `/api/v1/default/curated_content/${a.body.id}/engagements`, token, payload: {} });
  t.equal((await request({ method: 'POST', url: `/api/v1/default/curated_content/${a.body.id}/engagements`, payload: {} })).body.detail[0].msg, NO_SESSION);
  const trend = await request({ method: 'GET', url: `/api/v1/default/curated_content/anonymous/trending/${key}` });
  t.same(
    trend.body.items.map((i: { text: string }) => i.text),
    ['On-call health', 'Postmortem culture'],
    'most engaged first, other platforms left out',
  );
  const trendMember = await request({ method: 'GET', url: '/api/v1/default/curated_content/trending?platform=twitter', token: memberToken });
  t.same(
    trendMember.body.items.map((i: { text: string }) => i.text),
    ['Elsewhere'],
  );
  t.equal((await request({ method: 'GET', url: '/api/v1/default/curated_content/trending' })).status, 401, 'trending needs a token or a key');
});
