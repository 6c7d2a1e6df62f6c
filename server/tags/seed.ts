import type { SeedContext } from '../core/seeds.js';
import { tagTypes } from './tables.js';

/** A new organization's tag types, in its default project. */
export const TAG_TYPES = [
  { name: 'Component', description: 'The part of the system involved.' },
  { name: 'Region', description: 'Where it happened.', exclusive: true },
  { name: 'Root cause', description: 'Why it happened, once known.' },
];

export async function seedTagTypes({ tx, orgId, projectId }: SeedContext) {
  await tx
    .insert(tagTypes)
    .values(TAG_TYPES.map((t) => ({ organization_id: orgId, project_id: projectId, ...t })))
    .onConflictDoNothing();
}
