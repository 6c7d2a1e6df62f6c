import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { spawnedServerDatabase } from '../../helpers.js';
import { signIn, startServerProcess } from './server-child.js';

const ADMIN = { FIREWATCH_ADMIN_EMAIL: 'kill9@example.com', FIREWATCH_ADMIN_PASSWORD: 'password-kill9' };
const CLIENTS = 8;
/** Acknowledged writes before the kill; the load is bounded by this count and by LOAD_MS. */
const BEFORE_KILL = 150;
const LOAD_MS = 60_000;

/** Every tag type name the organization has, page by page. */
async function allNames(base: string, token: string): Promise<Set<string>> {
  const names = new Set<string>();
  for (let page = 1; ; page++) {
    const res = await fetch(`${base}/api/v1/default/tag_types?page=${page}&itemsPerPage=100`, { headers: { authorization: `Bearer ${token}` } });
    const items = ((await res.json()) as { items: { name: string }[] }).items;
    for (const i of items) names.add(i.name);
    if (items.length < 100) return names;
  }
}

t.test('kill -9 during concurrent writes loses no acknowledged row', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'fw-kill9-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const db = await spawnedServerDatabase(t, dir);
  const env = { ...db, ...ADMIN, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ADMIN_DIST: 'dist/no-admin-in-tests' };

  const first = startServerProcess(env);
  t.teardown(() => void first.child.kill('SIGKILL'));
  const base = await first.listening();
  const token = await signIn(base, ADMIN.FIREWATCH_ADMIN_EMAIL, ADMIN.FIREWATCH_ADMIN_PASSWORD);

  const acknowledged: string[] = [];
  let inFlight = 0;
  let killed = false;
  let reset = 0;
  const client = async (c: number) => {
    const deadline = Date.now() + LOAD_MS;
    for (let n = 0; !killed && Date.now() < deadline; n++) {
      const name = `kill9 ${c}-${n}`;
      inFlight++;
      try {
        const res = await fetch(`${base}/api/v1/default/tag_types`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name }),
        });
        if (res.status === 201) acknowledged.push(name);
        else if (!killed) throw new Error(`POST answered ${res.status}: ${await res.text()}`);
      } catch (err) {
        if (!killed) throw err;
        reset++;
      } finally {
        inFlight--;
      }
    }
  };
  const clients = Array.from({ length: CLIENTS }, (_, c) => client(c));
  const start = Date.now();
  while (acknowledged.length < BEFORE_KILL && Date.now() - start < LOAD_MS) await new Promise((r) => setTimeout(r, 10));
  const inFlightAtKill = inFlight;
  killed = true;
  first.child.kill('SIGKILL');
  await first.exited;
  await Promise.all(clients);
  t.ok(acknowledged.length >= BEFORE_KILL, `${acknowledged.length} writes were acknowledged before the kill`);

  const second = startServerProcess(env);
  t.teardown(() => void second.child.kill('SIGKILL'));
  const again = await second.listening();
  const present = await allNames(again, await signIn(again, ADMIN.FIREWATCH_ADMIN_EMAIL, ADMIN.FIREWATCH_ADMIN_PASSWORD));
  const missing = acknowledged.filter((name) => !present.has(name));
  const unacknowledged = [...present].filter((name) => name.startsWith('kill9 ') && !acknowledged.includes(name)).length;
  t.comment(
    `${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'}: acknowledged ${acknowledged.length}, present ${acknowledged.length - missing.length}, in flight at the kill ${inFlightAtKill} (${reset} reset, ${unacknowledged} of them committed)`,
  );
  t.same(missing, [], 'every acknowledged row is there after the restart');
  second.child.kill('SIGTERM');
  t.equal(await second.exited, 0, 'the restarted server shuts down cleanly');
});
