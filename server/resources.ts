import { invitationResource } from './accounts/invitations.js';
import { organizationResource } from './accounts/organizations.js';
import { userResource } from './accounts/users.js';
import { curatedContentResource } from './ai/curated.js';
import { casePriorityResource, caseSeverityResource, caseTypeResource } from './cases/settings.js';
import { commitResource } from './commits/resources.js';
import { costModelResource } from './cost-models/resources.js';
import {
  commandResource,
  queryResource,
  sourceDataFormatResource,
  sourceEnvironmentResource,
  sourceResource,
  sourceStatusResource,
  sourceTransportResource,
  sourceTypeResource,
} from './data-catalog/resources.js';
import type { ResourceDefinition } from './engine/define.js';
import { feedbackResource, serviceFeedbackResource } from './feedback/resources.js';
import { formResource, formTypeResource } from './forms/resources.js';
import { incidentResource } from './incidents/resources.js';
import { caseResource } from './cases/resources.js';
import { taskResource } from './tasks/resources.js';
import {
  incidentCostTypeResource,
  incidentPriorityResource,
  incidentRoleResource,
  incidentSeverityResource,
  incidentTypeResource,
} from './incidents/settings.js';
import { bestPracticeResource, definitionResource, documentResource, termResource, weblinkResource } from './knowledge/resources.js';
import { notificationResource, searchFilterResource } from './notifications/resources.js';
import { okrResource } from './okrs/resources.js';
import { handoffResource, overrideResource, pageResource, policyResource, preshiftPrepResource, scheduleResource } from './oncall/resources.js';
import { individualResource, serviceResource, teamResource } from './people/resources.js';
import { apiKeyResource, projectResource } from './projects/resources.js';
import { tagResource, tagTypeResource } from './tags/resources.js';
import { pluginEventResource, pluginInstanceResource } from './plugins/resources.js';
import { workflowInstanceResource, workflowResource } from './workflows/resources.js';
import { webhookDeliveryResource, webhookEndpointResource } from './webhooks/resources.js';
import { signalResources } from './signals/resources.js';
import { sitePageResource } from './site/resources.js';

/**
 * Every entity served by the generic CRUD routes, registered with the engine by the app. Adding a
 * plain one: its table and definition in its domain's folder, a line here, a migration.
 */
export const resources: ResourceDefinition[] = [
  organizationResource,
  userResource,
  invitationResource,
  projectResource,
  apiKeyResource,
  tagTypeResource,
  tagResource,
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
  scheduleResource,
  overrideResource,
  policyResource,
  pageResource,
  feedbackResource,
  serviceFeedbackResource,
  commitResource,
  notificationResource,
  searchFilterResource,
  formTypeResource,
  formResource,
  okrResource,
  incidentResource,
  caseResource,
  taskResource,
  curatedContentResource,
  ...signalResources,
  sitePageResource,
  pluginInstanceResource,
  pluginEventResource,
  workflowResource,
  workflowInstanceResource,
  webhookEndpointResource,
  webhookDeliveryResource,
];
