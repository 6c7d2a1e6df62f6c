import type { PgColumn } from 'drizzle-orm/pg-core';
import { projects } from '../../core/db/projects.js';
import { casePriorities, caseSeverities, caseTypes } from '../../cases/settings-tables.js';
import { incidentCostTypes, incidentPriorities, incidentRolePolicies, incidentSeverities, incidentTypes } from '../../incidents/settings-tables.js';
import { documents, terms } from '../../knowledge/tables.js';
import { NOTIFICATION_TYPES, notifications, SEARCH_FILTER_SUBJECTS, searchFilters } from '../../notifications/tables.js';
import { individuals, services, teams } from '../../people/tables.js';
import { tags, tagTypes } from '../../tags/tables.js';
import { importKinds, isUnmapped, unmapped, type Ctx, type KindSpec, type Target, type Unmapped } from './engine.js';
import { roleOf } from './roles.js';

type Row = Record<string, unknown> & { id: number };
const all =
  (table: string, order = 'id') =>
  (ctx: Ctx) =>
    ctx.rows<Row>(`select * from {s}"${table}" order by ${order}`);
const text = (v: unknown) => (v === null || v === undefined ? null : String(v));
/** The source table's rows with the search filters each follows (`assoc_<table>_filters`), as `filter_ids`. */
const following = (table: string, column: string) => (ctx: Ctx) =>
  ctx.rows<Row>(`select x.*, array(select a.search_filter_id from {s}assoc_${table}_filters a where a.${column} = x.id order by 1) as filter_ids
    from {s}"${table}" x order by x.id`);
const filtersOf = (r: Row, ctx: Ctx) => ((r.filter_ids as number[] | null) ?? []).map((id) => ctx.ref('search_filter', id)).filter((id) => id !== null);

/** The spec for a setting with a name per project (types, priorities, severities, contacts). */
function named(
  kind: string,
  source: string,
  table: Target & { project_id: PgColumn; name: PgColumn },
  map: (r: Row, ctx: Ctx) => Record<string, unknown> | Unmapped,
  rows: (ctx: Ctx) => Promise<Row[]> = all(source),
): KindSpec<Row> {
  return {
    kind,
    table,
    rows,
    natural: ['project_id', 'name'],
    map: (r, ctx) => {
      if (!r.name) return unmapped('it has no name');
      const values = map(r, ctx);
      return isUnmapped(values) ? values : { project_id: ctx.ref('project', r.project_id), name: r.name, ...values };
    },
  };
}

const rank = (r: Row) => ({
  description: r.description ?? null,
  color: r.color ?? null,
  enabled: r.enabled ?? true,
  default: r.default ?? false,
  view_order: r.view_order ?? 1,
});
const stamps = (r: Row) => (r.created_at ? { created_at: r.created_at, updated_at: r.updated_at ?? r.created_at } : {});

export const projectSpec: KindSpec<Row> = {
  kind: 'project',
  table: projects,
  rows: all('project'),
  // Firewatch seeds a project "Default"; Dispatch's is "default": the same project.
  natural: ['name'],
  caseless: true,
  map: (r) => ({
    name: r.name,
    description: r.description ?? null,
    color: r.color ?? '#0077B6',
    annual_employee_cost: r.annual_employee_cost ?? 50000,
    business_year_hours: r.business_year_hours ?? 2080,
    owner_email: r.owner_email ?? null,
    owner_conversation: r.owner_conversation ?? null,
  }),
};

/** Saved filters over incidents or cases (Dispatch's expression grammar is Firewatch's list filter grammar). */
const searchFilterSpec = named('search_filter', 'search_filter', searchFilters, (r) =>
  (SEARCH_FILTER_SUBJECTS as readonly unknown[]).includes(r.subject ?? 'incident')
    ? {
        description: r.description ?? null,
        expression: r.expression ?? [],
        subject: r.subject ?? 'incident',
        enabled: r.enabled ?? true,
        ...stamps(r),
      }
    : unmapped(`its subject '${text(r.subject)}' is not ${SEARCH_FILTER_SUBJECTS.join(' or ')}`),
);

/** Where matches of search filters are sent: a channel or an e-mail address. */
const notificationSpec = named(
  'notification',
  'notification',
  notifications,
  (r, ctx) => {
    if (!(NOTIFICATION_TYPES as readonly unknown[]).includes(r.type)) return unmapped(`its type '${text(r.type)}' is not ${NOTIFICATION_TYPES.join(' or ')}`);
    if (!r.target) return unmapped('a notification without a target');
    return {
      description: r.description ?? null,
      type: r.type,
      target: r.target,
      enabled: r.enabled ?? true,
      filters: filtersOf(r, ctx),
      evergreen: r.evergreen ?? false,
      evergreen_owner: r.evergreen_owner ?? null,
      evergreen_reminder_interval: r.evergreen_reminder_interval ?? 90,
      evergreen_last_reminder_at: r.evergreen_last_reminder_at ?? null,
      ...stamps(r),
    };
  },
  following('notification', 'notification_id'),
);

const people: KindSpec<Row>[] = [
  named(
    'service',
    'service',
    services,
    (r, ctx) => ({
      type: r.type ?? 'pagerduty-oncall',
      external_id: r.external_id ?? null,
      is_active: r.is_active ?? true,
      description: r.description ?? null,
      health_metrics: r.health_metrics ?? false,
      evergreen: r.evergreen ?? false,
      evergreen_owner: r.evergreen_owner ?? null,
      filters: filtersOf(r, ctx),
      ...stamps(r),
    }),
    following('service', 'service_id'),
  ),
  named(
    'team',
    'team_contact',
    teams,
    (r, ctx) => ({ email: r.email ?? null, company: r.company ?? null, notes: r.notes ?? null, filters: filtersOf(r, ctx), ...stamps(r) }),
    following('team_contact', 'team_contact_id'),
  ),
  {
    kind: 'individual',
    table: individuals,
    rows: following('individual_contact', 'individual_contact_id'),
    natural: ['project_id', 'email'],
    map: (r, ctx) =>
      r.email
        ? {
            project_id: ctx.ref('project', r.project_id),
            email: String(r.email).toLowerCase(),
            name: r.name ?? r.email,
            company: r.company ?? null,
            notes: r.notes ?? null,
            title: r.title ?? null,
            external_id: r.external_id ?? null,
            is_external: r.is_external ?? false,
            is_active: r.is_active ?? true,
            filters: filtersOf(r, ctx),
            ...stamps(r),
          }
        : unmapped('a contact without an e-mail address (Firewatch names people by e-mail)'),
  },
];

const incidentSettings: KindSpec<Row>[] = [
  named('incident_type', 'incident_type', incidentTypes, (r) => ({
    slug: r.slug ?? null,
    description: r.description ?? null,
    visibility: r.visibility === 'Restricted' ? 'Restricted' : 'Open',
    plugin_metadata: r.plugin_metadata ?? [],
    exclude_from_metrics: r.exclude_from_metrics ?? false,
    enabled: r.enabled ?? true,
    default: r.default ?? false,
  })),
  named('incident_priority', 'incident_priority', incidentPriorities, (r) => ({
    ...rank(r),
    page_commander: r.page_commander ?? false,
    tactical_report_reminder: r.tactical_report_reminder ?? 24,
    executive_report_reminder: r.executive_report_reminder ?? 24,
  })),
  named('incident_severity', 'incident_severity', incidentSeverities, rank),
  named('incident_cost_type', 'incident_cost_type', incidentCostTypes, (r) => ({
    description: r.description ?? null,
    category: r.category ?? null,
    details: r.details ?? {},
    default: r.default ?? false,
    editable: r.editable ?? true,
    ...stamps(r),
  })),
];

const caseSettings: KindSpec<Row>[] = [
  named('case_type', 'case_type', caseTypes, (r, ctx) => ({
    description: r.description ?? null,
    visibility: r.visibility === 'Restricted' ? 'Restricted' : 'Open',
    plugin_metadata: r.plugin_metadata ?? [],
    conversation_target: r.conversation_target ?? null,
    incident_type_id: ctx.ref('incident_type', r.incident_type_id),
    oncall_service_id: ctx.ref('service', r.oncall_service_id),
    case_template_document_id: ctx.ref('document', r.case_template_document_id),
    exclude_from_metrics: r.exclude_from_metrics ?? false,
    enabled: r.enabled ?? true,
    default: r.default ?? false,
  })),
  named('case_priority', 'case_priority', casePriorities, (r) => ({ ...rank(r), page_assignee: r.page_assignee ?? false })),
  named('case_severity', 'case_severity', caseSeverities, rank),
];

const knowledge: KindSpec<Row>[] = [
  {
    kind: 'tag_type',
    table: tagTypes,
    rows: all('tag_type'),
    natural: ['name'],
    map: (r, ctx) => ({
      project_id: ctx.ref('project', r.project_id),
      name: r.name,
      description: r.description ?? null,
      exclusive: r.exclusive ?? false,
      ...stamps(r),
    }),
  },
  {
    kind: 'tag',
    table: tags,
    rows: all('tag'),
    natural: ['tag_type_id', 'name'],
    map: (r, ctx) => {
      const type = ctx.ref('tag_type', r.tag_type_id);
      if (type === null) return unmapped(`its tag type ${text(r.tag_type_id)} was not imported`);
      return {
        project_id: ctx.ref('project', r.project_id),
        tag_type_id: type,
        name: r.name,
        description: r.description ?? 'Generic tag',
        source: r.source ?? 'dispatch',
        uri: r.uri ?? null,
        external_id: r.external_id ?? null,
        discoverable: r.discoverable ?? true,
        ...stamps(r),
      };
    },
  },
  {
    kind: 'term',
    table: terms,
    rows: all('term'),
    natural: ['project_id', 'text'],
    map: (r, ctx) =>
      r.text ? { project_id: ctx.ref('project', r.project_id), text: r.text, discoverable: r.discoverable ?? true } : unmapped('a term without text'),
  },
  {
    // The organization's documents; those of one incident become its resources (kinds-records.ts).
    kind: 'document',
    table: documents,
    rows: (ctx) => ctx.rows<Row>(`select * from {s}document where incident_id is null order by id`),
    map: (r, ctx) => ({
      project_id: ctx.ref('project', r.project_id),
      name: r.name ?? r.resource_id ?? `Document ${r.id}`,
      resource_type: r.resource_type ?? null,
      resource_id: r.resource_id ?? null,
      weblink: r.weblink ?? null,
      description: r.description ?? null,
      evergreen: r.evergreen ?? false,
      evergreen_owner: r.evergreen_owner ?? null,
      ...stamps(r),
    }),
  },
];

const rolePolicy: KindSpec<Row> = {
  kind: 'incident_role',
  table: incidentRolePolicies,
  rows: all('incident_role'),
  map: (r, ctx) => {
    const role = roleOf(r.role);
    if (!role) return unmapped(`the role '${text(r.role)}' has no Firewatch counterpart`);
    return {
      project_id: ctx.ref('project', r.project_id),
      role,
      enabled: r.enabled ?? true,
      order: r.order ?? 1,
      service_id: ctx.ref('service', r.service_id),
      individual_id: ctx.ref('individual', r.individual_id),
      engage_next_oncall: r.engage_next_oncall ?? false,
    };
  },
};

/** Projects, saved filters, people, notifications and every setting incidents and cases point at, in the order they refer to each other. */
export async function importSettings(ctx: Ctx) {
  await importKinds(ctx, [projectSpec, searchFilterSpec, ...people, notificationSpec, ...knowledge, ...incidentSettings, ...caseSettings, rolePolicy]);
}
