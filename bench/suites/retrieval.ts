/**
 * Issue 5: retrieval quality and ingestion speed. The generated corpus (bench/corpus) goes through
 * the real ingestion (extract, chunk, index in PostgreSQL); every question is asked through the real
 * retrieval and a hit is a returned passage that contains the known answer sentence.
 * Prints recall@1, recall@5, MRR@10 and ingestion throughput. Target: recall@5 >= 0.9.
 */
import postgres from 'postgres';
import { createSubmission, indexSubmission } from '../../server/ai/ingest.js';
import { planLimits } from '../../server/ai/limits.js';
import { retrieve } from '../../server/ai/retrieve.js';
import { loadConfig } from '../../server/core/config.js';
import { openDatabase, type Database } from '../../server/core/db/client.js';
import { organizations, projects } from '../../server/schema.js';
import { withTenant } from '../../server/core/db/tenant.js';
import { generateCorpus } from '../corpus/generate.js';
import { benchDatabaseUrl, ensureDatabase } from '../lib/database.js';
import type { Suite } from '../lib/suite.js';
import { printTable } from '../lib/table.js';

const TARGET_RECALL_AT_5 = 0.9;
const norm = (s: string) => s.replace(/\s+/g, ' ').trim();

/** A fresh database for this suite (PostgreSQL next to the bench database, or PGlite with BENCH_PGLITE=1). */
async function freshDatabase(): Promise<{ database: Database; drop(): Promise<void> }> {
  if (process.env.BENCH_PGLITE) {
    const database = await openDatabase({ dataDir: 'memory://' });
    return { database, drop: () => database.close() };
  }
  const url = new URL(benchDatabaseUrl());
  url.pathname = `${url.pathname}_retrieval`;
  const name = url.pathname.slice(1);
  await ensureDatabase(url.toString());
  const admin = postgres(url.toString().replace(`/${name}`, '/postgres'), { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists "${name}" with (force)`);
  await admin.unsafe(`create database "${name}"`);
  const database = await openDatabase({ url: url.toString(), dataDir: '', max: 4 });
  return {
    database,
    async drop() {
      await database.close();
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end();
    },
  };
}

export async function run(): Promise<{ passed: boolean; recall1: number; recall5: number; mrr: number }> {
  const { docs, questions } = generateCorpus();
  const { database, drop } = await freshDatabase();
  try {
    const db = database.db;
    const config = loadConfig({ LOG_LEVEL: 'silent' });
    const [org] = await db.insert(organizations).values({ name: 'Retrieval bench', description: 'bench', slug: 'retrieval-bench', plan: 'team_pro' }).returning();
    const orgId = org!.id;
    const [project] = await withTenant(db, { orgId, userId: null }, (tx) => tx.insert(projects).values({ organization_id: orgId, name: 'Operations' }).returning());
    const [bulkProject] = await withTenant(db, { orgId, userId: null }, (tx) => tx.insert(projects).values({ organization_id: orgId, name: 'Bulk' }).returning());
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
    const [{ chunks }] = (await db.execute(`select count(*)::int as chunks from chunks where project_id = ${project!.id}`).then((r) => ((r as { rows?: unknown[] }).rows ?? r) as { chunks: number }[])) as [{ chunks: number }];

    // Bulk ingestion: one large Markdown document (the corpus's runbooks repeated), where per-file
    // overhead no longer dominates.
    const runbooks = docs.filter((d) => d.fileName.endsWith('.md')).map((d) => d.content).join('\n\n');
    const large = Buffer.from(Array.from({ length: Math.ceil(4e6 / Buffer.byteLength(runbooks)) }, () => runbooks).join('\n\n'));
    const bulkStarted = performance.now();
    const { id: bulkId } = await withTenant(db, { orgId, userId: null }, (tx) =>
      createSubmission(tx, { orgId, userId: null, sessionId: null }, { ...limits, max_file_bytes: 1e9 }, { kind: 'file', projectId: bulkProject!.id, title: 'bulk.md', fileName: 'bulk.md', content: large, sensitivityLevel: 'internal' }),
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
      const passages = await withTenant(db, { orgId, userId: null }, (tx) => retrieve(tx, { orgId, projectId: project!.id, query: q.question, access: { kind: 'apikey' }, limit: 10 }));
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

const suite: Suite = {
  name: 'retrieval',
  description: `recall@1/@5 and MRR over a generated corpus of runbooks, postmortems and transcripts; ingestion MB/s (target recall@5 >= ${TARGET_RECALL_AT_5})`,
  run,
};
export default suite;
