import { and, eq } from 'drizzle-orm';
import type postgres from 'postgres';
import { createOrganization } from '../../accounts/service.js';
import type { Db } from '../../core/db/client.js';
import { memberships, organizations, ROLES, users } from '../../core/db/tables.js';
import { Ctx, type ImportOptions, type Progress } from './engine.js';
import { importCases, importIncidents } from './kinds-records.js';
import { importPlugins } from './kinds-plugins.js';
import { importSettings } from './kinds-settings.js';
import { importSignals } from './kinds-signals.js';
import { importTimeline } from './kinds-timeline.js';
import { Report } from './report.js';
import { sourceOrganizations, tableExists, type SourceOrganization } from './source.js';

/** Dispatch tables this importer does not carry yet: counted in the report so that nothing goes silently. */
const NOT_IMPORTED = [
  'case_cost',
  'case_cost_type',
  'case_notes',
  'conversation',
  'signal_engagement',
  'workflow_instance',
  'service_feedback',
  'forms',
  'definition',
  'query',
  'source',
  'cost_model',
  'dispatch_user_project',
  'group',
  'email_template',
];

/** Firewatch's slugs are lower-case letters, digits and hyphens; Dispatch's may hold underscores. */
export const slugFor = (slug: string) => slug.toLowerCase().replace(/[^a-z0-9-]+/g, '-');

async function targetOrganization(db: Db, org: SourceOrganization, options: ImportOptions, report: Report): Promise<number> {
  const slug = slugFor(org.slug);
  const values = {
    name: org.name,
    description: org.description ?? org.name,
    banner_enabled: org.banner_enabled ?? false,
    banner_text: org.banner_text ?? null,
    ...(org.banner_color ? { banner_color: org.banner_color } : {}),
  };
  const counts = report.of(slug, 'organization');
  counts.source++;
  const [existing] = await db.select().from(organizations).where(eq(organizations.slug, slug));
  if (existing) {
    // The Firewatch default organization keeps its own name; the banner comes across.
    const wanted = slug === 'default' ? { ...values, name: existing.name, description: existing.description } : values;
    const changed = Object.entries(wanted).some(([k, v]) => (existing as Record<string, unknown>)[k] !== v);
    if (changed && !options.dryRun) await db.update(organizations).set(wanted).where(eq(organizations.id, existing.id));
    counts[changed ? 'updated' : 'unchanged']++;
    return existing.id;
  }
  counts.created++;
  if (options.dryRun) return -1;
  const created = await createOrganization(db, { ...values, slug }, null, options.trialDays);
  return created.id;
}

interface SourceMember {
  email: string;
  role: string;
}

/** Users (shared, by e-mail; no password: Dispatch's bcrypt hashes are not Firewatch's) and their roles here. */
async function importMembers(ctx: Ctx, src: postgres.Sql, sourceOrgId: number) {
  const rows = await src<SourceMember[]>`select lower(u.email) as email, m.role from dispatch_core.dispatch_user_organization m
    join dispatch_core.dispatch_user u on u.id = m.dispatch_user_id where m.organization_id = ${sourceOrgId} order by u.id`;
  const users$ = ctx.report.of(ctx.org, 'user');
  const members = ctx.report.of(ctx.org, 'membership');
  for (const r of rows) {
    users$.source++;
    members.source++;
    if (!(ROLES as readonly string[]).includes(r.role)) {
      ctx.report.skip(ctx.org, 'membership', r.email, `the role '${r.role}' is not Owner, Manager, Admin or Member`);
      continue;
    }
    const [user] = await ctx.db.select().from(users).where(eq(users.email, r.email));
    users$[user ? 'unchanged' : 'created']++;
    const [member] =
      user && ctx.orgId > 0
        ? await ctx.db
            .select()
            .from(memberships)
            .where(and(eq(memberships.organization_id, ctx.orgId), eq(memberships.user_id, user.id)))
        : [];
    members[!member ? 'created' : member.role === r.role ? 'unchanged' : 'updated']++;
    if (ctx.dryRun) continue;
    const [saved] = user ? [user] : await ctx.db.insert(users).values({ email: r.email }).returning();
    await ctx.db
      .insert(memberships)
      .values({ organization_id: ctx.orgId, user_id: saved!.id, role: r.role as never })
      .onConflictDoUpdate({ target: [memberships.organization_id, memberships.user_id], set: { role: r.role as never } });
  }
}

async function countNotImported(ctx: Ctx, src: postgres.Sql) {
  const missing = new Map<string, number>();
  for (const table of NOT_IMPORTED) {
    if (!(await tableExists(src, ctx.schema, table))) continue;
    const [row] = await ctx.rows<{ n: number }>(`select count(*)::int as n from {s}"${table}"`);
    if (row!.n > 0) missing.set(table, row!.n);
  }
  ctx.report.notImported.set(ctx.org, missing);
}

/** Imports every organization of the Dispatch database `src` into `db`; the report says what was (or would be) done. */
export async function importDispatch(db: Db, src: postgres.Sql, options: ImportOptions, progress?: Progress): Promise<Report> {
  const report = new Report(options.dryRun, NOT_IMPORTED);
  for (const org of await sourceOrganizations(src)) {
    const orgId = await targetOrganization(db, org, options, report);
    const ctx = new Ctx(db, src, org.schema, orgId, slugFor(org.slug), report, options, progress);
    await ctx.loadMap();
    await importMembers(ctx, src, org.id);
    await importSettings(ctx);
    await importIncidents(ctx);
    await importCases(ctx);
    await importTimeline(ctx);
    await importSignals(ctx);
    await importPlugins(ctx);
    await countNotImported(ctx, src);
  }
  return report;
}
