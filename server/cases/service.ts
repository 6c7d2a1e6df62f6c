import { z } from 'zod';
import { and, asc, eq, getTableColumns, SQL, sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { rowsOf } from '../core/db/client.js';
import { caseParticipants, cases, caseTags, type CASE_STATUSES } from './tables.js';
import { conversations, events } from '../timeline/tables.js';
import { incidents, nameCounters } from '../incidents/tables.js';
import { casePriorities, caseSeverities, caseTypes } from './settings-tables.js';
import { restrictedTypes, withDefaults } from '../incidents/defaults.js';
import { httpError } from '../core/errors.js';
import type { RequestContext } from '../core/context.js';
import { summarize } from '../incidents/ai.js';
import { BACKGROUND_LANE, defineJob, enqueueJobs, NotReady } from '../core/jobs/define.js';
import { addEvent, type NewEvent } from '../timeline/events.js';
import { caseTextsReader, loadCase } from './scope.js';
import { actorOf, callerEmail } from '../core/caller.js';
import { LIVE_CHANNEL } from '../live/changes.js';
import { checkTags, createIncident } from '../incidents/lifecycle.js';
import type { IncidentRow } from '../incidents/scope.js';
import { publish, publishMany } from '../core/events.js';
import type { CaseInput } from './bodies.js';

type CaseStatus = (typeof CASE_STATUSES)[number];

/** The timestamp each status sets. */
const STATUS_TIMESTAMP: Partial<Record<CaseStatus, 'triage_at' | 'escalated_at' | 'stable_at' | 'closed_at'>> = {
  Triage: 'triage_at',
  Escalated: 'escalated_at',
  Stable: 'stable_at',
  Closed: 'closed_at',
};

export type { CaseInput };

async function setCaseTags(ctx: RequestContext, caseId: number, tagIds: number[]) {
  await checkTags(ctx, tagIds);
  await ctx.tx.delete(caseTags).where(and(eq(caseTags.organization_id, ctx.orgId), eq(caseTags.case_id, caseId)));
  if (tagIds.length) await ctx.tx.insert(caseTags).values([...new Set(tagIds)].map((tag_id) => ({ organization_id: ctx.orgId, case_id: caseId, tag_id })));
}

async function setCaseParticipants(ctx: RequestContext, caseId: number, emails: string[]) {
  await ctx.tx.delete(caseParticipants).where(and(eq(caseParticipants.organization_id, ctx.orgId), eq(caseParticipants.case_id, caseId)));
  if (emails.length)
    await ctx.tx.insert(caseParticipants).values([...new Set(emails)].map((email) => ({ organization_id: ctx.orgId, case_id: caseId, email })));
}

const stamp = (status: CaseStatus) => {
  const column = STATUS_TIMESTAMP[status];
  // Leaving Closed (reopening) clears closed_at.
  return { status, ...(column ? { [column]: sql`now()` } : {}), ...(status !== 'Closed' ? { closed_at: null } : {}) };
};

/** A case to create, and the timeline entries that follow its "created" one (where it came from). */
export type NewCase = CaseInput & {
  timeline?: Pick<NewEvent, 'source' | 'description' | 'details'>[];
  /** Who the timeline says created it when not the caller (a signal definition). */
  created_by?: string;
  /** Its id, drawn beforehand with caseIds (rows that point at it written before it exists, in the same transaction). */
  id?: number;
};

/**
 * Ids for cases about to be created (createCases with `id`), from the cases' own identity sequence: a
 * caller can write what points at them first, and take the organization's case-number counter, held
 * until its commit, only for the cases themselves.
 */
export async function caseIds(ctx: RequestContext, n: number): Promise<number[]> {
  if (!n) return [];
  return rowsOf<{ id: number }>(
    await ctx.tx.execute(sql`select nextval(pg_get_serial_sequence('cases', 'id'))::int as id from generate_series(1, ${n}) order by 1`),
  ).map((r) => r.id);
}

/** Column names of the cases table by their field names (for insertCaseRows). */
const CASE_COLUMNS = new Map(Object.entries(getTableColumns(cases)).map(([key, column]) => [key, column.name]));
const dialect = new PgDialect();

/**
 * Case rows inserted with one JSON parameter however many (jsonb_populate_recordset over the table's
 * own row type): a VALUES list of 500 cases was 12,000 parameters to build, send, parse and plan, 4 to 6
 * times the cost of the rows themselves. Rows are inserted per set of fields given, so a field left
 * out keeps its column default; a field set to SQL (a status stamp's now()) is that expression.
 */
async function insertCaseRows(ctx: RequestContext, rows: Record<string, unknown>[]): Promise<{ id: number; name: string }[]> {
  const bySet = new Map<string, { fields: string[]; expressions: Map<string, SQL>; json: Record<string, unknown>[] }>();
  for (const row of rows) {
    const fields = Object.keys(row)
      .filter((k) => row[k] !== undefined)
      .sort();
    const expressions = new Map(fields.filter((k) => row[k] instanceof SQL).map((k) => [k, row[k] as SQL]));
    const key = JSON.stringify(fields.map((k) => (expressions.has(k) ? [k, dialect.sqlToQuery(expressions.get(k)!)] : k)));
    const set = bySet.get(key) ?? { fields, expressions, json: [] };
    set.json.push(Object.fromEntries(fields.filter((k) => !expressions.has(k)).map((k) => [CASE_COLUMNS.get(k) ?? k, row[k]])));
    bySet.set(key, set);
  }
  const inserted: { id: number; name: string }[] = [];
  for (const { fields, expressions, json } of bySet.values()) {
    const column = (k: string) => sql.identifier(CASE_COLUMNS.get(k) ?? k);
    inserted.push(
      ...rowsOf<{ id: number; name: string }>(
        await ctx.tx.execute(sql`insert into ${cases} (${sql.join(fields.map(column), sql`, `)}) ${fields.includes('id') ? sql`overriding system value` : sql``}
          select ${sql.join(
            fields.map((k) => expressions.get(k) ?? sql`r.${column(k)}`),
            sql`, `,
          )}
          from jsonb_populate_recordset(null::${cases}, ${JSON.stringify(json)}::jsonb) as r
          returning id, name`),
      ),
    );
  }
  return inserted;
}

/**
 * Creates the cases in one go (a processing batch of signals opens hundreds): settings defaults read
 * once per project and set of fields left out, the counter row taken once for all their numbers, one
 * insert each for the cases, their tags, participants and timeline entries, their provisioning jobs
 * in one insert. Returns the ids in the order given.
 */
export async function createCases(ctx: RequestContext, inputs: NewCase[]): Promise<number[]> {
  if (!inputs.length) return [];
  const me = await callerEmail(ctx);
  const defaults = new Map<string, Pick<CaseInput, 'case_type_id' | 'case_priority_id' | 'case_severity_id'>>();
  const filled: NewCase[] = [];
  for (const given of inputs) {
    const settings = { case_type_id: given.case_type_id, case_priority_id: given.case_priority_id, case_severity_id: given.case_severity_id };
    const key = JSON.stringify([given.project_id, settings]);
    if (!defaults.has(key))
      defaults.set(
        key,
        await withDefaults(ctx, settings, { case_type_id: caseTypes, case_priority_id: casePriorities, case_severity_id: caseSeverities }, given.project_id),
      );
    filled.push({ ...given, ...defaults.get(key) });
  }
  const restricted = await restrictedTypes(
    ctx,
    caseTypes,
    filled.map((c) => c.case_type_id),
  );
  for (const c of filled) if (c.case_type_id != null && restricted.has(c.case_type_id)) c.visibility = 'Restricted';
  await checkTags(ctx, [...new Set(filled.flatMap((c) => c.tags ?? []))]);
  const first = (await reserveNumbers(ctx, 'case', filled.length)) - filled.length + 1;
  const nameOf = (i: number) => `OCO-${first + i}`;
  const rows = await insertCaseRows(
    ctx,
    filled.map(({ tags: _tags, participants: _participants, timeline: _timeline, created_by: _by, status = 'New', ...columns }, i) => ({
      ...columns,
      reporter_email: columns.reporter_email ?? me,
      organization_id: ctx.orgId,
      name: nameOf(i),
      ...stamp(status),
    })),
  );
  const idOf = new Map(rows.map((r) => [r.name, r.id]));
  const ids = filled.map((_, i) => idOf.get(nameOf(i))!);
  const tagRows = filled.flatMap((c, i) => [...new Set(c.tags ?? [])].map((tag_id) => ({ organization_id: ctx.orgId, case_id: ids[i]!, tag_id })));
  if (tagRows.length) await ctx.tx.insert(caseTags).values(tagRows);
  const people = filled.flatMap((c, i) => [...new Set(c.participants ?? [])].map((email) => ({ organization_id: ctx.orgId, case_id: ids[i]!, email })));
  if (people.length) await ctx.tx.insert(caseParticipants).values(people);
  const timeline = filled.flatMap((c, i) => [
    {
      case_id: ids[i]!,
      source: 'Case Participant',
      description: `Case ${nameOf(i)} created by ${c.created_by ?? me ?? 'an API key'}`,
      owner: me,
      details: null,
    },
    ...(c.timeline ?? []).map((e) => ({
      case_id: ids[i]!,
      source: e.source ?? 'Firewatch',
      description: e.description,
      owner: null,
      details: e.details ?? null,
    })),
  ]);
  await ctx.tx.execute(sql`insert into events (organization_id, case_id, type, source, description, owner, details)
    select ${ctx.orgId}, r.case_id, 'Other', r.source, r.description, r.owner, r.details
    from jsonb_to_recordset(${JSON.stringify(timeline)}::jsonb) as r(case_id int, source text, description text, owner text, details jsonb)`);
  // Each case's open pages hear of it at commit (what addEvent's notifyChange sends, for all in one statement).
  const changes = ids.map((id) => JSON.stringify({ orgId: ctx.orgId, incident_id: null, case_id: id }));
  await ctx.tx.execute(sql`select pg_notify(${LIVE_CHANNEL}, c) from jsonb_array_elements_text(${JSON.stringify(changes)}::jsonb) as c`);
  await enqueueJobs(
    ctx,
    caseProvisionJob,
    ids.map((case_id) => ({ case_id })),
  );
  // One event for the batch: each subscriber reads its configuration once and queues in one insert.
  await publishMany(ctx, 'case.created', ids);
  return ids;
}

export async function createCase(ctx: RequestContext, given: CaseInput) {
  const [id] = await createCases(ctx, [given]);
  return id!;
}

/** Takes `n` numbers of the organization's `kind` counter at once; returns the last. */
async function reserveNumbers(ctx: RequestContext, kind: string, n: number): Promise<number> {
  const [row] = await ctx.tx
    .insert(nameCounters)
    .values({ organization_id: ctx.orgId, kind, value: n })
    .onConflictDoUpdate({ target: [nameCounters.organization_id, nameCounters.kind], set: { value: sql`${nameCounters.value} + ${n}` } })
    .returning({ value: nameCounters.value });
  return row!.value;
}

export async function updateCase(ctx: RequestContext, id: number, data: Partial<CaseInput>) {
  const current = await loadCase(ctx, id, true);
  const { tags: tagIds, participants, status, ...fields } = data;
  // As createCases: a retype to a Restricted type restricts the case; to an Open one changes nothing.
  if (
    fields.case_type_id != null &&
    fields.case_type_id !== current.case_type_id &&
    (await restrictedTypes(ctx, caseTypes, [fields.case_type_id])).has(fields.case_type_id)
  )
    fields.visibility = 'Restricted';
  const me = await callerEmail(ctx);
  const actor = await actorOf(ctx);
  const changed = Object.entries(fields).filter(
    ([k, v]) =>
      JSON.stringify(v instanceof Date ? v.toISOString() : v) !==
      JSON.stringify(
        (current as Record<string, unknown>)[k] instanceof Date
          ? ((current as Record<string, unknown>)[k] as Date).toISOString()
          : (current as Record<string, unknown>)[k],
      ),
  );
  const statusChanged = status !== undefined && status !== current.status;
  if (status === 'Escalated' && statusChanged && !current.incident_id)
    throw httpError(422, 'Use escalate to move a case to Escalated: it creates the incident.', 'value_error', ['body', 'status']);
  if (changed.length || statusChanged) {
    await ctx.tx
      .update(cases)
      .set({ ...Object.fromEntries(changed), ...(statusChanged ? stamp(status) : {}), updated_at: sql`now()` })
      .where(and(eq(cases.organization_id, ctx.orgId), eq(cases.id, id)));
  }
  for (const [k, v] of changed)
    await addEvent(ctx, {
      case_id: id,
      type: 'Field updated',
      source: 'Case Participant',
      description: `${k} changed by ${actor}`,
      owner: me,
      details: { field: k, to: v },
    });
  if (statusChanged)
    await addEvent(ctx, {
      case_id: id,
      type: 'Other',
      source: 'Case Participant',
      description: `Case status changed from ${current.status} to ${status} by ${actor}`,
      owner: me,
      details: { from: current.status, to: status },
    });
  if (tagIds) {
    await setCaseTags(ctx, id, tagIds);
    await addEvent(ctx, { case_id: id, type: 'Field updated', description: `Tags changed by ${actor}`, owner: me, details: { field: 'tags', to: tagIds } });
  }
  if (participants) {
    await setCaseParticipants(ctx, id, participants);
    await addEvent(ctx, { case_id: id, type: 'Participant updated', description: `Participants changed by ${actor}`, owner: me, details: { participants } });
  }
  if (changed.length || statusChanged || tagIds || participants) await publish(ctx, { type: 'case.updated', id });
  return true;
}

/** The incident type a case type escalates to (case_types.incident_type_id). */
export type IncidentTypeLookup = (ctx: RequestContext, caseTypeId: number) => Promise<number | null>;
let incidentTypeFor: IncidentTypeLookup = async (ctx, caseTypeId) => {
  const [row] = await ctx.tx
    .select({ id: caseTypes.incident_type_id })
    .from(caseTypes)
    .where(and(eq(caseTypes.organization_id, ctx.orgId), eq(caseTypes.id, caseTypeId)));
  return row?.id ?? null;
};
export function setIncidentTypeLookup(lookup: IncidentTypeLookup) {
  incidentTypeFor = lookup;
}

/**
 * Escalation: creates the incident (type from the case type), copies the case's tags and timeline,
 * links both and sets the case Escalated.
 */
export async function escalateCase(
  ctx: RequestContext,
  id: number,
  overrides: { incident_type_id?: number | null; incident_priority_id?: number | null; incident_severity_id?: number | null; title?: string } = {},
) {
  const c = await loadCase(ctx, id, true);
  if (c.incident_id) throw httpError(409, `Case ${c.name} has already been escalated.`, 'conflict');
  if (c.status === 'Closed') throw httpError(409, `Case ${c.name} is closed; reopen it before escalating.`, 'conflict');
  const tagRows = await ctx.tx
    .select({ tag_id: caseTags.tag_id })
    .from(caseTags)
    .where(and(eq(caseTags.organization_id, ctx.orgId), eq(caseTags.case_id, id)));
  const me = await callerEmail(ctx);
  const typeId = overrides.incident_type_id !== undefined ? overrides.incident_type_id : c.case_type_id ? await incidentTypeFor(ctx, c.case_type_id) : null;
  const incidentId = await createIncident(ctx, {
    title: overrides.title ?? c.title,
    description: c.description,
    project_id: c.project_id,
    visibility: c.visibility,
    // What neither the case nor the caller says is the organization's default.
    incident_type_id: typeId ?? undefined,
    incident_priority_id: overrides.incident_priority_id ?? undefined,
    incident_severity_id: overrides.incident_severity_id ?? undefined,
    reporter_email: me ?? c.reporter_email,
    commander_email: c.assignee_email ?? me,
    tags: tagRows.map((t) => t.tag_id),
  });
  // The case's history travels with it (copies, so the case keeps its own timeline).
  const history = await ctx.tx
    .select()
    .from(events)
    .where(and(eq(events.organization_id, ctx.orgId), eq(events.case_id, id)))
    .orderBy(asc(events.started_at), asc(events.id));
  if (history.length) {
    await ctx.tx.insert(events).values(
      history.map(({ id: _id, case_id: _c, created_at: _ca, updated_at: _ua, ...e }) => ({
        ...e,
        incident_id: incidentId,
        details: { ...(e.details ?? {}), copied_from_case: c.name },
      })),
    );
  }
  await ctx.tx
    .update(cases)
    .set({ incident_id: incidentId, ...stamp('Escalated'), updated_at: sql`now()` })
    .where(and(eq(cases.organization_id, ctx.orgId), eq(cases.id, id)));
  const [incident] = await ctx.tx
    .select({ name: incidents.name })
    .from(incidents)
    .where(and(eq(incidents.organization_id, ctx.orgId), eq(incidents.id, incidentId)));
  await addEvent(ctx, {
    case_id: id,
    type: 'Other',
    source: 'Case Participant',
    description: `Case escalated to incident ${incident!.name} by ${me ?? 'an API key'}`,
    owner: me,
    details: { incident_id: incidentId },
  });
  await addEvent(ctx, {
    incident_id: incidentId,
    type: 'Other',
    description: `Incident created by escalating case ${c.name}`,
    owner: me,
    details: { case_id: id },
  });
  await publish(ctx, { type: 'case.escalated', id, incident_id: incidentId });
  return incidentId;
}

/** "Probable cause" of a case through the AI layer's summarizer. */
export async function probableCause(ctx: RequestContext, id: number) {
  const c = await loadCase(ctx, id);
  const readText = await caseTextsReader(ctx, c.incident_id);
  const history = await ctx.tx
    .select({ description: events.description, details: events.details })
    .from(events)
    .where(and(eq(events.organization_id, ctx.orgId), eq(events.case_id, id)))
    .orderBy(asc(events.started_at));
  const texts = [
    c.title + '.',
    c.description ?? '',
    c.resolution ?? '',
    ...history.filter((e) => e.details?.field === undefined).map((e) => readText(e.description) + '.'),
  ];
  const result = await summarize({ config: ctx.config, subject: `probable cause of case ${c.name}`, texts, maxSentences: 2 });
  return { probable_cause: result.summary, method: result.method };
}

/** What else opens with a case's conversation, in the same transaction (a chat channel, when the case type asks). */
export type CaseConversationOpener = (ctx: RequestContext, c: typeof cases.$inferSelect, conversationId: number) => Promise<void>;
const caseConversationOpeners = new Set<CaseConversationOpener>();
export const onCaseConversationOpened = (opener: CaseConversationOpener) => void caseConversationOpeners.add(opener);

export const caseProvisionJob = defineJob({
  name: 'case.provision',
  lane: BACKGROUND_LANE,
  payload: z.object({ case_id: z.number().int() }),
  run: (data, job) =>
    job.tenant(async (ctx) => {
      const id = data.case_id as number;
      const [c] = await ctx.tx
        .select()
        .from(cases)
        .where(and(eq(cases.organization_id, ctx.orgId), eq(cases.id, id)))
        .for('update');
      if (!c) throw new NotReady();
      if (c.conversation_id) return;
      const [conversation] = await ctx.tx
        .insert(conversations)
        .values({ organization_id: ctx.orgId, case_id: id, name: `${c.name} ${c.title}`.slice(0, 200) })
        .returning();
      await ctx.tx
        .update(cases)
        .set({ conversation_id: conversation!.id })
        .where(and(eq(cases.organization_id, ctx.orgId), eq(cases.id, id)));
      await addEvent(ctx, { case_id: id, type: 'Resource updated', description: 'Conversation created' });
      for (const open of caseConversationOpeners) await open(ctx, c, conversation!.id);
    }),
});

/** Closing an incident closes the cases linked to it (registered with onIncidentClosed by the cases plugin). */
export async function closeLinkedCases(ctx: RequestContext, incident: IncidentRow) {
  const closed = await ctx.tx
    .update(cases)
    .set({ status: 'Closed', closed_at: sql`now()`, updated_at: sql`now()` })
    .where(and(eq(cases.organization_id, ctx.orgId), eq(cases.incident_id, incident.id), sql`${cases.status} <> 'Closed'`))
    .returning({ id: cases.id, name: cases.name });
  for (const c of closed) {
    await addEvent(ctx, { case_id: c.id, type: 'Other', description: `Case closed because incident ${incident.name} was closed` });
    await addEvent(ctx, { incident_id: incident.id, type: 'Other', description: `Linked case ${c.name} closed` });
  }
}
