import { connect } from 'node:net';
import t from 'tap';
import { testApp } from '../../helpers.js';
import { SocketClient } from '../ai/socket-client.js';

// Review F13, F16, F18: input the database cannot take is a 422 naming the field, every 4xx of the
// HTTP layer is in the `{"detail": [...]}` shape, and path ids are plain digits.

const shaped = (body: any) =>
  Array.isArray(body?.detail) &&
  body.detail.length > 0 &&
  body.detail.every((d: any) => typeof d.msg === 'string' && Array.isArray(d.loc) && typeof d.type === 'string');

async function setup(t: Parameters<typeof testApp>[0]) {
  const ctx = await testApp(t);
  const org = await ctx.organization('bad-input');
  const api = (method: string, path: string, opts: { payload?: unknown; query?: Record<string, string> } = {}) =>
    ctx.request({
      method: method as never,
      url: `/api/v1/${org.slug}${path}`,
      token: org.token,
      ...(opts.payload !== undefined ? { payload: opts.payload as never } : {}),
      ...(opts.query ? { query: opts.query } : {}),
    });
  const type = (await api('POST', '/tag_types', { payload: { name: 'Service' } })).body;
  const tag = (await api('POST', '/tags', { payload: { name: 'api', tag_type_id: type.id } })).body;
  const project = (await api('POST', '/projects', { payload: { name: 'Ops' } })).body;
  const incident = (await api('POST', '/iaos', { payload: { title: 'Down', project_id: project.id } })).body;
  const tagCount = async () => (await api('GET', '/tags')).body.total as number;
  return { ...ctx, org, api, type, tag, project, incident, tagCount };
}

t.test('NUL characters anywhere in a request are a 422 naming the field, and nothing is written', async (t) => {
  const { api, request, org, type, incident, tag, tagCount } = await setup(t);
  const tagBefore = (await api('GET', `/tags/${tag.id}`)).body;
  const cases: [string, Promise<{ status: number; body: any }>, (string | number)[]][] = [
    ['q', api('GET', '/tags', { query: { q: 'a\u0000' } }), ['query', 'q']],
    ['q, escaped in the URL', request({ method: 'GET', url: `/api/v1/${org.slug}/tags?q=a%00`, token: org.token }), ['query', 'q']],
    ['body text', api('POST', '/tags', { payload: { name: 'a\u0000b', tag_type_id: type.id } }), ['body', 'name']],
    ['JSON inside custom_fields', api('PUT', `/iaos/${incident.id}`, { payload: { custom_fields: { a: 'x\u0000y' } } }), ['body', 'custom_fields', 'a']],
    ['a key inside custom_fields', api('PUT', `/iaos/${incident.id}`, { payload: { custom_fields: { 'k\u0000': 1 } } }), ['body', 'custom_fields', 'k\u0000']],
    ['update text', api('PUT', `/tags/${tag.id}`, { payload: { description: '\u0000' } }), ['body', 'description']],
  ];
  for (const [what, pending, loc] of cases) {
    const res = await pending;
    t.same({ status: res.status, loc: res.body.detail?.[0]?.loc, type: res.body.detail?.[0]?.type }, { status: 422, loc, type: 'string_nul' }, what);
  }
  const slug = await request({ method: 'GET', url: '/api/v1/%00/tags' });
  t.same({ status: slug.status, loc: slug.body.detail?.[0]?.loc }, { status: 422, loc: ['path', 'organization'] }, 'an organization slug %00');
  t.equal(await tagCount(), 1, 'no tag was created');
  t.same((await api('GET', `/tags/${tag.id}`)).body, tagBefore, 'the tag is unchanged');
  const filter = await api('GET', '/tags', { query: { filter: JSON.stringify([{ field: 'name', op: '==', value: 'a\u0000b' }]) } });
  t.same(
    { status: filter.status, loc: filter.body.detail?.[0]?.loc },
    { status: 422, loc: ['query', 'filter', 'and', 0, 'value'] },
    'a NUL written as \\u0000 inside the filter JSON',
  );
  const within = await api('GET', '/tags', { query: { filter: JSON.stringify([{ field: 'name', op: 'in', value: ['a', '\u0000'] }]) } });
  t.same({ status: within.status, loc: within.body.detail?.[0]?.loc }, { status: 422, loc: ['query', 'filter', 'and', 0, 'value'] }, 'a NUL inside an in-list');
});

t.test('filters the database would refuse are 422 from the filter compiler', async (t) => {
  const { api } = await setup(t);
  const list = (query: Record<string, string>) => api('GET', '/tags', { query });
  const filter = (...leaves: object[]) => ({ filter: JSON.stringify(leaves) });
  const expect = async (what: string, query: Record<string, string>, loc: (string | number)[]) => {
    const res = await list(query);
    t.same({ status: res.status, loc: res.body.detail?.[0]?.loc, shaped: shaped(res.body) }, { status: 422, loc, shaped: true }, what);
  };
  await expect('like on a number', filter({ field: 'id', op: 'like', value: '1%' }), ['query', 'filter', 'and', 0, 'op']);
  await expect('ilike on a date', filter({ field: 'created_at', op: 'ilike', value: '2026%' }), ['query', 'filter', 'and', 0, 'op']);
  await expect('ilike on a boolean', filter({ field: 'discoverable', op: 'ilike', value: 't%' }), ['query', 'filter', 'and', 0, 'op']);
  await expect('a pattern ending in a backslash', filter({ field: 'name', op: 'like', value: 'a\\' }), ['query', 'filter', 'and', 0, 'value']);
  await expect('a pattern ending in three backslashes', filter({ field: 'name', op: 'ilike', value: '\\\\\\' }), ['query', 'filter', 'and', 0, 'value']);
  t.equal((await list(filter({ field: 'name', op: 'like', value: 'a\\\\' }))).status, 200, 'an escaped backslash at the end is a pattern');
  await expect('a date past year 9999', filter({ field: 'created_at', op: '>', value: '+275760-09-13T00:00:00Z' }), ['query', 'filter', 'and', 0, 'value']);
  await expect('a date before year 1', filter({ field: 'created_at', op: '<', value: '-271821-04-20T00:00:00Z' }), ['query', 'filter', 'and', 0, 'value']);
  for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
    await expect(`filter field ${name}`, filter({ field: name, op: '==', value: 1 }), ['query', 'filter', 'and', 0, 'field']);
    await expect(`sortBy ${name}`, { sortBy: name }, ['query', 'sortBy', 0]);
  }
  const deep = '['.repeat(8000) + ']'.repeat(8000);
  const res = await list({ filter: deep });
  t.same({ status: res.status, shaped: shaped(res.body) }, { status: 422, shaped: true }, 'a filter nested 8,000 deep');
  await expect('a page past the last reachable one', { page: '1e12' }, ['querystring', 'page']);
});

t.test('dates beyond years 1 to 9999 in bodies and since= are refused at validation', async (t) => {
  const { api, project } = await setup(t);
  const created = await api('POST', '/iaos', { payload: { title: 'Old', project_id: project.id, reported_at: '-271821-04-20T00:00:00Z' } });
  t.same({ status: created.status, loc: created.body.detail?.[0]?.loc }, { status: 422, loc: ['body', 'reported_at'] }, 'reported_at in year -271821');
  const far = await api('POST', '/iaos', { payload: { title: 'Far', project_id: project.id, reported_at: 8.64e15 } });
  t.same({ status: far.status, loc: far.body.detail?.[0]?.loc }, { status: 422, loc: ['body', 'reported_at'] }, 'reported_at in year 275760');
  const since = await api('GET', '/iaos/metric/summary', { query: { since: '-271821-04-20' } });
  t.same({ status: since.status, loc: since.body.detail?.[0]?.loc }, { status: 422, loc: ['querystring', 'since'] }, 'since=-271821-04-20');
  t.equal((await api('GET', '/iaos')).body.total, 1, 'no incident was created');
});

t.test('path ids are plain decimal digits; +1, 1e3, 0x10 and " 1" are 422 and delete nothing', async (t) => {
  const { api, tag, tagCount } = await setup(t);
  t.equal(tag.id, 1);
  for (const id of ['+1', '1e0', '0x1', '%201', '1.0', '-1', '0', '2147483648', '99999999999999999999']) {
    const res = await api('DELETE', `/tags/${id}`);
    t.same({ status: res.status, shaped: shaped(res.body) }, { status: 422, shaped: true }, `DELETE /tags/${id}`);
  }
  for (const path of ['/iaos/+1', '/chat_messages/1e0/feedback']) {
    const res = await api(path.includes('feedback') ? 'POST' : 'GET', path, path.includes('feedback') ? { payload: { value: 'like' } } : {});
    t.same({ status: res.status, loc: res.body.detail?.[0]?.loc?.slice(0, 2) }, { status: 422, loc: ['params', 'id'] }, path);
  }
  t.equal(await tagCount(), 1, 'the tag is still there');
  t.equal((await api('GET', '/tags/1')).status, 200, 'the plain id still works');
});

t.test('the HTTP layer answers 431, 414 and 400 in the API shape, and a long encoded filter fits', async (t) => {
  const { app, org, api } = await setup(t);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  const raw = (text: string) =>
    new Promise<{ status: number; body: any }>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(text));
      let data = '';
      socket.on('data', (d) => (data += d));
      socket.on('error', reject);
      socket.on('close', () => {
        const [head, ...rest] = data.split('\r\n\r\n');
        let body: unknown = rest.join('\r\n\r\n');
        try {
          body = JSON.parse(body as string);
        } catch {
          /* left as text */
        }
        resolve({ status: Number(head!.split(' ')[1]), body });
      });
    });
  const huge = await raw(`GET /api/v1/${org.slug}/tags?q=${'a'.repeat(120_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
  t.same({ status: huge.status, shaped: shaped(huge.body) }, { status: 431, shaped: true }, 'a URL over the header limit');
  const badLength = await raw(`POST /api/v1/${org.slug}/tags HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: abc\r\n\r\n{}`);
  t.same({ status: badLength.status, shaped: shaped(badLength.body) }, { status: 400, shaped: true }, 'a Content-Length that is not a number');
  const longId = await api('GET', `/tags/${'1'.repeat(150)}`);
  t.same({ status: longId.status, shaped: shaped(longId.body) }, { status: 414, shaped: true }, 'an id over the router limit');
  const badUrl = await raw(`GET /api/v1/${org.slug}/tags/%E0%A4%A HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
  t.same({ status: badUrl.status, shaped: shaped(badUrl.body) }, { status: 400, shaped: true }, 'a broken percent-encoding');

  // The documented 20,000-character filter, every character percent-encoded (about 60 KB of URL).
  const leaf = JSON.stringify({ field: 'name', op: '==', value: 'x' });
  const leaves = Array.from({ length: 100 }, () => leaf);
  let filter = JSON.stringify({ or: leaves.map((l) => JSON.parse(l)) });
  filter = filter.replace(/"x"/, `"${'x'.repeat(20_000 - filter.length + 1)}"`);
  t.equal(filter.length, 20_000);
  const encoded = [...filter].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/${org.slug}/tags?filter=${encoded}`, { headers: { authorization: `Bearer ${org.token}` } });
  t.equal(res.status, 200, `a fully encoded 20,000-character filter (${encoded.length} characters of URL) is read`);
});

t.test('socket ids at or past 2^31 are refused by the frame schemas, not by the database', async (t) => {
  const { app, org, project, ticket } = await setup(t);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  const client = await SocketClient.open(`ws://127.0.0.1:${port}/api/v1/${org.slug}/ws?ticket=${await ticket(org.token, org.slug)}`);
  t.teardown(() => client.close());
  const reply = async (type: string, data: unknown, replyType: string) => (await client.request(type, data, replyType)).data;
  const big = await reply('fetch_submissions', { project_id: 2147483648 }, 'submissions');
  t.same({ type: big.detail?.[0]?.type, loc: big.detail?.[0]?.loc }, { type: 'too_big', loc: ['data', 'project_id'] }, 'project_id 2^31');
  const object = await reply('fetch_object_content', { object_type: 'chunk', object_id: '99999999999999999999' }, 'object_content');
  t.same(object.detail?.[0]?.loc, ['data', 'object_id'], 'object_id of 20 digits');
  const text = await reply('text_submission', { project_id: project.id, text: 'a\u0000b' }, 'submit_text_response');
  t.match(text, { status: 'error', message: /NUL/ }, 'a text with NUL is refused as a submission error');
  const chat = await reply('chat', { project_id: project.id, text: 'why\u0000' }, 'chat_done');
  t.same(chat.detail?.[0]?.loc, ['data', 'text'], 'a chat text with NUL');
  const fine = await reply('fetch_submissions', { project_id: project.id }, 'submissions');
  t.same(fine.items, [], 'the socket still answers');
});

t.test('PostgreSQL input errors a check missed are 422 without the SQL', async (t) => {
  const Fastify = (await import('fastify')).default;
  const { registerErrorHandling } = await import('../../../server/core/errors.js');
  const app = Fastify({ logger: false });
  registerErrorHandling(app);
  app.get('/fail/:code', async (req) => {
    // As drizzle wraps a driver error: the query in the message, PostgreSQL's code on the cause.
    throw Object.assign(new Error('Failed query: select * from tags where name = $1'), {
      cause: Object.assign(new Error('pg says no'), { code: (req.params as { code: string }).code }),
    });
  });
  t.teardown(() => app.close());
  for (const code of ['22021', '22P05', '22009', '22003', '22025', '42883', '22008', '22007']) {
    const res = await app.inject({ url: `/fail/${code}` });
    t.same({ status: res.statusCode, shaped: shaped(res.json()), sql: /select|tags/i.test(res.body) }, { status: 422, shaped: true, sql: false }, code);
  }
  t.equal((await app.inject({ url: '/fail/XX000' })).statusCode, 500, 'any other database error is still a 500');
});

t.test('the feedback summary takes a plain project id too', async (t) => {
  const { api, project } = await setup(t);
  t.equal((await api('GET', `/feedback/summarize/+${project.id}`)).status, 422, '+1');
  t.not((await api('GET', `/feedback/summarize/${project.id}`)).status, 422, 'the plain id is read');
});
