import { parseArgs } from 'node:util';
import { loadConfig } from '../../core/config.js';
import { openDatabase } from '../../core/db/client.js';
import { loadSecretKeys } from '../../plugins/secrets.js';
import type { Progress } from './engine.js';
import { importDispatch } from './run.js';
import { openSource } from './source.js';

const USAGE = `Usage: npm run import:dispatch -- --from postgres://user@host/dispatch [--dry-run] [--signals-days 30] [--dispatch-key KEY]

Imports a Dispatch database (restored from its pg_dump) into the Firewatch database configured by
DATABASE_URL (or the embedded one in DATA_DIR). A re-run updates what changed and duplicates nothing.
  --dry-run         print what would be created, per organization and kind, and what cannot be mapped
  --signals-days N  signal instances of the last N days (default 30)
  --dispatch-key K  Dispatch's DISPATCH_ENCRYPTION_KEY, to carry plugin secrets (else they are left out)`;

/** The kind under way with its count, and the records a second over the whole run, on one stderr line. */
function stderrProgress(): Progress {
  const started = Date.now();
  let records = 0;
  let last = 0;
  return {
    tick(org, kind, done, total) {
      records += done - last;
      last = done === total ? 0 : done;
      const rate = Math.round(records / Math.max((Date.now() - started) / 1000, 0.001));
      process.stderr.write(`\r\x1b[K${org} ${kind}: ${done}/${total}, ${records} records (${rate}/s)${done === total ? '\n' : ''}`);
    },
  };
}

async function main() {
  const { values } = parseArgs({
    options: {
      from: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
      'signals-days': { type: 'string', default: '30' },
      'dispatch-key': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  const signalsDays = Number(values['signals-days']);
  if (values.help || !values.from || !Number.isInteger(signalsDays) || signalsDays < 0) {
    console.error(USAGE);
    process.exit(values.help ? 0 : 2);
  }
  const config = loadConfig(process.env);
  const database = await openDatabase({ url: config.DATABASE_URL, dataDir: config.DATA_DIR });
  const src = openSource(values.from);
  try {
    await loadSecretKeys(database.db, config.SECRETS_KEY, config.SECRETS_KEY_PREVIOUS);
    const options = {
      dryRun: values['dry-run'],
      signalsDays,
      dispatchKey: values['dispatch-key'] ?? process.env.DISPATCH_ENCRYPTION_KEY,
      trialDays: config.TRIAL_DAYS,
      relaxedCommits: database.kind === 'postgres',
    };
    const report = await importDispatch(database.db, src, options, options.dryRun ? undefined : stderrProgress());
    console.log(report.toText());
  } finally {
    await src.end();
    await database.close();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
