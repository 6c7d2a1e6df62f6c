import { casePriorityResource, caseSeverityResource, caseTypeResource } from './case-settings.js';
import { commitResource } from './commits.js';
import { costModelResource } from './cost-models.js';
import {
  commandResource,
  queryResource,
  sourceDataFormatResource,
  sourceEnvironmentResource,
  sourceResource,
  sourceStatusResource,
  sourceTransportResource,
  sourceTypeResource,
} from './data-catalog.js';
import type { ResourceDefinition } from './define.js';
import { feedbackResource, serviceFeedbackResource } from './feedback.js';
import { formResource, formTypeResource } from './forms.js';
import { incidentCostTypeResource, incidentPriorityResource, incidentRoleResource, incidentSeverityResource, incidentTypeResource } from './incident-settings.js';
import { bestPracticeResource, definitionResource, documentResource, termResource, weblinkResource } from './knowledge.js';
import { notificationResource, searchFilterResource } from './notifications.js';
import { okrResource } from './okrs.js';
import { handoffResource, preshiftPrepResource } from './oncall.js';
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
  termResource,
  definitionResource,
  bestPracticeResource,
  weblinkResource,
  costModelResource,
  sourceEnvironmentResource,
  sourceStatusResource,
  sourceTransportResource,
  sourceTypeResource,
  sourceDataFormatResource,
  sourceResource,
  queryResource,
  commandResource,
  handoffResource,
  preshiftPrepResource,
  feedbackResource,
  serviceFeedbackResource,
  commitResource,
  notificationResource,
  searchFilterResource,
  formTypeResource,
  formResource,
  okrResource,
];
