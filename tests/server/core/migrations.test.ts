import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import postgres from 'postgres';
import t from 'tap';
import { openDatabase } from '../../../server/core/db/client.js';
import { databaseUrl } from '../../helpers.js';

const base = process.env.DATABASE_URL;
const postgresOnly = { skip: base ? false : 'PostgreSQL only: roles and connections are the server’s' };
const connect = () => postgres(base!, { max: 1, onnotice: () => {} });

// Test processes (and app instances) migrate their databases side by side, and the role every request runs
// as belongs to the whole cluster: on a fresh cluster two of them can both find it missing and both create it.
t.test('the app role is created once when two migrations race for it', postgresOnly, async (t) => {
  const role = `fw_race_${randomBytes(4).toString('hex')}`;
  const setup = readFileSync(new URL('../../../migrations/0000_setup.sql', import.meta.url), 'utf8');
  const createRole = setup
    .split('--> statement-breakpoint')
    .find((s) => s.includes('CREATE ROLE'))!
    .replaceAll('firewatch_app', role);
  const [first, second, observer] = [connect(), connect(), connect()];
  t.teardown(async () => {
    await observer.unsafe(`drop role if exists ${role}`);
    await Promise.all([first.end(), second.end(), observer.end()]);
  });

  let commitFirst!: () => void;
  let firstCreated!: () => void;
  const created = new Promise<void>((resolve) => (firstCreated = resolve));
  const firstDone = first.begin(async (tx) => {
    await tx.unsafe(createRole);
    firstCreated();
    await new Promise<void>((resolve) => (commitFirst = resolve));
  });
  await created;
  // The second finds no committed role, creates it and waits on the role's unique name for the first.
  const pid = (await second<{ pid: number }[]>`select pg_backend_pid() as pid`)[0]!.pid;
  const secondDone = second.unsafe(createRole).then(() => 'created or found');
  for (let waiting = false; !waiting;) {
    const [row] = await observer<{ waiting: boolean }[]>`select wait_event_type = 'Lock' as waiting from pg_stat_activity where pid = ${pid}`;
    waiting = row?.waiting === true;
  }
  commitFirst();
  await firstDone;
  t.equal(await secondDone, 'created or found', 'the second migration goes on');
  const n = (await observer<{ n: number }[]>`select count(*)::int as n from pg_roles where rolname = ${role}`)[0]?.n;
  t.equal(n, 1);
});

t.test('a database that fails to migrate is refused and left with no open connection', postgresOnly, async (t) => {
  const name = `fw_badmig_${randomBytes(4).toString('hex')}`;
  const admin = connect();
  t.teardown(async () => {
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  });
  await admin.unsafe(`create database ${name}`);
  // A table the migrations will try to create with another shape.
  const squatter = postgres(databaseUrl(base!, name), { max: 1, onnotice: () => {} });
  await squatter.unsafe('create table organizations (id text)');
  await squatter.end();

  await t.rejects(openDatabase({ url: databaseUrl(base!, name), dataDir: '', max: 3 }), /organizations|already exists/);
  const n = (await admin<{ n: number }[]>`select count(*)::int as n from pg_stat_activity where datname = ${name}`)[0]?.n;
  t.equal(n, 0, 'its pool is closed (an open one would keep the process from ending)');
  // Without `force`: this fails while anyone is still connected.
  await t.resolves(admin.unsafe(`drop database ${name}`));
});
