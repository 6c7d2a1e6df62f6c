import { eq } from 'drizzle-orm';
import type { Db } from '../core/db/client.js';
import { projects } from '../core/db/projects.js';
import { organizations } from '../core/db/tables.js';

/** An organization's projects, each with the spec's `organization: {id, name}` beside organization_id (as /projects answers them). */
export async function organizationProjects(db: Db, orgId: number) {
  const rows = await db
    .select({ project: projects, organization: { id: organizations.id, name: organizations.name } })
    .from(projects)
    .innerJoin(organizations, eq(organizations.id, projects.organization_id))
    .where(eq(projects.organization_id, orgId))
    .orderBy(projects.name);
  return rows.map((r) => ({ ...r.project, organization: r.organization }));
}
