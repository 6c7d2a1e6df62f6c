import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { buildApp } from '../../../server/app.js';
import { loadConfig } from '../../../server/core/config.js';

// The embedded database keeps what users saved across a restart, and so does the generated JWT secret.
t.test('restart keeps data and sessions (embedded database)', { skip: process.env.DATABASE_URL ? 'embedded database only' : false }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'fw-restart-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const config = loadConfig({
    DATA_DIR: dir,
    LOG_LEVEL: 'silent',
    FIREWATCH_ADMIN_EMAIL: 'admin@example.com',
    FIREWATCH_ADMIN_PASSWORD: 'password-1',
    ADMIN_DIST: 'none',
  });

  const first = await buildApp({ config, logger: false });
  const login = await first.inject({ method: 'POST', url: '/api/v1/default/auth/login', payload: { email: 'admin@example.com', password: 'password-1' } });
  const token = login.json().token as string;
  const created = await first.inject({
    method: 'POST',
    url: '/api/v1/default/tag_types',
    headers: { authorization: `Bearer ${token}` },
    payload: { name: 'Survives' },
  });
  t.equal(created.statusCode, 201);
  await first.close();

  const second = await buildApp({ config, logger: false });
  t.teardown(() => second.close());
  const list = await second.inject({ method: 'GET', url: '/api/v1/default/tag_types', headers: { authorization: `Bearer ${token}` } });
  t.equal(list.statusCode, 200, 'the token signed before the restart still works');
  t.ok(
    list.json().items.some((i: { name: string }) => i.name === 'Survives'),
    'the tag type saved before the restart is there',
  );
});
