import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';
import type { Test } from 'tap';
import { openSource } from '../../../server/import/dispatch/source.js';
import { databaseUrl } from '../../helpers.js';

const FIXTURE = readFileSync(join(import.meta.dirname, 'fixtures', 'dispatch.sql'), 'utf8');

/**
 * A scratch Dispatch database for one test, filled from fixtures/dispatch.sql, on the server of
 * DATABASE_URL (or by `fill`, e.g. the generator); dropped when the test ends. Returns the importer's connection to it and an admin one
 * (to change rows between runs).
 */
export async function dispatchSource(t: Test, base: string, fill: (raw: postgres.Sql) => Promise<unknown> = (raw) => raw.unsafe(FIXTURE).simple()) {
  const name = `fw_t${process.ppid}_dsrc_${randomBytes(5).toString('hex')}`;
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = databaseUrl(base, name);
  const raw = postgres(url, { max: 1, onnotice: () => {} });
  await fill(raw);
  const src = openSource(url);
  t.teardown(async () => {
    await Promise.all([src.end(), raw.end()]);
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  });
  return { src, raw, url };
}
