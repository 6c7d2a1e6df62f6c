import { and, eq } from 'drizzle-orm';
import type { Executor } from './db/client.js';
import { projects } from './db/projects.js';
import { settings } from './db/tables.js';

/**
 * What a new organization starts with (as Dispatch seeds it): a default project here, and whatever each
 * domain registers (incident and case types, priorities and severities, tag types, a cost model...).
 * Each domain owns its own defaults; the accounts domain only runs them, in registration order, inside
 * the transaction that creates the organization.
 */
export interface SeedContext {
  tx: Executor;
  orgId: number;
  /** The organization's default project, which project-scoped defaults belong to. */
  projectId: number;
}
export type OrganizationSeed = (seed: SeedContext) => Promise<void>;

const seeds: { name: string; run: OrganizationSeed }[] = [];

/** Registers a domain's defaults (the app does, once per domain that has some). */
export function registerOrganizationSeed(name: string, run: OrganizationSeed) {
  if (!seeds.some((s) => s.name === name)) seeds.push({ name, run });
}

export const DEFAULT_PROJECT = { name: 'Default', description: 'Where incidents, cases and documents go until you make more projects.' };

/** The settings key that says an organization got its defaults (so a deleted default is not brought back). */
const seededKey = (orgId: number) => `organization_seeded:${orgId}`;

/** Seeds an organization once: the default project and every registered domain's defaults. */
export async function seedOrganization(tx: Executor, orgId: number) {
  const marked = await tx
    .insert(settings)
    .values({ key: seededKey(orgId), value: new Date().toISOString() })
    .onConflictDoNothing()
    .returning({ key: settings.key });
  if (!marked.length) return false;
  await tx
    .insert(projects)
    .values({ organization_id: orgId, ...DEFAULT_PROJECT })
    .onConflictDoNothing();
  const [project] = await tx
    .select({ id: projects.id })
    .from(projects)
    .where(and(eq(projects.organization_id, orgId), eq(projects.name, DEFAULT_PROJECT.name)));
  for (const seed of seeds) await seed.run({ tx, orgId, projectId: project!.id });
  return true;
}
