import { parseArgs } from 'node:util';
import { and, eq } from 'drizzle-orm';
import { loadConfig } from '../core/config.js';
import { systemActor } from '../core/context.js';
import { openDatabase } from '../core/db/client.js';
import { organizations } from '../core/db/tables.js';
import { projects } from '../core/db/projects.js';
import { runInTenant } from '../core/tenancy.js';
import { importOpsgenie, type ImportReport } from './opsgenie-apply.js';

/**
 * npm run import:opsgenie -- --key <GenieKey> [--from-url https://api.opsgenie.com] [--org default]
 *   [--project <name>] [--dry-run]
 * Reads the Opsgenie account and writes it into the organization (DATABASE_URL or DATA_DIR, as the
 * server). A dry run prints what would be created or updated and changes nothing.
 */
class DryRun extends Error {
  constructor(readonly report: ImportReport) {
    super('dry run');
  }
}

function print(report: ImportReport, dry: boolean) {
  const verb = dry ? ['would create', 'would update'] : ['created', 'updated'];
  for (const [i, part] of [report.created, report.updated].entries())
    for (const [kind, names] of Object.entries(part)) {
      console.log(`${verb[i]} ${names.length} ${kind}:`);
      for (const n of names) console.log(`  ${n}`);
    }
  for (const s of report.skipped) console.log(`skipped ${s}`);
}

async function main() {
  const { values } = parseArgs({
    options: {
      key: { type: 'string' },
      'from-url': { type: 'string', default: 'https://api.opsgenie.com' },
      org: { type: 'string', default: 'default' },
      project: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
    },
  });
  if (!values.key) throw new Error('--key <GenieKey> is required (an API key with read access, Settings › API key management).');
  const config = loadConfig(process.env);
  const database = await openDatabase({ url: config.DATABASE_URL, dataDir: config.DATA_DIR });
  try {
    const [org] = await database.db.select().from(organizations).where(eq(organizations.slug, values.org!));
    if (!org) throw new Error(`No organization '${values.org}'.`);
    const [project] = values.project
      ? await database.db
          .select()
          .from(projects)
          .where(and(eq(projects.organization_id, org.id), eq(projects.name, values.project)))
      : [null];
    if (values.project && !project) throw new Error(`No project '${values.project}' in ${org.slug}.`);
    const dry = values['dry-run']!;
    try {
      const report = await runInTenant(database.db, config, systemActor({ orgId: org.id, orgSlug: org.slug }), async (ctx) => {
        const r = await importOpsgenie(ctx, { url: values['from-url']!, key: values.key! }, project?.id ?? null);
        // Thrown to roll the transaction back: a dry run does all the work and keeps none of it.
        if (dry) throw new DryRun(r);
        return r;
      });
      print(report, false);
    } catch (err) {
      if (!(err instanceof DryRun)) throw err;
      print(err.report, true);
    }
  } finally {
    await database.close();
  }
}

main().catch((err: Error) => {
  console.error(err.message);
  process.exitCode = 1;
});
