/**
 * Where PostgreSQL's time goes in the chunk insert (bench/README.md, `ingest`): the backend's CPU,
 * from /proc, of variants of the indexing job's statement over the 4 MB file's chunks in the job's
 * batches (parsing the rows alone, to_tsvector alone, the insert without the lexeme counts, without
 * the GIN index or the foreign key, the job's statement). Each variant runs in a transaction that is
 * rolled back (COMMIT=1: one per batch, as the job, cleaned up after), RUNS times (2).
 *
 *   npx tsx bench/lib/ingest-sql-cost.ts [markdown|text|html] [variant,...]
 *
 * It works in a database of its own beside the bench database (BENCH_DATABASE_URL + `_sqlcost`).
 */
import { readFileSync } from 'node:fs';
import postgres from 'postgres';
import { generateCorpus } from '../corpus/generate.js';
import { chunkSections, type Chunk } from '../../server/ai/chunk.js';
import { markdownSections, plainSections, htmlSections } from '../../server/ai/extract.js';
import { openDatabase } from '../../server/core/db/client.js';
import { uploader } from './ingest.js';
import { benchDatabaseUrl, ensureDatabase } from './database.js';

const URL_ = `${benchDatabaseUrl()}_sqlcost`;
const format = process.argv[2] ?? 'markdown';
const only = process.argv[3]?.split(',');
const { docs } = generateCorpus();
const ext = format === 'markdown' ? '.md' : format === 'html' ? '.html' : '.txt';
const texts = docs
  .filter((d) => d.fileName.endsWith(ext))
  .map((d) => (format === 'html' ? (/<body>([\s\S]*)<\/body>/.exec(d.content)?.[1] ?? d.content) : d.content));
const all = texts.join('\n\n');
const big = Array.from({ length: Math.ceil(4e6 / Buffer.byteLength(all)) }, () => all).join('\n\n');
const t0 = process.cpuUsage();
const sections = format === 'markdown' ? markdownSections(big) : format === 'html' ? htmlSections(`<html><body>${big}</body></html>`) : plainSections(big);
const t1 = process.cpuUsage(t0);
const chunks = chunkSections(sections);
const t2 = process.cpuUsage(t0);
const textBytes = chunks.reduce((a, c) => a + Buffer.byteLength(c.text), 0);
console.log(
  `${format}: ${(Buffer.byteLength(big) / 1e6).toFixed(2)} MB file, ${sections.length} sections, ${chunks.length} chunks, ${(textBytes / 1e6).toFixed(2)} MB chunk text; extract ${((t1.user + t1.system) / 1e6).toFixed(3)} s, +chunk ${((t2.user + t2.system) / 1e6).toFixed(3)} s CPU`,
);
const batches: Chunk[][] = [];
{
  let cur: Chunk[] = [];
  let bytes = 0;
  for (const c of chunks) {
    if (cur.length && (bytes + c.text.length > 256 * 1024 || cur.length >= 1000)) {
      batches.push(cur);
      cur = [];
      bytes = 0;
    }
    cur.push(c);
    bytes += c.text.length;
  }
  batches.push(cur);
}

await ensureDatabase(URL_);
const database = await openDatabase({ url: URL_, dataDir: '', max: 2 });
const up = await uploader(database, `scratch-${Date.now()}`);
const subId = await up.store('x.md', Buffer.from('hello'));
const [sub] = (await database.db.execute(`select organization_id, project_id from submissions where id = ${subId}`)) as unknown as {
  organization_id: number;
  project_id: number;
}[];
await database.close();
const sql = postgres(URL_, { max: 1, onnotice: () => {} });
// As drizzle does: a JSON parameter given as text goes through unchanged.
for (const t of ['114', '3802']) (sql.options.serializers as Record<string, (x: unknown) => unknown>)[t] = (x) => x;
const [{ pid }] = (await sql`select pg_backend_pid() as pid`) as unknown as [{ pid: number }];
const cpu = () => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
};
const org = sub!.organization_id;
const project = sub!.project_id;
const rowsJson = batches.map((b, i) => JSON.stringify(b.map((c, j) => ({ o: i * 1000 + j, t: c.text, p: c.place }))));

/** The chunks alone, without their lexeme counts. */
const chunksOnly = `insert into chunks (organization_id, project_id, submission_id, ordinal, text, place, sensitivity_level)
      select ${org}, ${project}, ${subId}, r.o, r.t, r.p, 'internal' from json_to_recordset($1::json) as r(o int, t text, p jsonb)`;

/** What the app sends for a batch: the chunks, and their lexemes counted from the inserted tsvectors. */
const appStatement = `with ins as (
      insert into chunks (organization_id, project_id, submission_id, ordinal, text, place, sensitivity_level)
      select ${org}, ${project}, ${subId}, r.o, r.t, r.p, 'internal' from json_to_recordset($1::json) as r(o int, t text, p jsonb)
      returning tsv)
    insert into chunk_lexemes (organization_id, project_id, lexeme, ndoc)
    select ${org}, ${project}, lexeme, count(*)::int from ins, unnest(tsvector_to_array(ins.tsv)) as lexeme group by lexeme order by lexeme
    on conflict (organization_id, project_id, lexeme) do update set ndoc = chunk_lexemes.ndoc + excluded.ndoc`;

const variants: Record<string, { setup?: string[]; stmt: string }> = {
  parse: { stmt: `select count(*) from json_to_recordset($1::json) as r(o int, t text, p jsonb)` },
  tsv_text: { stmt: `select sum(length(v)) from (select to_tsvector('english', r.t) v from json_to_recordset($1::json) as r(o int, t text, p jsonb)) x` },
  tsv_full: {
    stmt: `select sum(length(v)) from (select setweight(to_tsvector('english', coalesce(r.p->>'heading', '')), 'B') || setweight(to_tsvector('english', r.t), 'D') v from json_to_recordset($1::json) as r(o int, t text, p jsonb)) x`,
  },
  nolex: {
    stmt: chunksOnly,
  },
  nolex_nogin: {
    setup: ['drop index chunks_org_project_tsv_idx'],
    stmt: chunksOnly,
  },
  nolex_nogin_nofk: {
    setup: ['drop index chunks_org_project_tsv_idx', 'alter table chunks drop constraint chunks_submission_fk'],
    stmt: chunksOnly,
  },
  nolex_nofk: {
    setup: ['alter table chunks drop constraint chunks_submission_fk'],
    stmt: chunksOnly,
  },
  lex_agg: {
    stmt: `select count(*) from (select lexeme, count(*)::int from (select setweight(to_tsvector('english', coalesce(r.p->>'heading', '')), 'B') || setweight(to_tsvector('english', r.t), 'D') tsv from json_to_recordset($1::json) as r(o int, t text, p jsonb)) ins, unnest(tsvector_to_array(ins.tsv)) as lexeme group by lexeme) x`,
  },
  app: {
    stmt: appStatement,
  },
  app_ff50: {
    setup: ['alter table chunk_lexemes set (fillfactor = 50)'],
    stmt: appStatement,
  },
  app_norls: {
    setup: ['reset role'],
    stmt: appStatement,
  },
};

const runs = Number(process.env.RUNS ?? 2);
if (process.env.EXPLAIN) {
  await sql.unsafe('begin');
  await sql.unsafe(`select set_config('app.org_id', '${org}', true), set_config('role', 'firewatch_app', true)`);
  const small = JSON.stringify(batches[0]!.slice(0, Number(process.env.EXPLAIN)).map((c, j) => ({ o: j, t: c.text, p: c.place })));
  const plan = await sql.unsafe(`explain (analyze, buffers, verbose) ${variants.app!.stmt}`, [small], { prepare: false });
  for (const r of plan) console.log(r['QUERY PLAN']);
  await sql.unsafe('rollback');
}
for (const [name, v] of Object.entries(variants)) {
  if (only && !only.includes(name)) continue;
  const results: string[] = [];
  for (let run = 0; run < runs; run++) {
    // COMMIT=1: each batch its own transaction (as the app does; dead row versions can then be pruned), cleaned up after.
    const each = !!process.env.COMMIT;
    const open = async () => {
      await sql.unsafe('begin');
      await sql.unsafe(`select set_config('app.org_id', '${org}', true)`);
      for (const s of v.setup ?? []) if (s !== 'reset role') await sql.unsafe(s);
      if (!v.setup?.includes('reset role')) await sql.unsafe(`select set_config('role', 'firewatch_app', true)`);
    };
    let used = 0;
    const w0 = performance.now();
    if (!each) await open();
    for (const r of rowsJson) {
      if (each) await open();
      const c0 = cpu();
      await sql.unsafe(v.stmt, [r], { prepare: true });
      if (each) await sql.unsafe('commit');
      used += cpu() - c0;
    }
    const wall = performance.now() - w0;
    if (each) {
      await sql.unsafe(`delete from chunks where submission_id = ${subId}`);
      await sql.unsafe(`delete from chunk_lexemes where project_id = ${project}`);
      if (v.setup?.some((s) => s.startsWith('alter'))) await sql.unsafe('alter table chunk_lexemes reset (fillfactor)');
    } else await sql.unsafe('rollback');
    results.push(`${(used / 1000).toFixed(2)} s CPU (${(wall / 1000).toFixed(2)} s wall)`);
  }
  console.log(`${name.padEnd(18)} ${results.join(' | ')}  per MB of chunk text: ${(Number(results.at(-1)!.split(' ')[0]) / (textBytes / 1e6)).toFixed(3)} s`);
}
await sql.end();
