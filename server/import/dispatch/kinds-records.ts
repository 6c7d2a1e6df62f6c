import type { PgTable } from 'drizzle-orm/pg-core';
import { CASE_STATUSES, caseParticipants, cases, caseTags } from '../../cases/tables.js';
import { INCIDENT_STATUSES, incidentParticipants, incidentResources, incidentRoles, incidents, incidentTags } from '../../incidents/tables.js';
import { importKinds, importLinks, unmapped, type Ctx, type KindSpec, type Target } from './engine.js';
import { isResolutionReason, roleOf } from './roles.js';
import { joined, personEmail } from './source.js';

type Row = Record<string, unknown> & { id: number | string };
type Values = Record<string, unknown>;

/** What differs between Dispatch's two records, incidents and cases; the rest is one definition. */
interface RecordKind {
  kind: 'incident' | 'case';
  table: Target;
  statuses: readonly string[];
  /** Dispatch's participant columns, each read as the person's e-mail (`commander_id` -> `commander_email`). */
  people: string[];
  /** Further columns of the source query, each joined on the record `r`. */
  joins: ReturnType<typeof joined>[];
  /** The kind's own fields. */
  fields: (r: Row, ctx: Ctx) => Values;
}

/**
 * An incident or a case: its name is its key (links people saved, /iaos/{name}, still resolve), its
 * type, priority and severity are the kind's settings (`incident_type`, `case_type`, …).
 */
function recordSpec(k: RecordKind): KindSpec<Row> {
  const source = k.kind === 'case' ? '"case"' : k.kind;
  return {
    kind: k.kind,
    table: k.table,
    rows: (ctx) =>
      ctx.rows<Row>(
        `select r.*, ${[...k.people.map((column) => personEmail('r', column)), ...k.joins.map((j) => j.column)].join(', ')}
        from {s}${source} r ${k.joins.map((j) => j.join).join(' ')} order by r.id`,
      ),
    natural: ['name'],
    map: (r, ctx) => {
      if (!r.name) return unmapped(`a ${k.kind} without a name`);
      if (!k.statuses.includes(r.status as string))
        return unmapped(`its status '${String(r.status)}' is not ${k.statuses.slice(0, -1).join(', ')} or ${k.statuses.at(-1)}`);
      const project = ctx.ref('project', r.project_id);
      if (project === null) return unmapped(`its project ${String(r.project_id)} was not imported`);
      return {
        project_id: project,
        name: r.name,
        title: r.title,
        description: r.description ?? null,
        resolution: r.resolution ?? null,
        status: r.status,
        visibility: r.visibility === 'Restricted' ? 'Restricted' : 'Open',
        [`${k.kind}_type_id`]: ctx.ref(`${k.kind}_type`, r[`${k.kind}_type_id`]),
        [`${k.kind}_priority_id`]: ctx.ref(`${k.kind}_priority`, r[`${k.kind}_priority_id`]),
        [`${k.kind}_severity_id`]: ctx.ref(`${k.kind}_severity`, r[`${k.kind}_severity_id`]),
        ...Object.fromEntries(k.people.map((column) => [column.replace('_id', '_email'), r[column.replace('_id', '_email')] ?? null])),
        reported_at: r.reported_at ?? r.created_at,
        stable_at: r.stable_at ?? null,
        closed_at: r.closed_at ?? null,
        ...k.fields(r, ctx),
        created_at: r.created_at ?? r.reported_at,
        updated_at: r.updated_at ?? r.created_at ?? r.reported_at,
      };
    },
  };
}

/** The latest row of `table` per record (`column` naming the record), as `value`. */
const latest = (table: string, column: string, value: string) =>
  `select distinct on (x.${column}) x.${column} as key, ${value} as value from {s}${table} x where x.${column} is not null order by x.${column}, x.id desc`;
const resource = (table: string) =>
  joined(table, 'r.id', latest(table, 'case_id', `json_build_object('resource_type', x.resource_type, 'resource_id', x.resource_id, 'weblink', x.weblink)`));

export const incidentSpec = recordSpec({
  kind: 'incident',
  table: incidents,
  statuses: INCIDENT_STATUSES,
  people: ['commander_id', 'reporter_id'],
  joins: [joined('conference_url', 'r.id', latest('conference', 'incident_id', 'x.weblink'))],
  fields: (r) => ({ conference_url: r.conference_url ?? null }),
});

const caseSpec = recordSpec({
  kind: 'case',
  table: cases,
  statuses: CASE_STATUSES,
  people: ['assignee_id', 'reporter_id'],
  joins: [
    resource('ticket'),
    resource('storage'),
    joined('escalated_incident_id', 'r.id', `select case_id as key, min(incident_id) as value from {s}assoc_case_incidents group by case_id`),
  ],
  fields: (r, ctx) => {
    if (r.resolution_reason && !isResolutionReason(r.resolution_reason))
      ctx.report.warn(ctx.org, 'case', String(r.id), `its resolution reason '${String(r.resolution_reason)}' is not one of Firewatch's; left empty`);
    return {
      resolution_reason: isResolutionReason(r.resolution_reason) ? r.resolution_reason : null,
      triage_at: r.triage_at ?? null,
      escalated_at: r.escalated_at ?? null,
      // Escalated to (or linked with) an incident: Firewatch keeps one, the first.
      incident_id: ctx.ref('incident', r.escalated_incident_id),
      documents: r.case_document_id ? [ctx.ref('document', r.case_document_id)].filter((d) => d !== null) : [],
      ticket: r.ticket ?? null,
      storage: r.storage ?? null,
    };
  },
});

/** A record's tags (`assoc_incident_tags`, `assoc_case_tags`). */
async function importTags(ctx: Ctx, kind: 'incident' | 'case', table: PgTable) {
  const column = `${kind}_id`;
  const links = await ctx.rows<Record<string, number>>(`select * from {s}assoc_${kind}_tags order by ${column}, tag_id`);
  const mapped = links.flatMap((l) => {
    const [record, tag_id] = [ctx.ref(kind, l[column]), ctx.ref('tag', l.tag_id)];
    if (record === null || tag_id === null) ctx.report.skip(ctx.org, `${kind}_tag`, `${l[column]}/${l.tag_id}`, `its ${kind} or tag was not imported`);
    return record === null || tag_id === null ? [] : [{ [column]: record, tag_id }];
  });
  await importLinks(ctx, `${kind}_tag`, table, mapped);
}

/** When a participant was first given a role. */
const addedAt = joined('added_at', 'p.id', `select participant_id as key, min(assumed_at) as value from {s}participant_role group by participant_id`);

const participantSpec: KindSpec<Row> = {
  kind: 'incident_participant',
  table: incidentParticipants,
  rows: (ctx) =>
    ctx.rows<Row>(`select p.*, lower(c.email) as email, c.name, ${addedAt.column}
      from {s}participant p left join {s}individual_contact c on c.id = p.individual_contact_id ${addedAt.join} where p.incident_id is not null order by p.id`),
  natural: ['incident_id', 'email'],
  map: (r, ctx) => {
    const incident = ctx.ref('incident', r.incident_id);
    if (incident === null) return unmapped(`its incident ${String(r.incident_id)} was not imported`);
    if (!r.email) return unmapped('the participant has no e-mail address (Firewatch names people by e-mail)');
    return {
      incident_id: incident,
      email: r.email,
      name: r.name ?? null,
      added_reason: r.added_reason ?? null,
      ...(r.added_at ? { added_at: r.added_at } : {}),
    };
  },
};

const roleSpec: KindSpec<Row> = {
  kind: 'incident_participant_role',
  table: incidentRoles,
  rows: (ctx) =>
    ctx.rows<Row>(
      `select r.*, p.incident_id from {s}participant_role r join {s}participant p on p.id = r.participant_id where p.incident_id is not null order by r.id`,
    ),
  map: (r, ctx) => {
    const role = roleOf(r.role);
    if (!role) return unmapped(`the role '${String(r.role)}' has no Firewatch counterpart`);
    const participant = ctx.ref('incident_participant', r.participant_id);
    const incident = ctx.ref('incident', r.incident_id);
    if (participant === null || incident === null) return unmapped(`its participant ${String(r.participant_id)} was not imported`);
    return {
      incident_id: incident,
      participant_id: participant,
      role,
      ...(r.assumed_at ? { assumed_at: r.assumed_at } : {}),
      renounced_at: r.renounced_at ?? null,
    };
  },
};

/** Who may see a restricted case: its participants, by e-mail. */
async function importCaseParticipants(ctx: Ctx) {
  const rows = await ctx.rows<{ id: number; case_id: number; email: string | null }>(
    `select p.id, p.case_id, lower(c.email) as email from {s}participant p left join {s}individual_contact c on c.id = p.individual_contact_id where p.case_id is not null order by p.id`,
  );
  const mapped = rows.flatMap((r) => {
    const caseId = ctx.ref('case', r.case_id);
    if (caseId === null || !r.email)
      ctx.report.skip(ctx.org, 'case_participant', String(r.id), r.email ? 'its case was not imported' : 'the participant has no e-mail address');
    return caseId === null || !r.email ? [] : [{ case_id: caseId, email: r.email }];
  });
  await importLinks(ctx, 'case_participant', caseParticipants, mapped);
}

/** Tickets, conferences, storage folders and documents of an incident: Firewatch keeps them as the incident's resources. */
const resourceSpec = (kind: string, source: string, name: (r: Row) => unknown): KindSpec<Row> => ({
  kind,
  table: incidentResources,
  rows: (ctx) => ctx.rows<Row>(`select * from {s}"${source}" where incident_id is not null order by id`),
  map: (r, ctx) => {
    const incident = ctx.ref('incident', r.incident_id);
    if (incident === null) return unmapped(`its incident ${String(r.incident_id)} was not imported`);
    const type = String(r.resource_type ?? 'dispatch');
    // The record's ticket and storage are found by the word in the type (server/incidents/read.ts).
    const resource_type = source === 'document' || type.includes(source) ? type : `${type}-${source}`;
    return {
      incident_id: incident,
      resource_type,
      name: name(r) ?? `${source} ${r.id}`,
      weblink: r.weblink ?? null,
      description: r.description ?? null,
      ...(r.created_at ? { created_at: r.created_at } : {}),
    };
  },
});

export const incidentResourceSpecs = [
  resourceSpec('incident_ticket', 'ticket', (r) => r.resource_id),
  resourceSpec('incident_conference', 'conference', (r) => r.conference_id ?? r.resource_id),
  resourceSpec('incident_storage', 'storage', (r) => r.resource_id),
  resourceSpec('incident_document', 'document', (r) => r.name),
];

/** Incidents with their people, roles and tags (their timeline, tasks and costs follow cases: events may name either). */
export async function importIncidents(ctx: Ctx) {
  await importKinds(ctx, [incidentSpec, participantSpec, roleSpec]);
  await importTags(ctx, 'incident', incidentTags);
}

/** Cases (after incidents: an escalated case names its incident) with their people and tags. */
export async function importCases(ctx: Ctx) {
  await importKinds(ctx, [caseSpec]);
  await importCaseParticipants(ctx);
  await importTags(ctx, 'case', caseTags);
}
