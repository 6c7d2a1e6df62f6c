/**
 * Issue 24, ingestion: MB/s of HTML, Markdown, PDF and plain text through the real upload path
 * (store, extract, chunk, index), over many small files (two at a time, as the indexing job's
 * workers take them) and over one large file, on PostgreSQL and on embedded PGlite; then the peak
 * resident memory of one large upload in a process of its own. Target: 4 MB/s everywhere.
 * BENCH_INGEST_MB sets the large file's size (4), BENCH_INGEST_MEMORY_MB the memory upload's (100, 0 skips),
 * BENCH_INGEST_DB one database (postgres or pglite), BENCH_INGEST_FORMATS some formats (html,markdown,pdf,text).
 * Beside each line's MB/s, the CPU seconds per MB of this process and of the database's PostgreSQL
 * backends: figures the machine's load does not change much, unlike the MB/s.
 */
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../server/core/db/client.js';
import { makePdf } from '../../tests/server/ai/fixtures.js';
import { generateCorpus } from '../corpus/generate.js';
import { freshDatabase, uploader, type BenchDb } from '../lib/ingest.js';
import { postgresCpuBetween, postgresCpuMs } from '../lib/load.js';
import type { Suite } from '../lib/suite.js';
import { printTable } from '../lib/table.js';

const TARGET_MBS = 4;
const LARGE_MB = Number(process.env.BENCH_INGEST_MB ?? 4);
const MEMORY_MB = Number(process.env.BENCH_INGEST_MEMORY_MB ?? 100);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

type Format = 'html' | 'markdown' | 'pdf' | 'text';
const FORMATS = (process.env.BENCH_INGEST_FORMATS ?? 'html,markdown,pdf,text').split(',') as Format[];
interface File {
  name: string;
  content: Buffer;
}

/**
 * CPU seconds spent on a line, which the machine's load does not change (much): this process's (the
 * extraction, and on PGlite the database too) and, on PostgreSQL, its backends' for this database.
 */
async function cpuMeter(database: Awaited<ReturnType<typeof freshDatabase>>['database']) {
  const backends = async () =>
    database.kind === 'postgres'
      ? rowsOf<{ pid: string }>(await database.db.execute(sql`select pid::text as pid from pg_stat_activity where datname = current_database()`)).map(
          (r) => r.pid,
        )
      : [];
  const node0 = process.cpuUsage();
  const pg0 = postgresCpuMs(await backends());
  return async () => {
    const node = process.cpuUsage(node0);
    const pg = database.kind === 'postgres' ? postgresCpuBetween(pg0, postgresCpuMs(await backends())) : null;
    return { node: (node.user + node.system) / 1e6, pg: pg === null ? null : pg / 1000 };
  };
}

/** Lines of at most `width` characters, for PDF pages. */
function wrap(text: string, width = 95): string[] {
  const out: string[] = [];
  for (const para of text.split(/\n\s*\n/)) {
    let line = '';
    for (const word of para.split(/\s+/).filter(Boolean)) {
      if (line && line.length + word.length + 1 > width) {
        out.push(line);
        line = '';
      }
      line = line ? `${line} ${word}` : word;
    }
    if (line) out.push(line);
    out.push('');
  }
  return out;
}

const pdfOf = (text: string) => {
  const lines = wrap(text.replace(/[^\x20-\x7e\n]/g, ' '));
  const pages: string[][] = [];
  for (let i = 0; i < lines.length; i += 40) pages.push(lines.slice(i, i + 40));
  return makePdf(pages);
};

/** The generated operations corpus per format: its own files as the small ones, and one large file. */
async function files(): Promise<Record<Format, { small: File[]; large: File }>> {
  const { docs } = generateCorpus();
  const of = (ext: string) => docs.filter((d) => d.fileName.endsWith(ext));
  const repeat = (texts: string[], sep: string) => {
    const all = texts.join(sep);
    return Array.from({ length: Math.ceil((LARGE_MB * 1e6) / Buffer.byteLength(all)) }, () => all).join(sep);
  };
  const html = of('.html');
  const md = of('.md');
  const txt = of('.txt');
  // HTML documents are concatenated body by body, so the large one stays one well-formed page.
  const bodies = html.map((d) => /<body>([\s\S]*)<\/body>/.exec(d.content)?.[1] ?? d.content);
  const pdfSmall = await Promise.all(txt.map(async (d) => ({ name: d.fileName.replace(/\.txt$/, '.pdf'), content: await pdfOf(d.content) })));
  const pdfText = txt.map((d) => d.content).join('\n\n');
  // A PDF weighs more than its text: pages are added until the file reaches the size.
  let pdfLarge = pdfText;
  while ((await pdfOf(pdfLarge)).length < LARGE_MB * 1e6 * 0.9) pdfLarge += `\n\n${pdfLarge}`;
  return {
    html: {
      small: html.map((d) => ({ name: d.fileName, content: Buffer.from(d.content) })),
      large: { name: 'large.html', content: Buffer.from(`<html><body>${repeat(bodies, '\n')}</body></html>`) },
    },
    markdown: {
      small: md.map((d) => ({ name: d.fileName, content: Buffer.from(d.content) })),
      large: {
        name: 'large.md',
        content: Buffer.from(
          repeat(
            md.map((d) => d.content),
            '\n\n',
          ),
        ),
      },
    },
    pdf: { small: pdfSmall, large: { name: 'large.pdf', content: await pdfOf(pdfLarge) } },
    text: {
      small: txt.map((d) => ({ name: d.fileName, content: Buffer.from(d.content) })),
      large: {
        name: 'large.txt',
        content: Buffer.from(
          repeat(
            txt.map((d) => d.content),
            '\n\n',
          ),
        ),
      },
    },
  };
}

/** Each format's first upload, untimed in the table: what loading its extractor costs once per process. */
const firsts: string[] = [];

async function measure(kind: BenchDb, set: Awaited<ReturnType<typeof files>>) {
  const rows: (string | number)[][] = [];
  const { database, drop } = await freshDatabase(kind, 'ingest');
  try {
    let n = 0;
    for (const format of FORMATS.filter((f) => f in set)) {
      const { small, large } = set[format];
      // Each format gets its own organization, so one format's lexemes do not slow the next one's.
      const up = await uploader(database, `ingest-${format}-${n++}`);
      const failures: string[] = [];
      const check = (r: { status: string; error: string | null }, name: string) =>
        r.status !== 'indexed' && failures.push(`${name}: ${r.status} ${r.error ?? ''}`);
      let next = 0;
      const row = (files: string, bytes: number, seconds: number, cpu: { node: number; pg: number | null }) => {
        const mb = bytes / 1e6;
        rows.push([kind, format, files, mb, seconds, mb / seconds, cpu.node / mb, cpu.pg === null ? '-' : cpu.pg / mb, load()]);
      };
      // A running server has loaded its extractors (pdf.js takes about 2 s of CPU to load): the first
      // upload of each format goes before the timed ones, and its time is printed apart.
      const w0 = performance.now();
      check(await up.upload(small[0]!.name, small[0]!.content), small[0]!.name);
      firsts.push(`${kind} ${format} ${((performance.now() - w0) / 1000).toFixed(2)} s`);
      let cpu = await cpuMeter(database);
      const started = performance.now();
      const ids: number[] = [];
      await Promise.all(
        [0, 1].map(async () => {
          while (next < small.length) {
            const f = small[next++]!;
            ids.push(await up.ingest(f.name, f.content));
          }
        }),
      );
      const smallSeconds = (performance.now() - started) / 1000;
      // Read once all are done, so the timed part holds the uploads alone.
      for (const o of await up.outcomes(ids)) check(o, `submission ${o.id}`);
      row(
        `${small.length} small files`,
        small.reduce((a, f) => a + f.content.length, 0),
        smallSeconds,
        await cpu(),
      );
      cpu = await cpuMeter(database);
      const t0 = performance.now();
      check(await up.upload(large.name, large.content), large.name);
      row('one large file', large.content.length, (performance.now() - t0) / 1000, await cpu());
      if (failures.length) throw new Error(`uploads failed: ${failures.slice(0, 3).join('; ')}`);
    }
  } finally {
    await drop();
  }
  return rows;
}

export async function run(): Promise<{ passed: boolean }> {
  const set = await files();
  const kinds: BenchDb[] = process.env.BENCH_INGEST_DB ? [process.env.BENCH_INGEST_DB as BenchDb] : ['postgres', 'pglite'];
  const rows: (string | number)[][] = [];
  for (const kind of kinds) rows.push(...(await measure(kind, set)));
  printTable(['database', 'format', 'files', 'MB', 'seconds', 'MB/s', 'node CPU s/MB', 'PostgreSQL CPU s/MB', 'load average'], rows);
  console.log(`\nfirst upload of each format, before the lines above (loads its extractor once per process): ${firsts.join(', ')}`);
  const slow = rows.filter((r) => (r[5] as number) < TARGET_MBS);
  console.log(
    `\ntarget ${TARGET_MBS} MB/s: ${slow.length ? `MISSED on ${slow.length} of ${rows.length} lines` : 'met'} (2 cores; the load average beside each line says how much else ran)`,
  );

  let memoryOk = true;
  if (MEMORY_MB > 0) {
    const memRows: (string | number)[][] = [];
    for (const [kind, mode] of kinds.filter((k) => k === 'postgres').flatMap((k) => [[k, 'buffer'] as const, [k, 'stream'] as const])) {
      // A process of its own, so the peak belongs to this upload alone.
      const child = spawnSync(
        process.execPath,
        ['--expose-gc', '--import', 'tsx', fileURLToPath(new URL('../lib/ingest-memory.ts', import.meta.url)), kind, String(MEMORY_MB), mode],
        { encoding: 'utf8', maxBuffer: 1 << 20 },
      );
      const line = child.stdout.trim().split('\n').at(-1) ?? '';
      if (child.status !== 0 || !line.startsWith('{')) {
        console.log(`memory run failed: ${child.stderr.slice(-500)}`);
        memoryOk = false;
        continue;
      }
      const m = JSON.parse(line) as { bytes: number; baseline: number; storePeak: number; indexPeak: number; seconds: number; status: string };
      const store = (m.storePeak - m.baseline) / m.bytes;
      const index = (m.indexPeak - m.baseline) / m.bytes;
      memoryOk &&= Math.max(store, index) <= 2.2 && m.status === 'indexed';
      memRows.push([
        kind,
        mode === 'stream' ? 'HTTP stream' : 'in memory',
        m.bytes / 1e6,
        m.baseline / 1e6,
        m.storePeak / 1e6,
        store,
        m.indexPeak / 1e6,
        index,
        m.bytes / 1e6 / m.seconds,
        m.status,
        load(),
      ]);
    }
    if (memRows.length) {
      console.log('');
      printTable(
        [
          'database',
          'upload',
          'upload MB',
          'RSS before MB',
          'storing: peak MB',
          'growth / size',
          'indexing: peak MB',
          'growth / size',
          'MB/s',
          'status',
          'load average',
        ],
        memRows,
      );
      console.log(`\ntarget peak growth <= about 2x the upload: ${memoryOk ? 'met' : 'MISSED'}`);
    }
  }
  return { passed: !slow.length && memoryOk };
}

const suite: Suite = {
  name: 'ingest',
  description: `ingestion MB/s of HTML, Markdown, PDF and plain text, small files and one large file, PostgreSQL and PGlite, and peak memory of a ${MEMORY_MB} MB upload (target ${TARGET_MBS} MB/s)`,
  run,
};
export default suite;
