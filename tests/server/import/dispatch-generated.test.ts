import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import type postgres from 'postgres';
import tap, { type Test } from 'tap';
import { generateDispatch, GENERATED_ORGS, type GenerateOptions } from '../../../bench/lib/generate-dispatch.js';
import { openDatabase, rowsOf, type Db } from '../../../server/core/db/client.js';
import { CHUNK } from '../../../server/import/dispatch/engine.js';
import { roleOf } from '../../../server/import/dispatch/roles.js';
import { importDispatch } from '../../../server/import/dispatch/run.js';
import { loadSecretKeys } from '../../../server/plugins/secrets.js';
import { freshDatabase, spawnedServerDatabase, testApp } from '../../helpers.js';
import { dispatchSource } from './dispatch-source.js';

// The Dispatch source is always PostgreSQL; Firewatch (DATABASE_URL) is PostgreSQL or, unset, PGlite.
const base = process.env.DISPATCH_SOURCE_URL || process.env.DATABASE_URL;
const skip = base ? false : 'the Dispatch source is a PostgreSQL database: set DISPATCH_SOURCE_URL or DATABASE_URL to run these tests';
const SECRETS = 'test-secrets-key-test-secrets-key-42';

const generated = (t: Test, counts: GenerateOptions) => dispatchSource(t, base!, (raw) => generateDispatch(raw, counts));

async function run(db: Db, src: postgres.Sql) {
  await loadSecretKeys(db, SECRETS);
  return importDispatch(db, src, { dryRun: false, signalsDays: 30, trialDays: 14 });
}

/** Per kind: the rows Dispatch holds in one organization's schema, and the Firewatch table they land in. */
const KINDS: [string, string, string][] = [
  ['incident', 'incidents', 'select count(*)::int as n from {s}incident'],
  ['incident_participant', 'incident_participants', 'select count(*)::int as n from {s}participant where incident_id is not null'],
  [
    'incident_participant_role',
    'incident_roles',
    'select count(*)::int as n from {s}participant_role r join {s}participant p on p.id = r.participant_id where p.incident_id is not null',
  ],
  ['event', 'events', 'select count(*)::int as n from {s}event where incident_id is not null or case_id is not null'],
  ['task', 'tasks', 'select count(*)::int as n from {s}task'],
  ['case', 'cases', 'select count(*)::int as n from {s}"case"'],
  ['case_participant', 'case_participants', 'select count(*)::int as n from {s}participant where case_id is not null'],
];

const one = async <T>(db: Db, query: string) => rowsOf<T>(await db.execute(sql.raw(query)))[0]!;

/** Per organization and kind: `source` rows in Dispatch, `target` rows in Firewatch. */
async function counts(db: Db, raw: postgres.Sql) {
  const out: Record<string, { source: number; target: number }> = {};
  for (const org of GENERATED_ORGS) {
    const { id } = await one<{ id: number }>(db, `select id from organizations where slug = '${org.slug}'`);
    for (const [kind, table, query] of KINDS) {
      const [source] = await raw.unsafe(query.replaceAll('{s}', `${org.schema}.`));
      const target = await one<{ n: number }>(db, `select count(*)::int as n from ${table} where organization_id = ${id}`);
      out[`${org.slug} ${kind}`] = { source: source!.n as number, target: target.n };
    }
  }
  return out;
}

const iso = (column: string) => `to_char(${column}, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The e-mail address of the participant in `column`, as Firewatch keeps it. */
const emailOf = (schema: string, column: string) =>
  `(select lower(c.email) from ${schema}.participant p join ${schema}.individual_contact c on c.id = p.individual_contact_id where p.id = ${column})`;

/** A setting's name, as Firewatch's API answers it (`incident_type_name`, …). */
const named = (schema: string, table: string, column: string) => `(select name from ${schema}.${table} where id = ${column}) as ${table}_name`;

/** What Dispatch says of an incident, in the words of Firewatch's API: its fields, and its people with their roles. */
async function sourceIncident(raw: postgres.Sql, schema: string, id: number) {
  const [row] = await raw.unsafe(
    `select i.name, i.title, i.description, i.status, i.visibility, ${iso('i.reported_at')} as reported_at, ${iso('i.stable_at')} as stable_at,
      ${iso('i.closed_at')} as closed_at, ${named(schema, 'incident_type', 'i.incident_type_id')}, ${named(schema, 'incident_priority', 'i.incident_priority_id')},
      ${named(schema, 'incident_severity', 'i.incident_severity_id')}, ${emailOf(schema, 'i.commander_id')} as commander_email,
      ${emailOf(schema, 'i.reporter_id')} as reporter_email
    from ${schema}.incident i where i.id = ${id}`,
  );
  const roles = await raw.unsafe(`select lower(c.email) as email, r.role, r.renounced_at is null as active from ${schema}.participant p
    join ${schema}.individual_contact c on c.id = p.individual_contact_id join ${schema}.participant_role r on r.participant_id = p.id where p.incident_id = ${id}`);
  const people = roles.map((r) => `${r.email as string} ${roleOf(r.role)}:${r.active ? 'Active' : 'Inactive'}`).sort();
  return { record: row!, people };
}

async function sourceCase(raw: postgres.Sql, schema: string, id: number) {
  const [row] = await raw.unsafe(
    `select k.name, k.title, k.description, k.status, k.visibility, k.resolution_reason, ${iso('k.reported_at')} as reported_at,
      ${iso('k.triage_at')} as triage_at, ${iso('k.escalated_at')} as escalated_at, ${iso('k.closed_at')} as closed_at,
      ${named(schema, 'case_type', 'k.case_type_id')}, ${named(schema, 'case_priority', 'k.case_priority_id')}, ${named(schema, 'case_severity', 'k.case_severity_id')},
      ${emailOf(schema, 'k.assignee_id')} as assignee_email, ${emailOf(schema, 'k.reporter_id')} as reporter_email
    from ${schema}."case" k where k.id = ${id}`,
  );
  return row!;
}

tap.test('a generated Dispatch database: counts match per kind, and sampled records match field by field', { skip }, async (t) => {
  const app = await testApp(t);
  const { src, raw } = await generated(t, { incidents: 24, eventsPerIncident: 3, cases: 15 });
  const report = await run(app.database.db, src);
  t.same(report.skipped, [], 'every generated record maps');
  const all = await counts(app.database.db, raw);
  for (const [kind, { source, target }] of Object.entries(all)) t.equal(target, source, `${kind}: ${source} in Dispatch`);
  t.ok(all['acme incident']!.target > 0 && all['default event']!.target > all['default incident']!.target, 'both organizations hold records');

  // Incidents 4 (once had a scribe), 5 (restricted, closed) and 6 (active) of `default`, 3 of `acme`.
  for (const [org, id] of [
    ['default', 4],
    ['default', 5],
    ['default', 6],
    ['acme', 3],
  ] as const) {
    const schema = GENERATED_ORGS.find((o) => o.slug === org)!.schema;
    const { record, people } = await sourceIncident(raw, schema, id);
    const token = await app.login('auditor@example.com', { org, role: 'Admin' });
    const res = await app.request({ method: 'GET', url: `/api/v1/${org}/iaos/${record.name as string}`, token });
    t.equal(res.status, 200, `${org} incident ${id} reads`);
    t.match(res.body, record, `${org} incident ${id}: its fields`);
    const seen = res.body.participants.flatMap((p: { email: string; roles: { role: string; status: string }[] }) =>
      p.roles.map((r) => `${p.email} ${r.role}:${r.status}`),
    );
    t.same(seen.sort(), people, `${org} incident ${id}: its people and roles`);
  }
  for (const [org, id] of [
    ['default', 3],
    ['default', 4],
    ['default', 5],
  ] as const) {
    const schema = GENERATED_ORGS.find((o) => o.slug === org)!.schema;
    const record = await sourceCase(raw, schema, id);
    const { id: target } = await one<{ id: number }>(app.database.db, `select id from cases where name = '${record.name as string}'`);
    const token = await app.login('auditor@example.com', { org, role: 'Admin' });
    const res = await app.request({ method: 'GET', url: `/api/v1/${org}/cases/${target}`, token });
    t.equal(res.status, 200, `${org} case ${id} reads`);
    t.match(res.body, record, `${org} case ${id}: its fields (${String(record.status)}, ${String(record.visibility)})`);
  }
});

/** Everything the import wrote, keyed by Dispatch's names rather than Firewatch's ids (which differ between databases). */
async function contents(db: Db) {
  const q = async (query: string) => rowsOf(await db.execute(sql.raw(query))).map((r) => JSON.stringify(r));
  return {
    incidents: await q(`select name, title, status, visibility, reported_at::text, closed_at::text from incidents order by name`),
    people: await q(`select i.name, p.email, r.role, r.renounced_at::text from incident_roles r join incident_participants p on p.id = r.participant_id
      join incidents i on i.id = r.incident_id order by 1, 2, 3, 4`),
    events: await q(`select coalesce(i.name, c.name) as parent, e.started_at::text, e.description from events e left join incidents i on i.id = e.incident_id
      left join cases c on c.id = e.case_id order by 1, 2, 3`),
    tasks: await q(`select i.name, t.description, t.status, t.assignees from tasks t join incidents i on i.id = t.incident_id order by 1, 2`),
    cases: await q(
      `select c.name, c.status, c.visibility, c.assignee_email, i.name as incident from cases c left join incidents i on i.id = c.incident_id order by 1`,
    ),
  };
}

/** Runs the CLI into the Firewatch database `target` names (env); `stopWhen` (on its progress output) kills it with SIGKILL. Answers its exit code and signal. */
function cli(target: Record<string, string>, from: string, stopWhen?: RegExp) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, '..', '..', '..', 'server', 'import', 'dispatch', 'cli.ts'), '--from', from],
    {
      env: { ...process.env, ...target, SECRETS_KEY: SECRETS },
      cwd: join(import.meta.dirname, '..', '..', '..'),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    if (stopWhen?.test(output) && child.exitCode === null) child.kill('SIGKILL');
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  return new Promise<{ code: number | null; signal: string | null; output: string }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, output })),
  );
}

/** Opens the database the CLI writes (a PostgreSQL URL, or the embedded data folder while no CLI has it open) for the test to read. */
const opened = (target: Record<string, string>) => openDatabase({ url: target.DATABASE_URL || undefined, dataDir: target.DATA_DIR ?? '', max: 1 });

// The CLI writes into the configured Firewatch database: a PostgreSQL one by URL, or the embedded one
// in DATA_DIR, which a SIGKILL stops mid-commit like a power cut.
tap.test('a run killed midway and started again ends as one clean run does', { skip }, async (t) => {
  const { src, url: from } = await generated(t, { incidents: 900, eventsPerIncident: 2, cases: 30 });
  const dir = mkdtempSync(join(tmpdir(), 'fw-import-kill-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const target = await spawnedServerDatabase(t, dir);
  // The first chunk of incidents (CHUNK of them) is committed once its progress is printed.
  const first = await cli(target, from, new RegExp(`default incident: ${CHUNK}/600`));
  t.equal(first.signal, 'SIGKILL', 'the first run was killed');
  const partial = await opened(target);
  const { n } = await one<{ n: number }>(partial.db, 'select count(*)::int as n from incidents');
  await partial.close();
  t.ok(n >= CHUNK && n < 900, `it had committed part of the incidents (${n} of 900)`);
  const second = await cli(target, from);
  t.equal(second.code, 0, `the second run finishes: ${second.output.slice(-300)}`);

  const killed = await opened(target);
  t.teardown(() => killed.close());
  const clean = await freshDatabase(t);
  await run(clean.database.db, src);
  const [after, expected] = [await contents(killed.db), await contents(clean.database.db)];
  t.equal(after.incidents.length, 900);
  t.equal(after.events.length, 900 * 2 + 30);
  for (const part of Object.keys(expected) as (keyof typeof expected)[]) t.same(after[part], expected[part], `the same ${part}`);
});
