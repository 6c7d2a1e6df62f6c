import { sql } from 'drizzle-orm';
import t from 'tap';
import { drainJobs } from '../../../server/core/jobs/define.js';
import { rowsOf, testApp } from '../../helpers.js';
import { factoriesFor } from '../factories.js';

// Every route of the OpenAPI document with an {organization} and an id in its path, tried by
// organization A's owner with organization B's ids (in A) and in B itself: each answer must be 403,
// 404 or 422, and B's rows stay as they were. Routes come from GET /api/v1/docs/json, so a new
// route is walked without a new test. Path parameters that are credentials ({key}) are not ids.

const ALLOWED = new Set([403, 404, 422]);
const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

t.test('organization A cannot reach B through any route with an id (walked from the OpenAPI document)', async (t) => {
  const { request, organization, database, app } = await testApp(t);
  const b = await organization('walk-b');
  const a = await organization('walk-a');
  const asB = (method: string, path: string, payload?: object) =>
    request({ method: method as never, url: `/api/v1/${b.slug}${path}`, token: b.token, ...(payload ? { payload } : {}) });
  const post = factoriesFor(asB).makeId;
  const type = await post('/tag_types', { name: 'Service' });
  const tag = await post('/tags', { name: 'b-api', tag_type_id: type, description: 'BRAVOSECRET' });
  const project = await post('/projects', { name: 'B ops' });
  const incident = await post('/iaos', { title: 'BRAVOSECRET outage', project_id: project, tags: [tag] });
  await post(`/iaos/${incident}/comments/add`, { text: 'BRAVOSECRET comment' });
  await drainJobs(app);

  /** Every row B has in every table with an organization_id, as one text. */
  const tables = rowsOf<{ table_name: string }>(
    await database.db.execute(
      sql`select table_name from information_schema.columns where table_schema = 'public' and column_name = 'organization_id' order by table_name`,
    ),
  ).map((r) => r.table_name);
  const snapshot = async () => {
    const parts: string[] = [];
    for (const table of tables) {
      const [row] = rowsOf<{ s: string }>(
        await database.db.execute(
          sql.raw(`select coalesce(string_agg(t::text, '|' order by t::text), '') as s from "${table}" t where organization_id = ${b.id}`),
        ),
      );
      parts.push(`${table}: ${row!.s}`);
    }
    return parts.join('\n');
  };

  const doc = (await request({ method: 'GET', url: '/api/v1/docs/json' })).body as { paths: Record<string, Record<string, unknown>> };
  const routes = Object.entries(doc.paths).flatMap(([path, ops]) => {
    const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!).filter((p) => p !== 'organization');
    if (!path.includes('{organization}') || params.includes('key') || !params.some((p) => /^id\d*$|Id$/.test(p))) return [];
    return Object.keys(ops)
      .filter((m) => METHODS.includes(m))
      .map((method) => ({ method: method.toUpperCase(), path: path.replace('/api/v1/{organization}', ''), params }));
  });

  /** B's ids for a route: the records B's list at the path's prefix holds, else B's incident, project and tag. */
  const listed = new Map<string, number[]>();
  const idsOf = async (prefix: string, token: string, slug: string) => {
    const key = `${slug}${prefix}`;
    if (!listed.has(key)) {
      const res = await request({ method: 'GET', url: `/api/v1/${slug}${prefix}`, token, query: { itemsPerPage: '100' } });
      listed.set(
        key,
        res.status === 200 && Array.isArray(res.body?.items)
          ? res.body.items.map((i: { id: number }) => i.id).filter((id: unknown) => typeof id === 'number')
          : [],
      );
    }
    return listed.get(key)!;
  };
  const fill = (path: string, values: Record<string, string>) => path.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? '1');

  const before = await snapshot();
  const failures: string[] = [];
  const counts = { routes: routes.length, inA: 0, inB: 0, ownIdSkipped: 0 };
  for (const route of routes) {
    const prefix = route.path.slice(0, route.path.indexOf('/{'));
    const fromList = (await idsOf(prefix, b.token, b.slug)).filter((id) => id !== b.id);
    const candidates = fromList.length ? fromList.slice(0, 3) : [incident, project, tag];
    const aOwn = new Set(await idsOf(prefix, a.token, a.slug));
    for (const id of candidates) {
      const values: Record<string, string> = { model: 'Incident', type: 'tactical' };
      for (const p of route.params) if (!(p in values)) values[p] = String(p === 'projectId' ? project : id);
      if (route.path.startsWith('/organizations/')) values.id = String(b.id);
      const path = fill(route.path, values);
      const payload = route.method === 'GET' || route.method === 'DELETE' ? undefined : {};
      for (const [slug, where] of [
        [a.slug, 'inA'],
        [b.slug, 'inB'],
      ] as const) {
        if (where === 'inA' && aOwn.has(id) && !fromList.includes(id)) {
          counts.ownIdSkipped++;
          continue;
        }
        counts[where]++;
        const res = await request({ method: route.method as never, url: `/api/v1/${slug}${path}`, token: a.token, ...(payload ? { payload } : {}) });
        // A route open to anonymous callers (curated content engagements) takes a non-member's token
        // for no credentials in B: 401 there is a refusal too.
        // A workflow engine's callback and a ticket system's webhook are authenticated by their signature or
        // secret, and Opsgenie's routes by an ingest key (GenieKey), not the caller's token: 401 too.
        const refused =
          ALLOWED.has(res.status) ||
          (res.status === 401 && (where === 'inB' || /\/(callback|webhook)$/.test(route.path) || route.path.startsWith('/signals/opsgenie/')));
        if (!refused) failures.push(`${route.method} /${slug}${path}: ${res.status} ${JSON.stringify(res.body).slice(0, 160)}`);
      }
    }
  }
  await drainJobs(app);
  const after = await snapshot();
  t.comment(
    `cross-organization walk: ${counts.routes} routes (method and path) from the OpenAPI document, ${counts.inA} requests with B's ids in A, ${counts.inB} in B's organization, ${counts.ownIdSkipped} skipped (the id is also one of A's own)`,
  );
  t.same(failures, [], 'every answer is 403, 404 or 422');
  t.equal(after, before, `B's rows in ${tables.length} tables are unchanged`);
  t.ok(counts.routes > 100, 'the walk found the routes');
});
