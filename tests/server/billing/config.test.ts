import { spawn } from 'node:child_process';
import t from 'tap';

/** Some Stripe settings without the others would leave billing silently off: the process refuses to start. */
t.test('a Stripe key without its webhook secret and prices stops the process with one line naming what is missing', async (t) => {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: '', STRIPE_SECRET_KEY: 'sk_test_x', STRIPE_PRICE_PRO: 'price_pro' };
  delete env.STRIPE_WEBHOOK_SECRET;
  delete env.STRIPE_PRICE_TEAM_PRO;
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/server.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (c) => (err += c));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  t.equal(code, 1);
  const lines = err.trim().split('\n');
  t.equal(lines.length, 1);
  t.match(
    lines[0],
    /^Invalid configuration: STRIPE_WEBHOOK_SECRET: billing needs STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET, STRIPE_PRICE_PRO, STRIPE_PRICE_TEAM_PRO together$/,
  );
});
