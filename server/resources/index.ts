import { curatedContentResource } from '../ai/curated.js';
import { catalogResources } from './catalog.js';
import type { ResourceDefinition } from './define.js';
import { incidentResources } from './incidents.js';
import { organizationResource } from './organizations.js';
import { apiKeyResource, projectResource } from './projects.js';
import { tagResource, tagTypeResource } from './tags.js';
import { userResource } from './users.js';

/** Every plain-CRUD entity. Adding one: a definition here, a migration, an admin entry. */
export const resources: ResourceDefinition[] = [organizationResource, userResource, projectResource, apiKeyResource, tagTypeResource, tagResource, ...catalogResources, ...incidentResources, curatedContentResource];
