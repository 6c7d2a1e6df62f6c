/**
 * Shared by the ingest suite and its memory child: a fresh database (PostgreSQL beside the bench
 * database, or embedded PGlite), an organization with a project, and one upload taken through the
 * real path (createSubmission, then the indexing job's indexSubmission).
 */
import postgres from 'postgres';
import { createSubmission, createSubmissionFromStream, indexSubmission } from '../../server/ai/ingest.js';
import { planLimits } from '../../server/billing/limits.js';
import { loadConfig } from '../../server/core/config.js';
import { openDatabase, rowsOf, type Database } from '../../server/core/db/client.js';
import { withTenant } from '../../server/core/db/tenant.js';
import { organizations, projects } from '../../server/schema.js';
import { benchDatabaseUrl, ensureDatabase } from './database.js';

export type BenchDb = 'postgres' | 'pglite';

export async function freshDatabase(kind: BenchDb, suffix: string): Promise<{ database: Database; drop(): Promise<void> }> {
  if (kind === 'pglite') {
    const database = await openDatabase({ dataDir: 'memory://' });
    return { database, drop: () => database.close() };
  }
  const url = new URL(benchDatabaseUrl());
  url.pathname = `${url.pathname}_${suffix}`;
  const name = url.pathname.slice(1);
  await ensureDatabase(url.toString());
  const admin = postgres(url.toString().replace(`/${name}`, '/postgres'), { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists "${name}" with (force)`);
  await admin.unsafe(`create database "${name}"`);
  // The pool size the app uses for its job workers.
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

type Outcome = { status: string; chunks: number; error: string | null };
export interface Uploader {
  /** Stores the file (as the upload does), answering the submission's id. */
  store(fileName: string, content: Buffer): Promise<number>;
  /** Stores a file read from a stream (as the HTTP upload does), answering the submission's id. */
  storeStream(fileName: string, body: AsyncIterable<Uint8Array>): Promise<number>;
  /** Runs the indexing job on a stored submission. */
  index(id: number): Promise<Outcome>;
  upload(fileName: string, content: Buffer): Promise<Outcome>;
  /** Stores and indexes a file without reading its outcome (read many at once with `outcomes`), answering its id. */
  ingest(fileName: string, content: Buffer): Promise<number>;
  outcomes(ids: number[]): Promise<(Outcome & { id: number })[]>;
}

/** An organization on the largest plan (100 MB files) with one project that takes every upload. */
export async function uploader(database: Database, slug: string): Promise<Uploader> {
  const db = database.db;
  const config = loadConfig({ LOG_LEVEL: 'silent' });
  const [org] = await db.insert(organizations).values({ name: 'Ingest bench', description: 'bench', slug, plan: 'team_pro' }).returning();
  const orgId = org!.id;
  const scope = { orgId, userId: null };
  const [project] = await withTenant(db, scope, (tx) => tx.insert(projects).values({ organization_id: orgId, name: 'Uploads' }).returning());
  const limits = { ...planLimits(config, 'team_pro'), files_per_project: 1_000_000 };
  const who = { orgId, userId: null, sessionId: null };
  const store = async (fileName: string, content: Buffer) =>
    (
      await withTenant(db, scope, (tx) =>
        createSubmission(tx, who, limits, { kind: 'file', projectId: project!.id, title: fileName, fileName, content, sensitivityLevel: 'internal' }),
      )
    ).id;
  const storeStream = async (fileName: string, body: AsyncIterable<Uint8Array>) =>
    (
      await withTenant(db, scope, (tx) =>
        createSubmissionFromStream(tx, who, limits, { projectId: project!.id, title: fileName, fileName, sensitivityLevel: 'internal' }, body),
      )
    ).id;
  const outcomes = async (ids: number[]) =>
    rowsOf<{ id: number; status: string; chunk_count: number; error: string | null }>(
      await db.execute(`select id, status, chunk_count, error from submissions where id in (${ids.map(Number).join(',')}) order by id`),
    ).map((r) => ({ id: Number(r.id), status: r.status, chunks: Number(r.chunk_count), error: r.error }));
  const index = async (id: number) => {
    await indexSubmission(db, orgId, id);
    return (await outcomes([id]))[0]!;
  };
  const ingest = async (fileName: string, content: Buffer) => {
    const id = await store(fileName, content);
    await indexSubmission(db, orgId, id);
    return id;
  };
  return { store, storeStream, index, upload: async (fileName, content) => index(await store(fileName, content)), ingest, outcomes };
}
