/**
 * Issue 39: a Dispatch database of 10,000 incidents with 20 events each (two organizations, three
 * projects, people, roles, tasks, cases; bench/lib/generate-dispatch.ts) imported into a fresh Firewatch
 * database on the bench's PostgreSQL, timed end to end; records a second over every kind.
 *
 * The floor, in the same run: the bulk of what the import wrote (incidents, cases, their people and
 * roles, events, tasks) written again by hand into a copy of the imported database whose copies of
 * those tables were emptied: the same rows in plain multi-row INSERTs of CHUNK rows, a transaction
 * each, with the tables' indexes, foreign keys and search triggers, but no reading of Dispatch, no
 * mapping and no import map. The import's records a second as a share of the floor's judges the
 * importer apart from the machine's load.
 */
import { loadavg } from 'node:os';
import { openDatabase } from '../../server/core/db/client.js';
import { CHUNK } from '../../server/import/dispatch/engine.js';
import { importDispatch } from '../../server/import/dispatch/run.js';
import { openSource } from '../../server/import/dispatch/source.js';
import { loadSecretKeys } from '../../server/plugins/secrets.js';
import { benchDatabaseUrl, connect } from '../lib/database.js';
import { generateDispatch } from '../lib/generate-dispatch.js';
import type { Suite } from '../lib/suite.js';
import { printTable } from '../lib/table.js';

/** `BENCH_IMPORT_INCIDENTS` scales the run down for a try (the target holds for 10,000). */
const INCIDENTS = Number(process.env.BENCH_IMPORT_INCIDENTS || 10_000);
const COUNTS = { incidents: INCIDENTS, eventsPerIncident: 20, cases: INCIDENTS / 10, usersPerOrganization: 20 };
const TARGET_SECONDS = 120;

/** The floor's tables, in the order their foreign keys allow. */
const FLOOR_TABLES = ['incidents', 'cases', 'incident_participants', 'incident_roles', 'case_participants', 'events', 'tasks'];

/** A database beside the bench's own, named `<bench database>_<suffix>`, dropped and created empty (or as a copy of `template`). */
async function scratch(suffix: string, template?: string) {
  const url = new URL(benchDatabaseUrl());
  const name = `${decodeURIComponent(url.pathname.slice(1))}_${suffix}`;
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  const admin = connect(maintenance.toString(), 1);
  await admin.unsafe(`drop database if exists "${name}" with (force)`);
  await admin.unsafe(`create database "${name}"${template ? ` template "${template}"` : ''}`);
  await admin.end();
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * The floor: FLOOR_TABLES' rows of the imported database `from` read out, then written into `into` (its
 * copy, those tables emptied) in plain INSERT ... VALUES of CHUNK rows with their ids. Answers the
 * rows written and the seconds the writing took.
 */
async function floor(from: string, into: string) {
  const [source, target] = [connect(from, 1), connect(into, 1)];
  try {
    await target.unsafe(`truncate ${FLOOR_TABLES.join(', ')}, search_entries cascade`);
    const tables: { name: string; columns: string[]; rows: unknown[][] }[] = [];
    for (const name of FLOOR_TABLES) {
      // Generated columns (a search vector) are the table's to fill.
      const columns = (
        await source`select attname from pg_attribute where attrelid = ${name}::regclass and attnum > 0 and not attisdropped and attgenerated = '' order by attnum`
      ).map((c) => c.attname as string);
      const rows = await source.unsafe(`select ${columns.map((c) => `"${c}"`).join(', ')} from "${name}"`).values();
      tables.push({ name, columns, rows: rows as unknown[][] });
    }
    const started = Date.now();
    let written = 0;
    for (const { name, columns, rows } of tables)
      for (let i = 0; i < rows.length; i += CHUNK) {
        const chunk = rows.slice(i, i + CHUNK);
        const width = columns.length;
        const values = chunk.map((_, r) => `(${columns.map((__, c) => `$${r * width + c + 1}`).join(', ')})`).join(', ');
        await target.begin((tx) =>
          tx.unsafe(`insert into "${name}" (${columns.map((c) => `"${c}"`).join(', ')}) overriding system value values ${values}`, chunk.flat() as never),
        );
        written += chunk.length;
      }
    return { written, seconds: (Date.now() - started) / 1000 };
  } finally {
    await Promise.all([source.end(), target.end()]);
  }
}

const suite: Suite = {
  name: 'import',
  description: `Dispatch import: ${COUNTS.incidents.toLocaleString('en')} incidents with ${COUNTS.eventsPerIncident} events each into a fresh database; target under ${TARGET_SECONDS} s`,
  async run() {
    const sourceUrl = await scratch('dispatch_src');
    const raw = connect(sourceUrl, 1);
    let started = Date.now();
    await generateDispatch(raw, COUNTS);
    await raw.end();
    const generated = (Date.now() - started) / 1000;

    const targetUrl = await scratch('import');
    const database = await openDatabase({ url: targetUrl, dataDir: '' });
    const src = openSource(sourceUrl);
    const load = loadavg()[0]!.toFixed(1);
    try {
      await loadSecretKeys(database.db, 'bench-secrets-key-bench-secrets-key');
      started = Date.now();
      const report = await importDispatch(database.db, src, { dryRun: false, signalsDays: 30, trialDays: 14, relaxedCommits: true });
      const seconds = (Date.now() - started) / 1000;
      const records = report.total('created');
      await Promise.all([src.end(), database.close()]);
      const targetName = decodeURIComponent(new URL(targetUrl).pathname.slice(1));
      const by = await floor(targetUrl, await scratch('import_floor', targetName));
      const [importRate, floorRate] = [records / seconds, by.written / by.seconds];
      const passed = seconds < TARGET_SECONDS && report.skipped.length === 0;
      printTable(
        [
          'generated (s)',
          'records',
          'skipped',
          'import (s)',
          'records/s',
          'floor records',
          'floor (s)',
          'floor records/s',
          'import/floor',
          'load before',
          'load after',
          'target',
        ],
        [
          [
            generated,
            records,
            report.skipped.length,
            seconds,
            importRate,
            by.written,
            by.seconds,
            floorRate,
            `${Math.round((100 * importRate) / floorRate)}%`,
            load,
            loadavg()[0]!.toFixed(1),
            passed ? 'met' : 'missed',
          ],
        ],
      );
      return { passed };
    } catch (error) {
      await Promise.allSettled([src.end(), database.close()]);
      throw error;
    }
  },
};

export default suite;
