import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { signIn, startServerProcess } from './server-child.js';

const WRITES = 50;
const hasStrace = (() => {
  try {
    execFileSync('strace', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

// What the OS sees: strace, attached to the server process, logs every fsync-family call.
t.test(
  'an acknowledged write on the embedded database is synced to disk',
  { skip: process.env.DATABASE_URL ? 'embedded database only' : !hasStrace && 'needs strace (apt-get install strace; .ci/run installs it)' },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'fw-fsync-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const trace = join(dir, 'strace.log');
    const admin = { FIREWATCH_ADMIN_EMAIL: 'sync@example.com', FIREWATCH_ADMIN_PASSWORD: 'password-sync' };
    const server = startServerProcess({
      DATABASE_URL: '',
      DATA_DIR: join(dir, 'data'),
      ...admin,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      ADMIN_DIST: 'dist/no-admin-in-tests',
    });
    t.teardown(() => void server.child.kill('SIGKILL'));
    const base = await server.listening();
    const token = await signIn(base, admin.FIREWATCH_ADMIN_EMAIL, admin.FIREWATCH_ADMIN_PASSWORD);
    // Attached to the running server (with its threads), as one would on a live box; SIGTERM detaches it.
    const strace = spawn('strace', ['-f', '-qq', '-e', 'trace=fsync,fdatasync,sync_file_range,syncfs,sync', '-o', trace, '-p', String(server.child.pid)], {
      stdio: 'ignore',
    });
    const detached = new Promise((resolve) => strace.on('exit', resolve));
    t.teardown(async () => {
      strace.kill('SIGTERM');
      await detached;
    });
    for (let i = 0; i < 200 && !existsSync(trace); i++) await new Promise((r) => setTimeout(r, 50));
    // strace reports nothing when it is attached; a moment for it to reach every thread.
    await new Promise((r) => setTimeout(r, 500));
    const syncs = () =>
      readFileSync(trace, 'utf8')
        .split('\n')
        .filter((l) => /\b(fsync|fdatasync|sync_file_range|syncfs|sync)\(/.test(l) && !/= -1/.test(l)).length;
    const before = syncs();
    for (let n = 0; n < WRITES; n++) {
      const res = await fetch(`${base}/api/v1/default/tag_types`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `synced ${n}` }),
      });
      t.equal(res.status, 201);
    }
    const during = syncs() - before;
    t.comment(`${during} successful sync calls during ${WRITES} acknowledged writes`);
    t.ok(during >= WRITES, `each acknowledged write was synced (${during} sync calls for ${WRITES} writes)`);
  },
);
