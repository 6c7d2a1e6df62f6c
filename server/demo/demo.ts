import { and, eq, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { Db } from '../core/db/client.js';
import { projects } from '../core/db/projects.js';
import { memberships, organizations, settings, users } from '../core/db/tables.js';
import { seedOrganization } from '../accounts/seeds.js';
import { casePriorities, caseSeverities, caseTypes } from '../cases/settings-tables.js';
import { incidentCostTypes, incidentPriorities, incidentSeverities, incidentTypes } from '../incidents/settings-tables.js';
import { cases, comments, events, incidentCosts, incidentParticipants, incidentRoles, incidents, nameCounters, reports, tasks } from '../incidents/tables.js';
import { feedback, FEEDBACK_RATINGS, serviceFeedback, SERVICE_FEEDBACK_RATINGS } from '../feedback/tables.js';
import { individuals, services, teams } from '../people/tables.js';
import { documents } from '../knowledge/tables.js';
import { queries, sources, sourceEnvironments, sourceStatuses, sourceTypes } from '../data-catalog/tables.js';
import { submissions } from '../ai/tables.js';
import { indexSubmission } from '../ai/ingest.js';
import { RUNBOOKS } from './content.js';

/**
 * `npm run demo` / `--demo`: a made-up quarter of work in one organization (default `default`), so
 * every list and dashboard shows something: projects, services, teams and people, about 300
 * incidents and 150 cases over the last 90 days with their timelines, roles, tasks, reports, costs and
 * feedback, data sources, and runbooks uploaded to chat and indexed. The same seed gives the same
 * data; rows go in by the hundred. It runs once per organization (a settings flag), never by default.
 */
export interface DemoOptions {
  organization?: string;
  seed?: number;
  incidents?: number;
  cases?: number;
  days?: number;
  /** The end of the quarter (now by default). */
  now?: Date;
}

export interface DemoResult {
  organization: string;
  loaded: boolean;
  counts: Record<string, number>;
}

/** mulberry32: a small, repeatable generator (Math.random cannot be seeded). */
function generator(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!,
    chance: (p: number) => next() < p,
    /** A pick weighted by `weights` (same length as `list`). */
    weighted: <T>(list: readonly T[], weights: number[]) => {
      let r = next() * weights.reduce((a, b) => a + b, 0);
      for (let i = 0; i < list.length; i++) if ((r -= weights[i]!) < 0) return list[i]!;
      return list.at(-1)!;
    },
    some: <T>(list: readonly T[], n: number) => [...list].sort(() => next() - 0.5).slice(0, n),
  };
}

const PEOPLE = [
  ['Priya Shah', 'SRE lead'],
  ['Marcus Lee', 'Platform engineer'],
  ['Elena Petrova', 'Payments engineer'],
  ['Tomás García', 'Security analyst'],
  ['Aisha Bello', 'Support manager'],
  ['Jonas Müller', 'Database engineer'],
  ['Chen Wei', 'Network engineer'],
  ['Sofia Rossi', 'Engineering manager'],
  ['Kwame Mensah', 'Security engineer'],
  ['Hannah Kim', 'Backend engineer'],
  ["Liam O'Brien", 'Frontend engineer'],
  ['Yuki Tanaka', 'Data engineer'],
] as const;
const emailOf = (name: string) =>
  `${name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z ]/g, '')
    .replace(/ /g, '.')}@demo.firewatch.test`;

const PROJECTS = [
  { name: 'Payments', description: 'Checkout, billing and payouts.', color: '#2E7D32' },
  { name: 'Platform', description: 'Kubernetes, databases, networking and the shared services.', color: '#1565C0' },
  { name: 'Security', description: 'Detection and response.', color: '#6A1B9A' },
];
const SERVICES: Record<string, string[]> = {
  Payments: ['checkout-api', 'billing-worker', 'payouts'],
  Platform: ['api-gateway', 'postgres-primary', 'redis-cache', 'kafka'],
  Security: ['edr', 'sso'],
};
const TEAMS = [
  ['Payments', 'payments@demo.firewatch.test'],
  ['SRE', 'sre@demo.firewatch.test'],
  ['Security Operations', 'soc@demo.firewatch.test'],
  ['Data Platform', 'data@demo.firewatch.test'],
  ['Customer Support', 'support@demo.firewatch.test'],
] as const;

const INCIDENT_TITLES: Record<string, string[]> = {
  Payments: [
    'Checkout latency above 2 s',
    'Card payments failing for EU customers',
    'Duplicate charges reported',
    'Payout batch delayed',
    'Billing worker queue backlog',
    'Refunds stuck in pending',
  ],
  Platform: [
    'API gateway 5xx spike',
    'Postgres primary failover',
    'Redis cache evictions',
    'Kafka consumer lag growing',
    'DNS resolution errors in eu-west-1',
    'Disk full on log volume',
    'Certificate expired on internal endpoint',
  ],
  Security: [
    'Suspicious login from new country',
    'Malware detected on laptop',
    'Leaked API key in public repository',
    'Phishing campaign targeting staff',
    'Unusual data export by service account',
  ],
  Default: ['Status page not updating', 'Slow admin console', 'Scheduled report e-mails missing'],
};
const CASE_TITLES = [
  'Phishing e-mail reported',
  'Customer cannot log in',
  'EDR alert: unsigned binary',
  'Refund request escalated by support',
  'Impossible travel alert',
  'Access review exception',
  'Vendor reports data mismatch',
  'Password reset abuse',
  'Suspicious OAuth grant',
  'Billing dispute',
];
const TASKS = [
  'Write the postmortem',
  'Add an alert on queue depth',
  'Raise connection pool limits',
  'Rotate the exposed credentials',
  'Add a runbook step for failover',
  'Backfill missing records',
  'Review dashboards with the team',
  'Tell affected customers',
  'Load-test the fix',
  'Upgrade the client library',
];
const NOTES = [
  'Rolled back the last deploy',
  'Traffic shifted to the secondary region',
  'Vendor confirmed an outage on their side',
  'Error rate back to baseline',
  'Customer support informed',
  'Root cause identified in a config change',
  'Mitigation deployed',
  'Monitoring for recurrence',
];

const HOUR = 3600_000;
const DAY = 24 * HOUR;

async function insertAll<T extends PgTable>(db: Db, table: T, rows: T['$inferInsert'][], size = 400) {
  for (let i = 0; i < rows.length; i += size) await db.insert(table).values(rows.slice(i, i + size) as never);
}
async function insertReturning<T extends PgTable, R>(
  db: Db,
  table: T,
  rows: T['$inferInsert'][],
  returning: Record<string, unknown>,
  size = 400,
): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < rows.length; i += size)
    out.push(
      ...((await db
        .insert(table)
        .values(rows.slice(i, i + size) as never)
        .returning(returning as never)) as R[]),
    );
  return out;
}

export async function runDemo(db: Db, opts: DemoOptions = {}): Promise<DemoResult> {
  const slug = opts.organization ?? 'default';
  const rng = generator(opts.seed ?? 20261124);
  const nIncidents = opts.incidents ?? 300;
  const nCases = opts.cases ?? 150;
  const days = opts.days ?? 90;
  const end = (opts.now ?? new Date()).getTime();
  const start = end - days * DAY;
  const [org] = await db.select().from(organizations).where(eq(organizations.slug, slug));
  if (!org) throw new Error(`Organization '${slug}' does not exist.`);
  const orgId = org.id;
  const flag = await db
    .insert(settings)
    .values({ key: `demo_loaded:${orgId}`, value: new Date(end).toISOString() })
    .onConflictDoNothing()
    .returning();
  if (!flag.length) return { organization: slug, loaded: false, counts: {} };
  await db.transaction((tx) => seedOrganization(tx, orgId));
  const o = { organization_id: orgId };

  // People: users who are members, and the same people as individuals.
  const people = await db
    .insert(users)
    .values(PEOPLE.map(([name]) => ({ email: emailOf(name), display_name: name })))
    .onConflictDoUpdate({ target: users.email, set: { email: sql`excluded.email` } })
    .returning({ id: users.id, email: users.email });
  await db
    .insert(memberships)
    .values(people.map((p, i) => ({ ...o, user_id: p.id, role: i === 0 ? ('Admin' as const) : ('Member' as const) })))
    .onConflictDoNothing();
  const emails = PEOPLE.map(([name]) => emailOf(name));

  // Projects, services, teams, individuals.
  const madeProjects = await insertReturning<typeof projects, { id: number; name: string }>(
    db,
    projects,
    PROJECTS.map((p, i) => ({ ...o, ...p, owner_email: emails[i] })),
    { id: projects.id, name: projects.name },
  );
  const projectByName = Object.fromEntries(madeProjects.map((p) => [p.name, p.id]));
  const [defaultProject] = await db
    .select({ id: projects.id })
    .from(projects)
    .where(and(eq(projects.organization_id, orgId), eq(projects.name, 'Default')));
  if (defaultProject) projectByName.Default = defaultProject.id;
  const serviceRows = Object.entries(SERVICES).flatMap(([project, names]) =>
    names.map((name) => ({
      ...o,
      project_id: projectByName[project]!,
      name,
      type: 'pagerduty-oncall',
      description: `On-call rotation for ${name}.`,
      external_id: `P${rng.int(100000, 999999)}`,
    })),
  );
  const madeServices = await insertReturning<typeof services, { id: number }>(db, services, serviceRows, { id: services.id });
  await insertAll(
    db,
    teams,
    TEAMS.map(([name, email]) => ({ ...o, name, email, company: 'Demo Corp', notes: `The ${name} team.` })),
  );
  const madeIndividuals = await insertReturning<typeof individuals, { id: number }>(
    db,
    individuals,
    PEOPLE.map(([name, title]) => ({ ...o, name, email: emailOf(name), title, company: 'Demo Corp' })),
    { id: individuals.id },
  );

  // The seeded settings, by name.
  const idsByName = async (
    table: typeof incidentTypes | typeof incidentPriorities | typeof incidentSeverities | typeof caseTypes | typeof casePriorities | typeof caseSeverities,
  ) =>
    Object.fromEntries(
      (
        await db
          .select({ id: table.id, name: table.name })
          .from(table as never)
          .where(eq(table.organization_id, orgId))
      ).map((r: { id: number; name: string }) => [r.name, r.id]),
    );
  const [iTypes, iPriorities, iSeverities, cTypes, cPriorities, cSeverities] = await Promise.all([
    idsByName(incidentTypes),
    idsByName(incidentPriorities),
    idsByName(incidentSeverities),
    idsByName(caseTypes),
    idsByName(casePriorities),
    idsByName(caseSeverities),
  ]);
  const [responseCost] = await db
    .select({ id: incidentCostTypes.id })
    .from(incidentCostTypes)
    .where(and(eq(incidentCostTypes.organization_id, orgId), eq(incidentCostTypes.name, 'Response Cost')));

  // Numbers continue after whatever the organization already has.
  const counter = async (kind: string, n: number) => {
    const [row] = await db
      .insert(nameCounters)
      .values({ ...o, kind, value: n })
      .onConflictDoUpdate({ target: [nameCounters.organization_id, nameCounters.kind], set: { value: sql`${nameCounters.value} + ${n}` } })
      .returning({ value: nameCounters.value });
    return row!.value - n;
  };

  // Incidents: older ones are closed, the last days' may still be active or stable.
  const firstIncident = await counter('incident', nIncidents);
  const priorityNames = ['Critical', 'High', 'Medium', 'Low'].filter((n) => iPriorities[n]);
  const severityNames = ['Undetermined', 'Low', 'Medium', 'High', 'Critical'].filter((n) => iSeverities[n]);
  const projectNames = Object.keys(INCIDENT_TITLES).filter((p) => projectByName[p]);
  const reportedTimes = Array.from({ length: nIncidents }, () => start + rng.next() * (end - start - HOUR)).sort((a, b) => a - b);
  const incidentRows = reportedTimes.map((reported, i) => {
    const project = rng.weighted(
      projectNames,
      projectNames.map((p) => (p === 'Default' ? 1 : 3)),
    );
    const priority = rng.weighted(priorityNames, [1, 3, 6, 4]);
    const age = end - reported;
    const stableAfter = (priority === 'Critical' ? 0.5 : priority === 'High' ? 1.5 : 4) * HOUR * (0.3 + rng.next() * 2);
    const closeAfter = stableAfter + (2 + rng.next() * 40) * HOUR;
    const status = age > closeAfter ? 'Closed' : age > stableAfter ? 'Stable' : 'Active';
    const type = project === 'Security' ? 'Security' : rng.weighted(['Default', 'Outage', 'Data issue'], [2, 5, 2]);
    const commander = rng.pick(emails);
    const reporter = rng.pick(emails);
    const title = rng.pick(INCIDENT_TITLES[project]!);
    return {
      ...o,
      project_id: projectByName[project]!,
      name: `IAO-${firstIncident + i + 1}`,
      title,
      description: `${title}. Reported by ${reporter.split('@')[0]!.replace('.', ' ')} after alerts fired.`,
      resolution: status === 'Closed' ? rng.pick(NOTES) + '.' : null,
      status: status as 'Active' | 'Stable' | 'Closed',
      visibility: type === 'Security' ? ('Restricted' as const) : ('Open' as const),
      incident_type_id: iTypes[type] ?? null,
      incident_priority_id: iPriorities[priority] ?? null,
      incident_severity_id: iSeverities[rng.weighted(severityNames, [1, 4, 4, 2, 1])] ?? null,
      reporter_email: reporter,
      commander_email: commander,
      reported_at: new Date(reported),
      stable_at: status !== 'Active' ? new Date(reported + stableAfter) : null,
      closed_at: status === 'Closed' ? new Date(reported + closeAfter) : null,
      created_at: new Date(reported),
      updated_at: new Date(reported + (status === 'Closed' ? closeAfter : stableAfter)),
    };
  });
  const madeIncidents = await insertReturning<typeof incidents, { id: number }>(db, incidents, incidentRows, { id: incidents.id });

  // Participants and their roles, timelines, comments, tasks, reports, costs and feedback.
  const participantRows: (typeof incidentParticipants.$inferInsert)[] = [];
  for (const [i, inc] of madeIncidents.entries()) {
    const row = incidentRows[i]!;
    const crew = [...new Set([row.commander_email, row.reporter_email, ...rng.some(emails, rng.int(1, 4))])];
    for (const email of crew)
      participantRows.push({
        ...o,
        incident_id: inc.id,
        email,
        name: PEOPLE[emails.indexOf(email)]![0],
        added_reason: email === row.commander_email ? 'Commander' : 'Joined',
        added_at: row.reported_at,
      });
  }
  const participants = await insertReturning<typeof incidentParticipants, { id: number; incident_id: number; email: string }>(
    db,
    incidentParticipants,
    participantRows,
    {
      id: incidentParticipants.id,
      incident_id: incidentParticipants.incident_id,
      email: incidentParticipants.email,
    },
  );
  const crewOf = new Map<number, { id: number; email: string }[]>();
  for (const p of participants) crewOf.set(p.incident_id, [...(crewOf.get(p.incident_id) ?? []), p]);

  const roleRows: (typeof incidentRoles.$inferInsert)[] = [];
  const eventRows: (typeof events.$inferInsert)[] = [];
  const commentRows: (typeof comments.$inferInsert)[] = [];
  const taskRows: (typeof tasks.$inferInsert)[] = [];
  const reportRows: (typeof reports.$inferInsert)[] = [];
  const costRows: (typeof incidentCosts.$inferInsert)[] = [];
  const feedbackRows: (typeof feedback.$inferInsert)[] = [];
  for (const [i, inc] of madeIncidents.entries()) {
    const row = incidentRows[i]!;
    const reported = row.reported_at.getTime();
    const last = (row.closed_at ?? row.stable_at ?? new Date(Math.min(end, reported + 6 * HOUR))).getTime();
    const crew = crewOf.get(inc.id)!;
    for (const p of crew) {
      const role =
        p.email === row.commander_email
          ? 'commander'
          : p.email === row.reporter_email
            ? 'reporter'
            : rng.weighted(['participant', 'scribe', 'liaison', 'observer'] as const, [6, 2, 1, 1]);
      roleRows.push({ ...o, incident_id: inc.id, participant_id: p.id, role, assumed_at: row.reported_at });
      if (p.email === row.commander_email && p.email === row.reporter_email)
        roleRows.push({ ...o, incident_id: inc.id, participant_id: p.id, role: 'reporter', assumed_at: row.reported_at });
    }
    const at = (f: number) => new Date(reported + (last - reported) * f);
    eventRows.push({
      ...o,
      incident_id: inc.id,
      started_at: row.reported_at,
      type: 'Other',
      source: 'Incident Participant',
      description: `Incident ${row.name} created by ${row.reporter_email}`,
      owner: row.reporter_email,
    });
    for (const p of crew.slice(2))
      eventRows.push({
        ...o,
        incident_id: inc.id,
        started_at: at(rng.next() * 0.3),
        type: 'Participant updated',
        source: 'Incident Participant',
        description: `${p.email} joined the incident`,
        owner: p.email,
      });
    for (let k = rng.int(2, 6); k > 0; k--) {
      const who = rng.pick(crew).email;
      eventRows.push({
        ...o,
        incident_id: inc.id,
        started_at: at(rng.next()),
        type: 'Custom event',
        source: 'Incident Participant',
        description: rng.pick(NOTES),
        owner: who,
      });
      if (rng.chance(0.5)) commentRows.push({ ...o, incident_id: inc.id, author_email: who, text: rng.pick(NOTES), created_at: at(rng.next()) });
    }
    if (row.stable_at)
      eventRows.push({
        ...o,
        incident_id: inc.id,
        started_at: row.stable_at,
        type: 'Other',
        source: 'Incident Participant',
        description: `Incident marked as stable by ${row.commander_email}`,
        owner: row.commander_email,
      });
    if (row.closed_at)
      eventRows.push({
        ...o,
        incident_id: inc.id,
        started_at: row.closed_at,
        type: 'Other',
        source: 'Incident Participant',
        description: `Incident marked as closed by ${row.commander_email}`,
        owner: row.commander_email,
      });
    for (let k = rng.int(0, 3); k > 0; k--) {
      const created = at(rng.next() * 0.8);
      const resolved = row.status === 'Closed' && rng.chance(0.7) ? new Date(Math.min(end, created.getTime() + rng.int(2, 240) * HOUR)) : null;
      const owner = rng.pick(crew).email;
      taskRows.push({
        ...o,
        project_id: row.project_id,
        incident_id: inc.id,
        description: rng.pick(TASKS),
        status: resolved ? 'Resolved' : 'Open',
        priority: rng.pick(['Low', 'Medium', 'High']),
        creator_email: row.commander_email,
        owner_email: owner,
        assignees: [owner],
        resolve_by: new Date(created.getTime() + 7 * DAY),
        resolved_at: resolved,
        created_at: created,
        updated_at: resolved ?? created,
      });
    }
    if (rng.chance(0.7))
      reportRows.push({
        ...o,
        incident_id: inc.id,
        type: 'tactical',
        author_email: row.commander_email,
        created_at: at(0.3),
        details: {
          conditions: row.description,
          actions: `- ${rng.pick(NOTES)}\n- ${rng.pick(NOTES)}`,
          needs: rng.chance(0.3) ? 'More hands from the owning team.' : '',
        },
      });
    if (row.incident_priority_id === iPriorities.Critical || row.incident_priority_id === iPriorities.High) {
      reportRows.push({
        ...o,
        incident_id: inc.id,
        type: 'executive',
        author_email: row.commander_email,
        created_at: at(0.6),
        details: { current_status: row.status, overview: row.description, next_steps: rng.pick(TASKS) },
      });
    }
    const hours = ((last - reported) / HOUR) * crew.length * 0.25;
    costRows.push({
      ...o,
      incident_id: inc.id,
      incident_cost_type_id: responseCost?.id ?? null,
      kind: 'response',
      amount: Math.round(hours * (50000 / 2080) * 100) / 100,
      details: { participants: crew.length, hours: Math.round(hours * 10) / 10 },
      updated_at: new Date(last),
    });
    if (row.status === 'Closed') {
      for (const p of crew) {
        if (!rng.chance(0.35)) continue;
        feedbackRows.push({
          ...o,
          project_id: row.project_id,
          incident_id: inc.id,
          participant_id: p.id,
          rating: rng.weighted(FEEDBACK_RATINGS, [5, 4, 2, 1, 0.5]),
          feedback: rng.chance(0.5)
            ? rng.pick(['Clear roles from the start.', 'The runbook was out of date.', 'Too many people in the channel.', 'Good handover between shifts.'])
            : null,
          created_at: row.closed_at!,
          updated_at: row.closed_at!,
        });
      }
    }
  }
  await insertAll(db, incidentRoles, roleRows);
  await insertAll(db, events, eventRows);
  await insertAll(db, comments, commentRows);
  await insertAll(db, reports, reportRows);
  await insertAll(db, incidentCosts, costRows);
  await insertAll(db, feedback, feedbackRows);

  // Cases: security and support work; some escalated to the incident reported right after them.
  const firstCase = await counter('case', nCases);
  const caseTimes = Array.from({ length: nCases }, () => start + rng.next() * (end - start - HOUR)).sort((a, b) => a - b);
  const caseRows = caseTimes.map((reported, i) => {
    const age = end - reported;
    const escalated = rng.chance(0.12) ? madeIncidents[reportedTimes.findIndex((t) => t >= reported)] : undefined;
    const triage = reported + rng.int(5, 240) * 60_000;
    const closed = reported + rng.int(4, 120) * HOUR;
    const status = escalated ? 'Escalated' : age > closed - reported ? 'Closed' : age > triage - reported ? 'Triage' : 'New';
    const title = rng.pick(CASE_TITLES);
    const security = /EDR|Phishing|travel|OAuth|Password/.test(title);
    return {
      ...o,
      project_id: projectByName[security ? 'Security' : rng.pick(['Payments', 'Default'])] ?? projectByName.Default!,
      name: `OCO-${firstCase + i + 1}`,
      title,
      description: `${title}: opened from ${rng.pick(['an alert', 'a support ticket', 'an e-mail to security@'])}.`,
      status: status as 'New' | 'Triage' | 'Escalated' | 'Closed',
      resolution_reason: status === 'Closed' ? rng.pick(['Benign', 'False Positive', 'Mitigated', 'User Acknowledged', 'Contained'] as const) : null,
      resolution: status === 'Closed' ? 'Reviewed and closed.' : null,
      case_type_id: cTypes[security ? 'Security alert' : rng.pick(['Default', 'Customer request'])] ?? null,
      case_priority_id: cPriorities[rng.weighted(['Critical', 'High', 'Medium', 'Low'], [1, 2, 5, 3])] ?? null,
      case_severity_id: cSeverities[rng.weighted(['Undetermined', 'Low', 'Medium', 'High', 'Critical'], [2, 4, 3, 1, 0.5])] ?? null,
      assignee_email: rng.pick(emails),
      reporter_email: rng.pick(emails),
      reported_at: new Date(reported),
      triage_at: status !== 'New' ? new Date(triage) : null,
      escalated_at: escalated ? new Date(triage) : null,
      closed_at: status === 'Closed' ? new Date(closed) : null,
      incident_id: escalated?.id ?? null,
      created_at: new Date(reported),
      updated_at: new Date(Math.min(end, status === 'Closed' ? closed : triage)),
    };
  });
  const madeCases = await insertReturning<typeof cases, { id: number }>(db, cases, caseRows, { id: cases.id });
  const caseEvents = madeCases.flatMap((c, i) => {
    const row = caseRows[i]!;
    const list: (typeof events.$inferInsert)[] = [
      {
        ...o,
        case_id: c.id,
        started_at: row.reported_at,
        type: 'Other',
        source: 'Case Participant',
        description: `Case ${row.name} created by ${row.reporter_email}`,
        owner: row.reporter_email,
      },
    ];
    if (row.triage_at)
      list.push({
        ...o,
        case_id: c.id,
        started_at: row.triage_at,
        type: 'Other',
        source: 'Case Participant',
        description: `Case status changed from New to Triage by ${row.assignee_email}`,
        owner: row.assignee_email,
      });
    if (row.closed_at)
      list.push({
        ...o,
        case_id: c.id,
        started_at: row.closed_at,
        type: 'Other',
        source: 'Case Participant',
        description: `Case status changed from Triage to Closed by ${row.assignee_email}`,
        owner: row.assignee_email,
      });
    return list;
  });
  await insertAll(db, events, caseEvents);
  const caseTasks = madeCases.flatMap((c, i) =>
    rng.chance(0.3)
      ? [
          {
            ...o,
            project_id: caseRows[i]!.project_id,
            case_id: c.id,
            description: rng.pick(TASKS),
            status: caseRows[i]!.closed_at ? ('Resolved' as const) : ('Open' as const),
            owner_email: caseRows[i]!.assignee_email,
            creator_email: caseRows[i]!.assignee_email,
            resolved_at: caseRows[i]!.closed_at,
            created_at: caseRows[i]!.reported_at,
          },
        ]
      : [],
  );
  await insertAll(db, tasks, caseTasks);

  // On-call effort feedback, a data catalog, runbook documents.
  const serviceFeedbackRows = Array.from({ length: 40 }, () => {
    const at = new Date(start + rng.next() * (end - start));
    return {
      ...o,
      service_id: rng.pick(madeServices).id,
      individual_contact_id: rng.pick(madeIndividuals).id,
      rating: rng.weighted(SERVICE_FEEDBACK_RATINGS, [2, 4, 4, 2, 1]),
      feedback: rng.chance(0.4) ? 'Quiet week apart from one page at night.' : null,
      created_at: at,
      updated_at: at,
    };
  });
  await insertAll(db, serviceFeedback, serviceFeedbackRows);
  const attr = async (table: typeof sourceTypes, names: string[]) =>
    insertReturning<typeof sourceTypes, { id: number }>(
      db,
      table,
      names.map((name) => ({ ...o, name })),
      { id: table.id },
    );
  const [types, statuses, environments] = await Promise.all([
    attr(sourceTypes, ['Logs', 'Metrics', 'Traces']),
    attr(sourceStatuses, ['Active', 'Deprecated']),
    attr(sourceEnvironments, ['Production', 'Staging']),
  ]);
  const sourceRows = [
    'nginx-access',
    'checkout-api-logs',
    'postgres-slow-queries',
    'edr-alerts',
    'sso-audit',
    'kafka-metrics',
    'billing-events',
    'cdn-logs',
  ].map((name) => {
    const created = new Date(start + rng.next() * (end - start));
    return {
      ...o,
      name,
      description: `The ${name} feed.`,
      owner: rng.pick(emails),
      source_type_id: rng.pick(types).id,
      source_status_id: statuses[0]!.id,
      source_environment_id: rng.pick(environments).id,
      size: rng.int(1, 500) * 1_000_000_000,
      delay: rng.int(1, 30),
      retention: rng.pick([30, 90, 365]),
      cost: rng.int(20, 900),
      data_last_loaded_at: new Date(end - rng.int(0, 10) * DAY),
      created_at: created,
      updated_at: created,
    };
  });
  const madeSources = await insertReturning<typeof sources, { id: number; name: string }>(db, sources, sourceRows, { id: sources.id, name: sources.name });
  await insertAll(
    db,
    queries,
    madeSources.flatMap((s) =>
      Array.from({ length: rng.int(1, 4) }, (_, k) => ({
        ...o,
        source_id: s.id,
        name: `${s.name} query ${k + 1}`,
        text: `select count(*) from ${s.name.replace(/-/g, '_')} where ts > now() - interval '1 hour'`,
        language: 'sql',
      })),
    ),
  );
  await insertAll(
    db,
    documents,
    RUNBOOKS.map((r) => ({
      ...o,
      project_id: projectByName[r.project] ?? null,
      name: r.title,
      resource_type: 'dispatch-incident-runbook',
      description: r.text.split('\n').find((l) => l && !l.startsWith('#')) ?? null,
      weblink: `https://wiki.demo.firewatch.test/runbooks/${r.file.replace(/\.md$/, '')}`,
    })),
  );

  // The same runbooks uploaded to chat in their projects, indexed now (they are small).
  const uploaded = await insertReturning<typeof submissions, { id: number }>(
    db,
    submissions,
    RUNBOOKS.map((r) => ({
      ...o,
      project_id: projectByName[r.project] ?? projectByName.Default!,
      kind: 'file' as const,
      title: r.title,
      file_name: r.file,
      file_type: 'text/markdown',
      size_bytes: Buffer.byteLength(r.text),
      content: Buffer.from(r.text),
      sensitivity_level: 'internal' as const,
      created_by: people[0]?.id ?? null,
    })),
    { id: submissions.id },
  );
  for (const s of uploaded) await indexSubmission(db, orgId, s.id);

  return {
    organization: slug,
    loaded: true,
    counts: {
      projects: madeProjects.length,
      services: madeServices.length,
      teams: TEAMS.length,
      people: people.length,
      incidents: madeIncidents.length,
      cases: madeCases.length,
      events: eventRows.length + caseEvents.length,
      tasks: taskRows.length + caseTasks.length,
      reports: reportRows.length,
      feedback: feedbackRows.length,
      sources: madeSources.length,
      uploads: uploaded.length,
    },
  };
}
