import { casePriorityResource, caseSeverityResource, caseTypeResource } from './case-settings.js';
import { costModelResource } from './cost-models.js';
import type { ResourceDefinition } from './define.js';
import { incidentCostTypeResource, incidentPriorityResource, incidentRoleResource, incidentSeverityResource, incidentTypeResource } from './incident-settings.js';
import { documentResource } from './knowledge.js';
import { individualResource, serviceResource, teamResource } from './people.js';

/** The settings, knowledge, catalog and people entities (issue 3), registered in index.ts as one list. */
export const catalogResources: ResourceDefinition[] = [
  incidentSeverityResource,
  incidentPriorityResource,
  incidentTypeResource,
  incidentCostTypeResource,
  incidentRoleResource,
  casePriorityResource,
  caseSeverityResource,
  caseTypeResource,
  serviceResource,
  individualResource,
  teamResource,
  documentResource,
  costModelResource,
];
