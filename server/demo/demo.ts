import { and, eq, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { Db, Executor, Tx } from '../core/db/client.js';
import { projects } from '../core/db/projects.js';
import { memberships, organizations, settings, users } from '../core/db/tables.js';
import { seedOrganization } from '../core/seeds.js';
import { casePriorities, caseSeverities, caseTypes } from '../cases/settings-tables.js';
import { incidentCostTypes, incidentPriorities, incidentSeverities, incidentTypes } from '../incidents/settings-tables.js';
import { cases } from '../cases/tables.js';
import { comments, conversationMessages, events } from '../timeline/tables.js';
import { incidentCosts, incidentParticipants, incidentRoles, incidents, nameCounters, reports } from '../incidents/tables.js';
import { tasks } from '../tasks/tables.js';
import { feedback, FEEDBACK_RATINGS, serviceFeedback, SERVICE_FEEDBACK_RATINGS } from '../feedback/tables.js';
import { individuals, services, teams } from '../people/tables.js';
import { documents } from '../knowledge/tables.js';
import { queries, sources, sourceEnvironments, sourceStatuses, sourceTypes } from '../data-catalog/tables.js';
import { submissionParts, submissions } from '../ai/tables.js';
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

/** What responders write in an incident's conversation, in the order a response goes. */
const CHAT = [
  ['Looking at the dashboards now.', 'I see it too, errors started a few minutes ago.', 'Paging the owning team.'],
  ['Is this related to the deploy this morning?', 'Checking the logs.', 'Found a spike in timeouts upstream.', 'Trying a rollback.'],
  ['Rollback is out, watching the error rate.', 'Looks better on my side.', 'Updating the status page.'],
  ['Customers confirm it works again.', 'Leaving it stable for an hour before closing.', 'I will write the postmortem.'],
] as const;

const HOUR = 3600_000;
const DAY = 24 * HOUR;

async function insertAll<T extends PgTable>(db: Executor, table: T, rows: T['$inferInsert'][], size = 400) {
  for (let i = 0; i < rows.length; i += size) await db.insert(table).values(rows.slice(i, i + size) as never);
}
async function insertReturning<T extends PgTable, R>(
  db: Executor,
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

/**
 * Each demo incident and case its conversation (and an incident its conference link, as the default
 * template makes it), as the provisioning job would: in one statement each, not 450 jobs.
 */
async function withConversations(db: Executor, orgId: number, kind: 'incident' | 'case', slug: string) {
  const table = sql.raw(kind === 'incident' ? 'incidents' : 'cases');
  const column = sql.raw(`${kind}_id`);
  const conference = kind === 'incident' ? sql`, conference_url = ${`https://meet.jit.si/firewatch-${slug}-`} || r.name` : sql``;
  await db.execute(sql`
    with made as (
      insert into conversations (organization_id, ${column}, name)
      select organization_id, id, left(name || ' ' || title, 200) from ${table} where organization_id = ${orgId} and conversation_id is null
      returning id, ${column} as owner
    )
    update ${table} r set conversation_id = made.id${conference} from made where r.organization_id = ${orgId} and r.id = made.owner`);
}

/**
 * The demo in one transaction: all of it or nothing (a run that fails midway leaves no half quarter and
 * no flag behind), and one commit to sync to disk rather than one per hundred rows: on an embedded data
 * folder every commit waits for its fsync, and ~90 of them were most of `npm run demo`.
 */
export async function runDemo(db: Db, opts: DemoOptions = {}): Promise<DemoResult> {
  const filled = await db.transaction((tx) => fill(tx, opts));
  // Indexed once committed, as an upload is: the chat index reads the submission in transactions of its own.
  for (const id of filled.uploads) await indexSubmission(db, filled.orgId, id);
  return filled.result;
}

/** What every filling step works in: the transaction, the organization, the seeded generator and the quarter. */
interface Demo {
  tx: Tx;
  orgId: number;
  /** Spread into every row: the organization it belongs to. */
  o: { organization_id: number };
  rng: ReturnType<typeof generator>;
  start: number;
  end: number;
  slug: string;
}

async function fill(tx: Tx, opts: DemoOptions): Promise<{ result: DemoResult; orgId: number; uploads: number[] }> {
  const slug = opts.organization ?? 'default';
  const end = (opts.now ?? new Date()).getTime();
  const [org] = await tx.select().from(organizations).where(eq(organizations.slug, slug));
  if (!org) throw new Error(`Organization '${slug}' does not exist.`);
  const orgId = org.id;
  const flag = await tx
    .insert(settings)
    .values({ key: `demo_loaded:${orgId}`, value: new Date(end).toISOString() })
    .onConflictDoNothing()
    .returning();
  if (!flag.length) return { result: { organization: slug, loaded: false, counts: {} }, orgId, uploads: [] };
  await seedOrganization(tx, orgId);
  const d: Demo = { tx, orgId, o: { organization_id: orgId }, rng: generator(opts.seed ?? 20261124), start: end - (opts.days ?? 90) * DAY, end, slug };

  // The steps draw from one generator, so their order is part of what the seed gives.
  const people = await addPeople(d);
  const emails = PEOPLE.map(([name]) => emailOf(name));
  const { madeProjects, projectByName, madeServices } = await addProjectsAndServices(d, emails);
  const madeIndividuals = await addTeamsAndIndividuals(d);
  const ids = await seededSettings(d);
  const incidentsMade = await addIncidents(d, opts.incidents ?? 300, { emails, projectByName, ids });
  const activity = await addIncidentActivity(d, incidentsMade, { emails, ids });
  const casesMade = await addCases(d, opts.cases ?? 150, { emails, projectByName, ids, incidentsMade });
  const caseActivity = await addCaseActivity(d, casesMade);
  await addServiceFeedback(d, madeServices, madeIndividuals);
  const madeSources = await addDataCatalog(d, emails);
  const uploaded = await addRunbooks(d, projectByName, people[0]?.id ?? null);
  // Last, so every draw above stays as the seed gave it before messages were added.
  const messages = await addConversationMessages(d, activity.scopes);

  return {
    orgId,
    uploads: uploaded.map((u) => u.id),
    result: {
      organization: slug,
      loaded: true,
      counts: {
        projects: madeProjects.length,
        services: madeServices.length,
        teams: TEAMS.length,
        people: people.length,
        incidents: incidentsMade.made.length,
        cases: casesMade.made.length,
        events: activity.eventRows.length + caseActivity.events.length,
        messages: messages.length,
        tasks: activity.taskRows.length + caseActivity.tasks.length,
        reports: activity.reportRows.length,
        feedback: activity.feedbackRows.length,
        sources: madeSources.length,
        uploads: uploaded.length,
      },
    },
  };
}

/** Users who are members (the first an admin); an existing user of the same e-mail is reused. */
async function addPeople({ tx, o }: Demo) {
  const people = await tx
    .insert(users)
    .values(PEOPLE.map(([name]) => ({ email: emailOf(name), display_name: name })))
    .onConflictDoUpdate({ target: users.email, set: { email: sql`excluded.email` } })
    .returning({ id: users.id, email: users.email });
  await tx
    .insert(memberships)
    .values(people.map((p, i) => ({ ...o, user_id: p.id, role: i === 0 ? ('Admin' as const) : ('Member' as const) })))
    .onConflictDoNothing();
  return people;
}

/** The demo projects (plus the seeded Default one, by name) and their on-call services. */
async function addProjectsAndServices({ tx, orgId, o, rng }: Demo, emails: string[]) {
  const madeProjects = await insertReturning<typeof projects, { id: number; name: string }>(
    tx,
    projects,
    PROJECTS.map((p, i) => ({ ...o, ...p, owner_email: emails[i] })),
    { id: projects.id, name: projects.name },
  );
  const projectByName = Object.fromEntries(madeProjects.map((p) => [p.name, p.id]));
  const [defaultProject] = await tx
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
  const madeServices = await insertReturning<typeof services, { id: number }>(tx, services, serviceRows, { id: services.id });
  return { madeProjects, projectByName, madeServices };
}

/** Teams, and the same people as the users as individual contacts. */
async function addTeamsAndIndividuals({ tx, o }: Demo) {
  await insertAll(
    tx,
    teams,
    TEAMS.map(([name, email]) => ({ ...o, name, email, company: 'Demo Corp', notes: `The ${name} team.` })),
  );
  return insertReturning<typeof individuals, { id: number }>(
    tx,
    individuals,
    PEOPLE.map(([name, title]) => ({ ...o, name, email: emailOf(name), title, company: 'Demo Corp' })),
    { id: individuals.id },
  );
}

/** The seeded settings' ids by name, and the Response Cost type. */
async function seededSettings({ tx, orgId }: Demo) {
  const idsByName = async (
    table: typeof incidentTypes | typeof incidentPriorities | typeof incidentSeverities | typeof caseTypes | typeof casePriorities | typeof caseSeverities,
  ) =>
    Object.fromEntries(
      (
        await tx
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
  const [responseCost] = await tx
    .select({ id: incidentCostTypes.id })
    .from(incidentCostTypes)
    .where(and(eq(incidentCostTypes.organization_id, orgId), eq(incidentCostTypes.name, 'Response Cost')));
  return { iTypes, iPriorities, iSeverities, cTypes, cPriorities, cSeverities, responseCost };
}
type SettingIds = Awaited<ReturnType<typeof seededSettings>>;

/** Reserves `n` names of a kind: numbers continue after whatever the organization already has. */
async function reserveNumbers({ tx, o }: Demo, kind: string, n: number) {
  const [row] = await tx
    .insert(nameCounters)
    .values({ ...o, kind, value: n })
    .onConflictDoUpdate({ target: [nameCounters.organization_id, nameCounters.kind], set: { value: sql`${nameCounters.value} + ${n}` } })
    .returning({ value: nameCounters.value });
  return row!.value - n;
}

/** Incidents over the quarter: older ones are closed, the last days' may still be active or stable. */
async function addIncidents(
  d: Demo,
  count: number,
  { emails, projectByName, ids: { iTypes, iPriorities, iSeverities } }: { emails: string[]; projectByName: Record<string, number>; ids: SettingIds },
) {
  const { tx, o, rng, start, end } = d;
  const firstIncident = await reserveNumbers(d, 'incident', count);
  const priorityNames = ['Critical', 'High', 'Medium', 'Low'].filter((n) => iPriorities[n]);
  const severityNames = ['Undetermined', 'Low', 'Medium', 'High', 'Critical'].filter((n) => iSeverities[n]);
  const projectNames = Object.keys(INCIDENT_TITLES).filter((p) => projectByName[p]);
  const reportedTimes = Array.from({ length: count }, () => start + rng.next() * (end - start - HOUR)).sort((a, b) => a - b);
  const rows = reportedTimes.map((reported, i) => {
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
  const made = await insertReturning<typeof incidents, { id: number }>(tx, incidents, rows, { id: incidents.id });
  await withConversations(tx, d.orgId, 'incident', d.slug);
  return { rows, made, reportedTimes };
}
type IncidentsMade = Awaited<ReturnType<typeof addIncidents>>;
type IncidentRow = IncidentsMade['rows'][number];
type CrewMember = { id: number; email: string };

/** Each incident's participants: commander, reporter and a few more; returns them by incident. */
async function addParticipants({ tx, o, rng }: Demo, { rows, made }: IncidentsMade, emails: string[]) {
  const participantRows: (typeof incidentParticipants.$inferInsert)[] = [];
  for (const [i, inc] of made.entries()) {
    const row = rows[i]!;
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
    tx,
    incidentParticipants,
    participantRows,
    {
      id: incidentParticipants.id,
      incident_id: incidentParticipants.incident_id,
      email: incidentParticipants.email,
    },
  );
  const crewOf = new Map<number, CrewMember[]>();
  for (const p of participants) crewOf.set(p.incident_id, [...(crewOf.get(p.incident_id) ?? []), p]);
  return crewOf;
}

/** The rows an incident's activity adds up to, gathered over all incidents and inserted by the hundred. */
interface ActivityRows {
  roleRows: (typeof incidentRoles.$inferInsert)[];
  eventRows: (typeof events.$inferInsert)[];
  commentRows: (typeof comments.$inferInsert)[];
  taskRows: (typeof tasks.$inferInsert)[];
  reportRows: (typeof reports.$inferInsert)[];
  costRows: (typeof incidentCosts.$inferInsert)[];
  feedbackRows: (typeof feedback.$inferInsert)[];
}
/** One incident as its activity helpers see it: its row, id, crew, and `at(f)`, the time a fraction f into it. */
interface IncidentScope {
  row: IncidentRow;
  id: number;
  crew: CrewMember[];
  reported: number;
  last: number;
  at: (f: number) => Date;
}

/** Participants and their roles, timelines, comments, tasks, reports, costs and feedback of every incident. */
async function addIncidentActivity(d: Demo, incidentsMade: IncidentsMade, { emails, ids }: { emails: string[]; ids: SettingIds }) {
  const { tx, end } = d;
  const crewOf = await addParticipants(d, incidentsMade, emails);
  const out: ActivityRows = { roleRows: [], eventRows: [], commentRows: [], taskRows: [], reportRows: [], costRows: [], feedbackRows: [] };
  const scopes: IncidentScope[] = [];
  for (const [i, inc] of incidentsMade.made.entries()) {
    const row = incidentsMade.rows[i]!;
    const reported = row.reported_at.getTime();
    const last = (row.closed_at ?? row.stable_at ?? new Date(Math.min(end, reported + 6 * HOUR))).getTime();
    const at = (f: number) => new Date(reported + (last - reported) * f);
    const s: IncidentScope = { row, id: inc.id, crew: crewOf.get(inc.id)!, reported, last, at };
    scopes.push(s);
    incidentRolesOf(d, s, out);
    incidentTimelineOf(d, s, out);
    incidentTasksOf(d, s, out);
    incidentReportsOf(d, s, ids, out);
    incidentCostOf(d, s, ids, out);
    incidentFeedbackOf(d, s, out);
  }
  await insertAll(tx, incidentRoles, out.roleRows);
  await insertAll(tx, events, out.eventRows);
  await insertAll(tx, comments, out.commentRows);
  await insertAll(tx, tasks, out.taskRows);
  await insertAll(tx, reports, out.reportRows);
  await insertAll(tx, incidentCosts, out.costRows);
  await insertAll(tx, feedback, out.feedbackRows);
  return { ...out, scopes };
}

/**
 * Each incident's conversation a thread by its crew, from the first stage of a response to the stage
 * the incident reached (a closed one's to its end), as people would have written it there.
 */
async function addConversationMessages({ tx, orgId, o, rng }: Demo, scopes: IncidentScope[]) {
  const conversationOf = new Map(
    (await tx.select({ id: incidents.id, conversation_id: incidents.conversation_id }).from(incidents).where(eq(incidents.organization_id, orgId))).map((r) => [
      r.id,
      r.conversation_id,
    ]),
  );
  const rows: (typeof conversationMessages.$inferInsert)[] = [];
  for (const { row, id, crew, at } of scopes) {
    const stages = row.status === 'Closed' ? CHAT.length : row.status === 'Stable' ? 3 : 2;
    const lines = CHAT.slice(0, stages).flatMap((stage) => stage.slice(0, rng.int(1, stage.length)));
    lines.forEach((text, n) =>
      rows.push({
        ...o,
        conversation_id: conversationOf.get(id)!,
        author_email: rng.pick(crew).email,
        text,
        // Spread over the incident, in the thread's order.
        created_at: at((n + 1) / (lines.length + 1)),
      }),
    );
  }
  await insertAll(tx, conversationMessages, rows);
  return rows;
}

function incidentRolesOf({ o, rng }: Demo, { row, id, crew }: IncidentScope, out: ActivityRows) {
  for (const p of crew) {
    const role =
      p.email === row.commander_email
        ? 'commander'
        : p.email === row.reporter_email
          ? 'reporter'
          : rng.weighted(['participant', 'scribe', 'liaison', 'observer'] as const, [6, 2, 1, 1]);
    out.roleRows.push({ ...o, incident_id: id, participant_id: p.id, role, assumed_at: row.reported_at });
    if (p.email === row.commander_email && p.email === row.reporter_email)
      out.roleRows.push({ ...o, incident_id: id, participant_id: p.id, role: 'reporter', assumed_at: row.reported_at });
  }
}

/** Created, joined, a few notes (some also as comments), then stable and closed. */
function incidentTimelineOf({ o, rng }: Demo, { row, id, crew, at }: IncidentScope, out: ActivityRows) {
  const event = (started_at: Date, type: string, description: string, owner: string) =>
    out.eventRows.push({ ...o, incident_id: id, started_at, type, source: 'Incident Participant', description, owner });
  event(row.reported_at, 'Other', `Incident ${row.name} created by ${row.reporter_email}`, row.reporter_email);
  for (const p of crew.slice(2)) event(at(rng.next() * 0.3), 'Participant updated', `${p.email} joined the incident`, p.email);
  for (let k = rng.int(2, 6); k > 0; k--) {
    const who = rng.pick(crew).email;
    event(at(rng.next()), 'Custom event', rng.pick(NOTES), who);
    if (rng.chance(0.5)) out.commentRows.push({ ...o, incident_id: id, author_email: who, text: rng.pick(NOTES), created_at: at(rng.next()) });
  }
  if (row.stable_at) event(row.stable_at, 'Other', `Incident marked as stable by ${row.commander_email}`, row.commander_email);
  if (row.closed_at) event(row.closed_at, 'Other', `Incident marked as closed by ${row.commander_email}`, row.commander_email);
}

function incidentTasksOf({ o, rng, end }: Demo, { row, id, crew, at }: IncidentScope, out: ActivityRows) {
  for (let k = rng.int(0, 3); k > 0; k--) {
    const created = at(rng.next() * 0.8);
    const resolved = row.status === 'Closed' && rng.chance(0.7) ? new Date(Math.min(end, created.getTime() + rng.int(2, 240) * HOUR)) : null;
    const owner = rng.pick(crew).email;
    out.taskRows.push({
      ...o,
      project_id: row.project_id,
      incident_id: id,
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
}

/** Most incidents a tactical report; critical and high ones also an executive one. */
function incidentReportsOf({ o, rng }: Demo, { row, id, at }: IncidentScope, { iPriorities }: SettingIds, out: ActivityRows) {
  if (rng.chance(0.7))
    out.reportRows.push({
      ...o,
      incident_id: id,
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
    out.reportRows.push({
      ...o,
      incident_id: id,
      type: 'executive',
      author_email: row.commander_email,
      created_at: at(0.6),
      details: { current_status: row.status, overview: row.description, next_steps: rng.pick(TASKS) },
    });
  }
}

/** The response cost: a quarter of each participant's hours at a $50,000 yearly salary. */
function incidentCostOf({ o }: Demo, { id, crew, reported, last }: IncidentScope, { responseCost }: SettingIds, out: ActivityRows) {
  const hours = ((last - reported) / HOUR) * crew.length * 0.25;
  out.costRows.push({
    ...o,
    incident_id: id,
    incident_cost_type_id: responseCost?.id ?? null,
    kind: 'response',
    amount: Math.round(hours * (50000 / 2080) * 100) / 100,
    details: { participants: crew.length, hours: Math.round(hours * 10) / 10 },
    updated_at: new Date(last),
  });
}

/** About a third of a closed incident's participants rate it. */
function incidentFeedbackOf({ o, rng }: Demo, { row, id, crew }: IncidentScope, out: ActivityRows) {
  if (row.status !== 'Closed') return;
  for (const p of crew) {
    if (!rng.chance(0.35)) continue;
    out.feedbackRows.push({
      ...o,
      project_id: row.project_id,
      incident_id: id,
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

/** Cases: security and support work; some escalated to the incident reported right after them. */
async function addCases(
  d: Demo,
  count: number,
  refs: { emails: string[]; projectByName: Record<string, number>; ids: SettingIds; incidentsMade: IncidentsMade },
) {
  const { tx, o, rng, start, end } = d;
  const { emails, projectByName, incidentsMade } = refs;
  const { cTypes, cPriorities, cSeverities } = refs.ids;
  const firstCase = await reserveNumbers(d, 'case', count);
  const caseTimes = Array.from({ length: count }, () => start + rng.next() * (end - start - HOUR)).sort((a, b) => a - b);
  const rows = caseTimes.map((reported, i) => {
    const age = end - reported;
    const escalated = rng.chance(0.12) ? incidentsMade.made[incidentsMade.reportedTimes.findIndex((t) => t >= reported)] : undefined;
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
  const made = await insertReturning<typeof cases, { id: number }>(tx, cases, rows, { id: cases.id });
  await withConversations(tx, d.orgId, 'case', d.slug);
  return { rows, made };
}
type CasesMade = Awaited<ReturnType<typeof addCases>>;

/** A case's timeline (created, triaged, closed) and, for about a third of them, a task. */
async function addCaseActivity({ tx, o, rng }: Demo, { rows, made }: CasesMade) {
  const caseEvents = made.flatMap((c, i) => {
    const row = rows[i]!;
    const event = (started_at: Date, description: string, owner: string): typeof events.$inferInsert => ({
      ...o,
      case_id: c.id,
      started_at,
      type: 'Other',
      source: 'Case Participant',
      description,
      owner,
    });
    const list = [event(row.reported_at, `Case ${row.name} created by ${row.reporter_email}`, row.reporter_email)];
    if (row.triage_at) list.push(event(row.triage_at, `Case status changed from New to Triage by ${row.assignee_email}`, row.assignee_email));
    if (row.closed_at) list.push(event(row.closed_at, `Case status changed from Triage to Closed by ${row.assignee_email}`, row.assignee_email));
    return list;
  });
  await insertAll(tx, events, caseEvents);
  const caseTasks = made.flatMap((c, i) =>
    rng.chance(0.3)
      ? [
          {
            ...o,
            project_id: rows[i]!.project_id,
            case_id: c.id,
            description: rng.pick(TASKS),
            status: rows[i]!.closed_at ? ('Resolved' as const) : ('Open' as const),
            owner_email: rows[i]!.assignee_email,
            creator_email: rows[i]!.assignee_email,
            resolved_at: rows[i]!.closed_at,
            created_at: rows[i]!.reported_at,
          },
        ]
      : [],
  );
  await insertAll(tx, tasks, caseTasks);
  return { events: caseEvents, tasks: caseTasks };
}

/** On-call effort feedback on the services, by the individuals. */
async function addServiceFeedback({ tx, o, rng, start, end }: Demo, madeServices: { id: number }[], madeIndividuals: { id: number }[]) {
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
  await insertAll(tx, serviceFeedback, serviceFeedbackRows);
}

/** A data catalog: source types, statuses and environments, the sources, and a few queries each. */
async function addDataCatalog({ tx, o, rng, start, end }: Demo, emails: string[]) {
  const attr = async (table: typeof sourceTypes, names: string[]) =>
    insertReturning<typeof sourceTypes, { id: number }>(
      tx,
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
  const madeSources = await insertReturning<typeof sources, { id: number; name: string }>(tx, sources, sourceRows, { id: sources.id, name: sources.name });
  await insertAll(
    tx,
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
  return madeSources;
}

/** Runbooks as documents, and the same runbooks uploaded to chat in their projects (indexed once committed). */
async function addRunbooks({ tx, orgId, o }: Demo, projectByName: Record<string, number>, uploader: number | null) {
  await insertAll(
    tx,
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
  const uploaded = await insertReturning<typeof submissions, { id: number; file_name: string }>(
    tx,
    submissions,
    RUNBOOKS.map((r) => ({
      ...o,
      project_id: projectByName[r.project] ?? projectByName.Default!,
      kind: 'file' as const,
      title: r.title,
      file_name: r.file,
      file_type: 'text/markdown',
      size_bytes: Buffer.byteLength(r.text),
      sensitivity_level: 'internal' as const,
      created_by: uploader,
    })),
    { id: submissions.id, file_name: submissions.file_name },
  );
  // Their text as stored uploads are: one part each (a runbook is far under a part's megabyte).
  await tx
    .insert(submissionParts)
    .values(
      uploaded.map((u) => ({ organization_id: orgId, submission_id: u.id, seq: 0, data: Buffer.from(RUNBOOKS.find((r) => r.file === u.file_name)!.text) })),
    );
  return uploaded;
}
