import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import t from 'tap';

// bin/with-memory-settings is how `npm start` and the Docker image run the server (the embedded
// default's idle RSS under 250 MB rests on it: `npm run bench -- idle-memory`).
const root = fileURLToPath(new URL('../../../', import.meta.url));
const launcher = `${root}bin/with-memory-settings`;
const printSettings = 'console.log(JSON.stringify([process.env.MALLOC_MMAP_THRESHOLD_, process.env.MALLOC_ARENA_MAX]))';

const { MALLOC_MMAP_THRESHOLD_: _mmap, MALLOC_ARENA_MAX: _arenas, DATABASE_URL: _url, ...cleanEnv } = process.env;

function settingsUnder(env: NodeJS.ProcessEnv) {
  return new Promise<string[]>((resolve, reject) =>
    execFile(launcher, [process.execPath, '-e', printSettings], { env: { ...cleanEnv, ...env } }, (error, stdout) =>
      error ? reject(error) : resolve(JSON.parse(stdout) as string[]),
    ),
  );
}

t.test('the launcher gives the command the memory settings', async (t) => {
  t.same(await settingsUnder({}), ['32768', '2']);
});

t.test('a value already in the environment wins', async (t) => {
  t.same(await settingsUnder({ MALLOC_ARENA_MAX: '4' }), ['32768', '4']);
});

t.test('with a DATABASE_URL (PostgreSQL) glibc keeps its defaults', async (t) => {
  t.same(await settingsUnder({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/firewatch' }), [null, null]);
});

t.test("the launched process is the launcher's own (exec), so SIGTERM reaches the server", async (t) => {
  const child = spawn(launcher, [process.execPath, '-e', 'console.log(process.pid); setInterval(() => {}, 1000)'], { env: cleanEnv });
  const pid = await new Promise<number>((resolve) => child.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString()))));
  t.equal(pid, child.pid);
  const exit = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  child.kill('SIGTERM');
  t.equal(await exit, 'SIGTERM');
});

t.test('npm start and the Docker image run the server through it', async (t) => {
  const scripts = (JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { scripts: Record<string, string> }).scripts;
  t.match(scripts.start, /bin\/with-memory-settings node dist\/server\/server\.js$/);
  t.notMatch(scripts.bench, /with-memory-settings/, 'the PostgreSQL benches run as a PostgreSQL deployment does');
  t.match(readFileSync(`${root}Dockerfile`, 'utf8'), /^CMD \["bin\/with-memory-settings", "node", "dist\/server\/server\.js"\]$/m);
});
