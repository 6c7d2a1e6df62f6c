import { sql } from 'drizzle-orm';
import t from 'tap';
import { rowsOf, testApp } from '../../helpers.js';
import { drainJobs } from '../../../server/core/jobs/define.js';
import { SocketClient, type Frame } from '../ai/socket-client.js';
import { created } from '../factories.js';

// A standing fuzz of bad input (review F13, F16, F18): list parameters, create/update bodies, path
// ids and socket frames, from a seeded generator (FUZZ_SEED repeats a run). Every answer must be
// below 500, every 4xx in the `{"detail": [...]}` shape, nothing may hang, and a 4xx changes no data.

const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
/** Only a hang detector: an answer this late means the server is stuck, not slow. */
const HANG_MS = 20_000;

function mulberry32(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const shaped = (body: any) =>
  Array.isArray(body?.detail) &&
  body.detail.length > 0 &&
  body.detail.every((d: any) => typeof d?.msg === 'string' && Array.isArray(d.loc) && typeof d.type === 'string');

const within = <T>(p: Promise<T>, what: string) =>
  Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${HANG_MS} ms: ${what}`)), HANG_MS).unref())]);

t.test(`seeded fuzz of list parameters, bodies, path ids and socket frames (FUZZ_SEED=${SEED})`, async (t) => {
  t.comment(`fuzz seed ${SEED} (set FUZZ_SEED to repeat or vary a run)`);
  const random = mulberry32(SEED);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const int = (n: number) => Math.floor(random() * n);

  const { app, request, organization, database, ticket } = await testApp(t);
  const a = await organization('fuzz-a');
  const b = await organization('fuzz-b');
  const seed = async (org: { slug: string; token: string }) => {
    const post = async (path: string, payload: object) => {
      return created(path, await request({ method: 'POST', url: `/api/v1/${org.slug}${path}`, token: org.token, payload }));
    };
    const type = await post('/tag_types', { name: 'Service' });
    const tag = await post('/tags', { name: `${org.slug}-api`, tag_type_id: type.id });
    const project = await post('/projects', { name: 'Ops' });
    const incident = await post('/iaos', { title: 'Down', project_id: project.id, tags: [tag.id] });
    return { type: type.id as number, tag: tag.id as number, project: project.id as number, incident: incident.id as number };
  };
  const ids = { a: await seed(a), b: await seed(b) };

  /** Every row of the tables the cases write to, as one text (B's rows included). */
  const snapshot = async () => {
    const tables = ['tags', 'tag_types', 'projects', 'incidents', 'incident_tags'];
    const parts = await Promise.all(
      tables.map(
        async (table) =>
          rowsOf<{ s: string }>(await database.db.execute(sql.raw(`select coalesce(string_agg(t::text, '|' order by t::text), '') as s from ${table} t`)))[0]!
            .s,
      ),
    );
    return parts.join('\n');
  };

  // Values that have broken servers before, mixed with plain ones.
  const strings = [
    '',
    ' ',
    'a',
    'api',
    'x'.repeat(300),
    'y'.repeat(70_000),
    'a\u0000b',
    '\u0000',
    '%',
    '_',
    '\\',
    'a\\',
    '\\\\\\',
    "'; drop table tags; --",
    '💥',
    '\ud800',
    'null',
    'true',
    '1e309',
    '-0',
  ];
  const numbers = [0, -1, 1, 1.5, 2147483647, 2147483648, -2147483649, 2 ** 53 + 2, 1e308, -1e308, 1e21, Number.MIN_VALUE];
  const dates = [
    '2026-01-31T09:00:00Z',
    '+275760-09-13T00:00:00Z',
    '-271821-04-20T00:00:00Z',
    '0000-01-01T00:00:00Z',
    '9999-12-31T23:59:59Z',
    '10000-01-01T00:00:00Z',
    '2026-13-45',
    'yesterday',
    8.64e15,
    -8.64e15,
  ];
  const protoNames = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'prototype', 'valueOf'];
  const fields = [
    'id',
    'name',
    'count',
    'created_at',
    'discoverable',
    'source',
    'uri',
    'terms',
    'tag_type_id',
    'title',
    'status',
    'reported_at',
    'TagType.name',
    'Tag.name',
    'Tag.id',
    'nope',
    ...protoNames,
  ];
  const ops = [
    '==',
    '!=',
    '>',
    '<',
    '>=',
    '<=',
    'like',
    'ilike',
    'not_ilike',
    'in',
    'not_in',
    'any',
    'not_any',
    'is_null',
    'is_not_null',
    'regex',
    '',
    'constructor',
  ];
  const anyValue = (depth = 0): unknown => {
    switch (int(depth > 2 ? 5 : 8)) {
      case 0:
        return pick(strings);
      case 1:
        return pick(numbers);
      case 2:
        return pick(dates);
      case 3:
        return pick([true, false, null]);
      case 4:
        return pick(protoNames);
      case 5:
        return Array.from({ length: int(4) }, () => anyValue(depth + 1));
      case 6:
        return Object.fromEntries(Array.from({ length: int(3) }, () => [pick([...protoNames, 'a', 'b\u0000']), anyValue(depth + 1)]));
      default:
        return pick([ids.b.tag, ids.b.project, ids.b.type, ids.a.tag]);
    }
  };
  const filterNode = (depth: number): unknown => {
    const r = random();
    if (depth < 10 && r < 0.25) return { [pick(['and', 'or', 'not', 'nor', '__proto__'])]: Array.from({ length: 1 + int(3) }, () => filterNode(depth + 1)) };
    if (r < 0.3) return anyValue(2);
    const leaf: Record<string, unknown> = { field: pick(fields), op: pick(ops), value: anyValue() };
    if (random() < 0.1) leaf.model = pick(['Tag', 'TagType', 'Incident', 'constructor']);
    if (random() < 0.05) leaf[pick(protoNames)] = 1;
    return leaf;
  };
  const filterText = () => {
    const r = random();
    if (r < 0.08) {
      const depth = pick([9, 100, 5000, 8000, 9990]);
      return '['.repeat(depth) + ']'.repeat(depth);
    }
    if (r < 0.12) return pick(['{', '[', 'null', '1', '"x"', '{"and":5}', '[{"field":"name"}]', '\u0000', '{"__proto__":[]}']);
    const tree = random() < 0.5 ? Array.from({ length: 1 + int(3) }, () => filterNode(1)) : filterNode(0);
    return JSON.stringify(tree);
  };

  const listParams = () => {
    const q: Record<string, string> = {};
    const maybe = (name: string, make: () => string) => random() < 0.5 && (q[name] = make());
    maybe('page', () => pick(['0', '-1', '1', '2', '3', '1e3', '1e12', '1.5', 'abc', '', '999999999', '%00', '0x10']));
    maybe('itemsPerPage', () => pick(['-1', '0', '1', '7', '26', '999', '10000', '10001', '1e4', 'NaN', String(int(12000))]));
    maybe('sortBy', () => pick([...fields, 'name,id', '']));
    maybe('descending', () => pick(['true', 'false', '1', 'x']));
    maybe('q', () => pick(strings).slice(0, pick([10, 200, 300])));
    maybe('filter', filterText);
    if (random() < 0.05) q[pick(['unknown', '__proto__', 'constructor'])] = '1';
    return q;
  };

  const bodies: Record<string, { path: string; valid: () => Record<string, unknown>; refs: string[] }> = {
    tags: {
      path: '/tags',
      valid: () => ({ name: `t${int(1e6)}`, tag_type_id: ids.a.type, count: 1, discoverable: true, uri: 'https://x.example', description: 'd' }),
      refs: ['tag_type_id', 'project_id'],
    },
    tag_types: { path: '/tag_types', valid: () => ({ name: `tt${int(1e6)}`, description: 'd', project_id: ids.a.project }), refs: ['project_id'] },
    projects: { path: '/projects', valid: () => ({ name: `p${int(1e6)}`, description: 'd' }), refs: [] },
    iaos: {
      path: '/iaos',
      valid: () => ({ title: 'Fuzz', project_id: ids.a.project, reported_at: '2026-01-31T09:00:00Z', custom_fields: { a: 1 }, tags: [ids.a.tag] }),
      refs: ['project_id', 'tags'],
    },
  };
  const foreignIds: Record<string, unknown> = { tag_type_id: ids.b.type, project_id: ids.b.project, tags: [ids.b.tag] };
  const mutate = (body: Record<string, unknown>, refs: string[]) => {
    for (let n = 1 + int(3); n > 0; n--) {
      const keys = Object.keys(body);
      switch (int(7)) {
        case 0:
          body[pick(keys)] = anyValue();
          break; // a wrong type or value
        case 1:
          body[pick(['unknown', 'organization_id', 'id', '__proto__', 'constructor', 'created_at'])] = anyValue();
          break;
        case 2:
          body[pick(keys)] = pick(['a\u0000b', { 'k\u0000': 1 }, ['\u0000']]);
          break;
        case 3:
          body[pick(keys)] = 'z'.repeat(pick([256, 10_001, 300_000]));
          break;
        case 4:
          body[pick(['reported_at', 'created_at', 'custom_fields'])] = pick([...dates, { d: '\u0000' }]);
          break;
        case 5:
          if (refs.length) {
            const ref = pick(refs);
            body[ref] = foreignIds[ref];
          }
          break;
        default:
          delete body[pick(keys)];
      }
    }
    // What a body still names of B's after all its changes: such a write must be refused.
    const foreign = refs.some((ref) => JSON.stringify(body[ref]) === JSON.stringify(foreignIds[ref]));
    return { body, foreign };
  };
  const badIds = [
    '+1',
    '1e0',
    '0x1',
    '%201',
    '1.0',
    '-1',
    '0',
    '2147483648',
    '99999999999999999999',
    'abc',
    '%00',
    '1%00',
    'constructor',
    '__proto__',
    String(ids.b.tag),
    String(ids.b.incident),
    '1'.repeat(101),
  ];

  const counts = { list: 0, create: 0, update: 0, pathId: 0, socket: 0, fourxx: 0, checkedUnchanged: 0 };
  const failures: string[] = [];
  let current = await snapshot();
  const check = async (what: string, mutating: boolean, send: () => Promise<{ status: number; body: any }>, mustRefuse = false) => {
    let res: { status: number; body: any };
    try {
      res = await within(send(), what);
    } catch (err) {
      failures.push(`${what}: ${(err as Error).message}`);
      return;
    }
    if (res.status >= 500) failures.push(`${what}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
    else if (res.status >= 400) {
      counts.fourxx++;
      if (!shaped(res.body)) failures.push(`${what}: ${res.status} not in the detail shape: ${JSON.stringify(res.body).slice(0, 200)}`);
    } else if (mustRefuse) failures.push(`${what}: ${res.status}, accepted another organization's id`);
    if (mutating) {
      // An accepted incident starts background work that writes to it; it finishes before the next case.
      if (res.status < 400) await drainJobs(app);
      const now = await snapshot();
      if (res.status >= 400) {
        counts.checkedUnchanged++;
        if (now !== current) failures.push(`${what}: ${res.status} but the data changed`);
      }
      current = now;
    }
  };
  const api =
    (method: string, path: string, extra: { query?: Record<string, string>; payload?: unknown } = {}) =>
    () =>
      request({
        method: method as never,
        url: `/api/v1/${a.slug}${path}`,
        token: a.token,
        ...(extra.query ? { query: extra.query } : {}),
        ...(extra.payload !== undefined ? { payload: extra.payload as never } : {}),
      });
  const short = (v: unknown) => JSON.stringify(v).slice(0, 160);

  for (let i = 0; i < 1000; i++) {
    const path = pick(['/tags', '/iaos', '/tag_types', '/projects', '/users']);
    const query = listParams();
    counts.list++;
    await check(`GET ${path} ${short(query)}`, false, api('GET', path, { query }));
  }
  for (let i = 0; i < 700; i++) {
    const name = pick(Object.keys(bodies));
    const def = bodies[name]!;
    const { body, foreign } = mutate(def.valid(), def.refs);
    if (random() < 0.5) {
      counts.create++;
      await check(`POST ${def.path} ${short(body)}`, true, api('POST', def.path, { payload: body }), foreign);
    } else {
      counts.update++;
      const own = name === 'tags' ? ids.a.tag : name === 'iaos' ? ids.a.incident : name === 'projects' ? ids.a.project : ids.a.type;
      await check(
        `PUT ${def.path}/${own} ${short(body)}`,
        true,
        api('PUT', `${def.path}/${own}`, { payload: random() < 0.1 ? pick(['x', 1, null, [], '\u0000']) : body }),
        foreign,
      );
    }
  }
  for (let i = 0; i < 250; i++) {
    const path = pick(['/tags', '/iaos', '/tag_types', '/projects', '/submissions', '/chat_messages']);
    const id = pick(badIds);
    const method = pick(['GET', 'PUT', 'DELETE']);
    const suffix = path === '/chat_messages' ? '/feedback' : '';
    counts.pathId++;
    const foreign = id === String(ids.b.tag) || id === String(ids.b.incident);
    await check(
      `${method} ${path}/${id}${suffix}`,
      method !== 'GET',
      api(
        path === '/chat_messages' ? 'POST' : method,
        `${path}/${id}${suffix}`,
        method === 'PUT' || suffix ? { payload: suffix ? { value: 'like' } : { name: 'renamed' } } : {},
      ),
      foreign && method !== 'GET',
    );
  }

  // Socket frames, on a real socket of A's owner.
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  const client = await SocketClient.open(`ws://127.0.0.1:${port}/api/v1/${a.slug}/ws?ticket=${await ticket(a.token, a.slug)}`);
  t.teardown(() => client.close());
  const types = [
    'fetch_limits',
    'fetch_submissions',
    'fetch_object_content',
    'fetch_liked_messages_processing',
    'text_submission',
    'chat',
    'message_feedback',
    'constructor',
    '__proto__',
    'toString',
    'nope',
    '',
  ];
  const frameData = (type: string): unknown => {
    const data: Record<string, unknown> = {};
    if (random() < 0.7) data.project_id = pick([ids.a.project, ids.b.project, 2147483648, 2 ** 53 + 2, -1, 0, '1', null, 1.5]);
    if (type === 'fetch_object_content')
      Object.assign(data, {
        object_type: pick(['chunk', 'submission', 'x']),
        object_id: pick(['99999999999999999999', 2147483648, 1, '1', '+1', -5, ids.b.tag]),
      });
    if (type === 'text_submission' || type === 'chat') data.text = pick(strings.filter((s) => s.length < 5000));
    if (type === 'message_feedback') Object.assign(data, { message_id: pick([1, 2, 'x', -1]), value: pick(['like', 'dislike', '\u0000']) });
    if (random() < 0.1) data[pick(protoNames)] = anyValue();
    return random() < 0.05 ? pick(['x', 1, null, []]) : data;
  };
  for (let i = 0; i < 120; i++) {
    const type = pick(types);
    const id = `f${i}`;
    const data = frameData(type);
    counts.socket++;
    const what = `socket ${type} ${short(data)}`;
    let reply: Frame;
    try {
      client.send(type, data, id);
      // A frame the server cannot read as {type, id, data} (an empty type) is answered without its id.
      reply = await within(
        client.next((f) => (type === '' ? f.type === 'error' && f.id === undefined : f.id === id)),
        what,
      );
    } catch (err) {
      failures.push(`${what}: ${(err as Error).message}`);
      continue;
    }
    if (reply.type === 'error') {
      if (!shaped(reply.data)) failures.push(`${what}: error frame not in the detail shape`);
      else if (reply.data.detail.some((d: { type: string }) => d.type === 'server_error')) failures.push(`${what}: server_error ${short(reply.data)}`);
    }
  }
  const total = counts.list + counts.create + counts.update + counts.pathId + counts.socket;
  t.comment(
    `fuzz cases: ${total} (lists ${counts.list}, creates ${counts.create}, updates ${counts.update}, path ids ${counts.pathId}, socket frames ${counts.socket}); ${counts.fourxx} HTTP 4xx, ${counts.checkedUnchanged} of them writes checked to change nothing`,
  );
  t.same(failures.slice(0, 20), [], `no 5xx, hang, unshaped 4xx, foreign id accepted or data changed by a 4xx (${failures.length} failures)`);
  t.ok(total >= 2000, `${total} cases`);
});
