import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type postgres from 'postgres';

/** The fixture's DDL only (its hand-written rows follow the `-- Rows.` line). */
const DDL = readFileSync(join(import.meta.dirname, '..', '..', 'tests', 'server', 'import', 'fixtures', 'dispatch.sql'), 'utf8').split('\n-- Rows.')[0]!;

export interface GenerateOptions {
  /** Incidents in all: two thirds in organization `default` (over its two projects), a third in `acme`. */
  incidents: number;
  eventsPerIncident: number;
  /** Cases in all, split as the incidents are. */
  cases: number;
  /** Users (and contacts in every project) per organization; at least 3, an incident has 3 people. */
  usersPerOrganization?: number;
}

/** Organizations, their schemas and projects: two organizations, three projects. */
export const GENERATED_ORGS = [
  { id: 1, slug: 'default', schema: 'dispatch_organization_default', projects: ['default', 'security'] },
  { id: 2, slug: 'acme', schema: 'dispatch_organization_acme', projects: ['default'] },
] as const;

const int = (n: number) => {
  if (!Number.isInteger(n) || n < 0) throw new Error(`a count must be a whole number, got ${n}`);
  return String(n);
};

function coreRows(users: number) {
  const orgs = GENERATED_ORGS.map((o) => o.id).join(', ');
  return `
insert into dispatch_core.organization (id, name, slug, "default", description, banner_enabled)
  values (1, 'default', 'default', true, 'Default Dispatch organization.', false), (2, 'Acme', 'acme', false, 'Acme security.', false);
insert into dispatch_core.dispatch_user (id, email, password, created_at, updated_at)
  select (o - 1) * ${users} + k, format('user%s@%s.example', k, case o when 1 then 'default' else 'acme' end), '\\x00'::bytea,
    timestamp '2023-12-01', timestamp '2023-12-01'
  from unnest(array[${orgs}]) o, generate_series(1, ${users}) k;
insert into dispatch_core.dispatch_user_organization (dispatch_user_id, organization_id, role)
  select (o - 1) * ${users} + k, o, (array['Owner', 'Admin', 'Member', 'Member'])[1 + (k - 1) % 4]
  from unnest(array[${orgs}]) o, generate_series(1, ${users}) k;`;
}

/** Projects and their settings: per project p, types 2p-1 (Outage, Open) and 2p (Security, Restricted). */
function settingsRows(org: (typeof GENERATED_ORGS)[number], users: number) {
  const names = `array[${org.projects.map((p) => `'${p}'`).join(', ')}]`;
  return `
insert into project (id, name, display_name, description, "default", color, annual_employee_cost, business_year_hours, organization_id)
  select p, (${names})[p], initcap((${names})[p]), 'Project ' || (${names})[p], p = 1, '#8C4A9E', 65000, 2080, ${org.id}
  from generate_series(1, ${org.projects.length}) p;
insert into individual_contact (id, name, title, is_active, is_external, email, company, project_id, created_at, updated_at)
  select (p - 1) * ${users} + k, 'User ' || k, 'Engineer', true, false, format('user%s@%s.example', k, '${org.slug}'), 'Example', p,
    timestamp '2023-12-01', timestamp '2023-12-01'
  from project pr(p), generate_series(1, ${users}) k where true;
insert into incident_type (id, name, slug, description, enabled, "default", visibility, plugin_metadata, exclude_from_metrics, project_id)
  select 2 * p - 2 + t, (array['Outage', 'Security'])[t], (array['outage', 'security'])[t], 'Type ' || t, true, t = 1,
    (array['Open', 'Restricted'])[t], '[]', false, p
  from project pr(p), generate_series(1, 2) t;
insert into incident_priority (id, name, description, page_commander, color, enabled, "default", view_order, project_id)
  select 2 * p - 2 + t, (array['High', 'Low'])[t], 'Priority ' || t, t = 1, '#FF0000', true, t = 2, t, p from project pr(p), generate_series(1, 2) t;
insert into incident_severity (id, name, description, color, enabled, "default", view_order, project_id)
  select 2 * p - 2 + t, (array['Major', 'Minor'])[t], 'Severity ' || t, '#FFFF00', true, t = 2, t, p from project pr(p), generate_series(1, 2) t;
insert into case_type (id, name, description, visibility, "default", enabled, plugin_metadata, incident_type_id, project_id)
  select p, 'Phishing', 'Reported phishing.', 'Open', true, true, '[]', 2 * p, p from project pr(p);
insert into case_priority (id, name, description, page_assignee, color, enabled, "default", view_order, project_id)
  select p, 'Medium', 'Within a day.', false, '#FFA500', true, true, 1, p from project pr(p);
insert into case_severity (id, name, description, color, enabled, "default", view_order, project_id)
  select p, 'Moderate', 'Some risk.', '#FFA500', true, true, 1, p from project pr(p);`;
}

/**
 * Incidents 1..n spread over the projects; incident i has participants 3i-2 (reporter), 3i-1
 * (commander) and 3i (participant; every fourth was scribe before), one task and `events` events.
 * Every fifth is restricted (a Security incident); statuses cycle Active, Stable, Closed.
 */
function incidentRows(org: (typeof GENERATED_ORGS)[number], n: number, events: number, users: number) {
  const projects = org.projects.length;
  const contact = (offset: string) => `(i.project_id - 1) * ${users} + 1 + (i.id + ${offset}) % ${users}`;
  return `
insert into incident (id, name, title, description, resolution, status, visibility, reported_at, stable_at, closed_at,
  incident_priority_id, incident_severity_id, incident_type_id, project_id, created_at, updated_at)
  select i, format('dispatch-${org.slug}-%s-%s', (select name from project where id = p), i),
    format('%s (#%s)', (array['Checkout is failing', 'Login is slow', 'Disk full on db-3', 'Leaked API key', 'Queue backlog'])[1 + i % 5], i),
    format('What happened in incident %s, as the reporter wrote it.', i), 'Rolled back.', s, v, r,
    case when s <> 'Active' then r + interval '2 hours' end, case when s = 'Closed' then r + interval '1 day' end,
    2 * p - 1 + i % 2, 2 * p - 1 + (i + 1) % 2, 2 * p - 2 + case v when 'Restricted' then 2 else 1 end, p, r, r + interval '1 day'
  from generate_series(1, ${n}) i,
    lateral (select 1 + i % ${projects} as p, (array['Active', 'Stable', 'Closed'])[1 + i % 3] as s,
      case when i % 5 = 0 then 'Restricted' else 'Open' end as v, timestamp '2024-01-01' + i * interval '37 minutes' as r) x;
insert into participant (id, incident_id, individual_contact_id, added_reason, team)
  select 3 * i.id - 3 + k, i.id, ${contact('k')}, (array['Reported it', 'Commander on call', 'Asked to help'])[k], 'Team ' || k
  from incident i, generate_series(1, 3) k;
update incident set reporter_id = 3 * id - 2, commander_id = 3 * id - 1;
insert into participant_role (assumed_at, renounced_at, role, activity, participant_id)
  select i.reported_at + k * interval '1 minute', null, (array['Reporter', 'Incident Commander', 'Participant'])[k], k, 3 * i.id - 3 + k
  from incident i, generate_series(1, 3) k
  union all
  select i.reported_at, i.reported_at + interval '30 minutes', 'Scribe', 1, 3 * i.id from incident i where i.id % 4 = 0;
insert into event (uuid, started_at, ended_at, source, description, details, type, owner, pinned, individual_id, incident_id, created_at, updated_at)
  select gen_random_uuid(), i.reported_at + e * interval '3 minutes', i.reported_at + e * interval '3 minutes',
    (array['Incident Participant', 'Dispatch Core App', 'Slack Plugin - Conversation Management'])[1 + e % 3],
    format('Step %s of incident %s', e, i.id), case when e % 3 = 2 then '{"channel": "C01"}'::json end,
    (array['Other', 'Field updated', 'Imported message'])[1 + e % 3], 'User ' || (1 + (i.id + e) % ${users}), e % 7 = 0,
    ${contact('1')}, i.id, i.reported_at + e * interval '3 minutes', i.reported_at + e * interval '3 minutes'
  from incident i, generate_series(1, ${events}) e;
insert into task (resolved_at, resolve_by, creator_id, owner_id, incident_id, description, source, priority, status, reminders, resource_type, resource_id, created_at, updated_at)
  select case when i.id % 2 = 0 then i.reported_at + interval '1 day' end, i.reported_at + interval '3 days', 3 * i.id - 1, 3 * i.id - 1, i.id,
    'Follow up on incident ' || i.id, 'Incident Participant', 'High', case when i.id % 2 = 0 then 'Resolved' else 'Open' end, true,
    'google-docs-comment', 'task-' || i.id, i.reported_at + interval '1 hour', i.reported_at + interval '1 hour'
  from incident i;
insert into assoc_task_assignees (participant_id, task_id) select 3 * t.incident_id, t.id from task t;`;
}

/**
 * Cases 1..n: participants after the incidents' (assignee, reporter); statuses cycle through
 * Dispatch's five; every fourth is restricted; an Escalated one is linked to the incident of its number.
 */
function caseRows(org: (typeof GENERATED_ORGS)[number], n: number, users: number) {
  const projects = org.projects.length;
  return `
insert into "case" (id, name, title, description, resolution, resolution_reason, status, visibility, reported_at, triage_at, escalated_at,
  stable_at, closed_at, case_type_id, case_severity_id, case_priority_id, project_id, created_at, updated_at)
  select c, format('dispatch-${org.slug}-case-%s', c), format('Suspicious mail %s', c), format('Mail number %s looked odd.', c), 'Looked into it.',
    case when s = 'Closed' then 'Benign' end, s, case when c % 4 = 0 then 'Restricted' else 'Open' end, r,
    case when s <> 'New' then r + interval '30 minutes' end, case when s = 'Escalated' then r + interval '2 hours' end,
    case when s in ('Stable', 'Closed') then r + interval '3 hours' end, case when s = 'Closed' then r + interval '1 day' end,
    p, p, p, p, r, r + interval '1 day'
  from generate_series(1, ${n}) c,
    lateral (select 1 + c % ${projects} as p, (array['New', 'Triage', 'Escalated', 'Stable', 'Closed'])[1 + c % 5] as s,
      timestamp '2024-02-01' + c * interval '53 minutes' as r) x;
insert into participant (id, case_id, individual_contact_id, added_reason)
  select (select coalesce(max(id), 0) from participant) + 2 * k.id - 2 + j, k.id, (k.project_id - 1) * ${users} + 1 + (k.id + j) % ${users},
    (array['Case assignee', 'Case reporter'])[j]
  from "case" k, generate_series(1, 2) j;
update "case" k set assignee_id = p.id from participant p where p.case_id = k.id and p.added_reason = 'Case assignee';
update "case" k set reporter_id = p.id from participant p where p.case_id = k.id and p.added_reason = 'Case reporter';
insert into participant_role (assumed_at, role, activity, participant_id)
  select k.reported_at, case p.added_reason when 'Case assignee' then 'Assignee' else 'Reporter' end, 1, p.id
  from participant p join "case" k on k.id = p.case_id;
insert into assoc_case_incidents (case_id, incident_id) select k.id, i.id from "case" k join incident i on i.id = k.id where k.status = 'Escalated';
insert into event (uuid, started_at, ended_at, source, description, type, pinned, case_id, created_at, updated_at)
  select gen_random_uuid(), reported_at, reported_at, 'Dispatch Core App', 'Case created', 'Other', false, id, reported_at, reported_at from "case";`;
}

/** Shares of `total` for the two organizations: two thirds and one third. */
const split = (total: number) => [total - Math.floor(total / 3), Math.floor(total / 3)];

/**
 * Fills an empty database with a Dispatch schema (the fixture's DDL) and generated rows, set-based so
 * that 10,000 incidents with 20 events each take seconds. Answers the incidents and cases per organization.
 */
export async function generateDispatch(sql: postgres.Sql, options: GenerateOptions) {
  const users = options.usersPerOrganization ?? 6;
  if (users < 3) throw new Error('usersPerOrganization must be at least 3');
  const [incidents, cases] = [split(options.incidents), split(options.cases)];
  await sql.unsafe(DDL).simple();
  await sql.unsafe(coreRows(Number(int(users)))).simple();
  for (const [i, org] of GENERATED_ORGS.entries()) {
    const body = [
      `set search_path = ${org.schema};`,
      settingsRows(org, users),
      incidentRows(org, Number(int(incidents[i]!)), Number(int(options.eventsPerIncident)), users),
      caseRows(org, Number(int(cases[i]!)), users),
      'reset search_path;',
    ];
    await sql.unsafe(body.join('\n')).simple();
  }
  return GENERATED_ORGS.map((org, i) => ({ ...org, incidents: incidents[i]!, cases: cases[i]! }));
}
