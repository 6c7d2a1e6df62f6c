import type { SeedContext } from '../core/seeds.js';
import { documents } from './tables.js';
import { DOCUMENT_TYPES, documentTypeName } from './resources.js';

/** A new organization's document templates: one of each template type, to be pointed at the team's own documents. */
export async function seedDocumentTemplates({ tx, orgId, projectId }: SeedContext) {
  await tx.insert(documents).values(
    DOCUMENT_TYPES.templates.map((type) => ({
      organization_id: orgId,
      project_id: projectId,
      name: documentTypeName(type),
      resource_type: type,
      description: `Replace its link with your own ${documentTypeName(type).toLowerCase()}.`,
    })),
  );
}
