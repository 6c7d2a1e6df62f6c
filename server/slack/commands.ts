import { and, desc, eq, sql } from 'drizzle-orm';
import type { RequestContext } from '../core/context.js';
import { HttpError } from '../core/errors.js';
import type { Mail } from '../core/mail.js';
import { incidentScope, loadIncident } from '../incidents/scope.js';
import { createReport } from '../incidents/actions.js';
import { giveRole, joinIncident, setIncidentStatus, subscribeIncident, updateIncident } from '../incidents/lifecycle.js';
import { incidentPriorities, incidentSeverities } from '../incidents/settings-tables.js';
import { CASE_STATUSES, cases } from '../cases/tables.js';
import { casePriorities, caseSeverities } from '../cases/settings-tables.js';
import { loadCase } from '../cases/scope.js';
import { incidents, INCIDENT_ROLES, INCIDENT_STATUSES } from '../incidents/tables.js';
import { escalateCase, updateCase } from '../cases/service.js';
import { createTask } from '../tasks/service.js';
import { casePage, incidentPage } from './card.js';

/** The record whose channel a command was typed in: an incident's or a case's (or neither). */
export interface Here {
  incidentId: number | null;
  caseId: number | null;
}

/** What a subcommand is given: the member's transaction, the channel's incident or case, the words after it. */
interface Command extends Here {
  ctx: RequestContext;
  args: string[];
  rest: string;
  email: string;
  publicUrl: string;
  /** Mail to send once the command's work has committed (a report's, to the incident's subscribers, as the web app does). */
  mails: Mail[];
}

export const HELP = [
  '*/firewatch* runs incidents and cases from Slack; in an incident’s or a case’s channel, commands act on it:',
  '• `declare`: declare an incident (a dialog)',
  '• `status`: this channel’s incident or case, or the active incidents',
  '• `update severity|priority|status <value>` (incidents and cases)',
  '• `assign <role> <email>` or `take <role>` (roles: ' + INCIDENT_ROLES.join(', ') + '); in a case’s channel `assign <email>` or `take` makes the assignee',
  '• `task <what needs doing>` (incidents and cases)',
  '• `join`, `subscribe` (incidents)',
  '• `report tactical <conditions> | <actions> | <needs>` or `report executive <status> | <overview> | <next steps>` (incidents)',
  '• `stable`, `close` (incidents and cases)',
  '• `escalate`: in a case’s channel, makes the case an incident; elsewhere `escalate <case name, e.g. CAS-12>`',
].join('\n');

const needIncident = (c: Command) => {
  if (c.incidentId !== null) return c.incidentId;
  const msg =
    c.caseId !== null ? 'This is a case’s channel; this works on incidents (say `escalate` to make the case one).' : 'Run this in an incident’s channel.';
  throw new HttpError(409, [{ msg, loc: [], type: 'conflict' }]);
};

async function status(c: Command) {
  if (c.caseId !== null) {
    const k = await loadCase(c.ctx, c.caseId);
    return `*${k.name}: ${k.title}*\nStatus: ${k.status} · Assignee: ${k.assignee_email ?? 'none'}\n${casePage(c.publicUrl, c.ctx.orgSlug, k.name)}`;
  }
  if (c.incidentId !== null) {
    const i = await loadIncident(c.ctx, c.incidentId);
    return `*${i.name}: ${i.title}*\nStatus: ${i.status} · Commander: ${i.commander_email ?? 'none'}\n${incidentPage(c.publicUrl, c.ctx.orgSlug, i.name)}`;
  }
  const active = await c.ctx.tx
    .select({ name: incidents.name, title: incidents.title, commander: incidents.commander_email })
    .from(incidents)
    .where(and(incidentScope(c.ctx), eq(incidents.status, 'Active')))
    .orderBy(desc(incidents.reported_at))
    .limit(10);
  return active.length ? active.map((i) => `• ${i.name}: ${i.title} (commander ${i.commander ?? 'none'})`).join('\n') : 'No active incidents.';
}

/** A setting (severity, priority) by its name, case-insensitive. */
async function settingId(
  c: Command,
  table: typeof incidentSeverities | typeof incidentPriorities | typeof caseSeverities | typeof casePriorities,
  label: string,
  name: string,
) {
  const t = table as typeof incidentSeverities;
  const [row] = await c.ctx.tx
    .select({ id: t.id })
    .from(t)
    .where(and(eq(t.organization_id, c.ctx.orgId), sql`lower(${t.name}) = lower(${name})`));
  if (!row) throw new HttpError(422, [{ msg: `There is no ${label} called '${name}'.`, loc: [], type: 'not_found' }]);
  return row.id;
}

const UPDATE_USAGE = 'Say `update severity <name>`, `update priority <name>` or `update status <status>`.';

/** A case's status (as its page sets it: escalating is `escalate`). */
async function setCaseStatus(c: Command, caseId: number, value: string) {
  const wanted = CASE_STATUSES.find((s) => s.toLowerCase() === value.toLowerCase() && s !== 'Escalated');
  if (!wanted) return `A case's status is one of ${CASE_STATUSES.filter((s) => s !== 'Escalated').join(', ')} (say \`escalate\` to make it an incident).`;
  await updateCase(c.ctx, caseId, { status: wanted });
  return `The case's status is now ${wanted}.`;
}

async function updateACase(c: Command, caseId: number, field: string | undefined, value: string) {
  if (field === 'status') return setCaseStatus(c, caseId, value);
  if (field === 'severity') await updateCase(c.ctx, caseId, { case_severity_id: await settingId(c, caseSeverities, 'case severity', value) });
  else if (field === 'priority') await updateCase(c.ctx, caseId, { case_priority_id: await settingId(c, casePriorities, 'case priority', value) });
  else return UPDATE_USAGE;
  return `The case's ${field} is now ${value}.`;
}

async function update(c: Command) {
  const [field, ...words] = c.args;
  const value = words.join(' ');
  if (c.caseId !== null) return updateACase(c, c.caseId, field, value);
  const id = needIncident(c);
  if (field === 'status') {
    const wanted = INCIDENT_STATUSES.find((s) => s.toLowerCase() === value.toLowerCase());
    if (!wanted) return `Status is one of ${INCIDENT_STATUSES.join(', ')}.`;
    return setIncidentStatus(c.ctx, id, wanted);
  }
  if (field === 'severity') await updateIncident(c.ctx, id, { incident_severity_id: await settingId(c, incidentSeverities, 'severity', value) });
  else if (field === 'priority') await updateIncident(c.ctx, id, { incident_priority_id: await settingId(c, incidentPriorities, 'priority', value) });
  else return UPDATE_USAGE;
  return `The ${field} is now ${value}.`;
}

const mailtoOf = (word: string | undefined) => word?.replace(/^<mailto:([^|>]+)\|?.*>$/, '$1');

/** A case has one assignee: `assign <email>`, or `take` for oneself. */
async function assignCase(c: Command, caseId: number, self: boolean) {
  const who = self ? c.email : mailtoOf(c.args[0]);
  if (!who?.includes('@')) return 'Say `assign <email>` or `take`.';
  await updateCase(c.ctx, caseId, { assignee_email: who });
  return `${who} is now the case's assignee.`;
}

async function assign(c: Command, self: boolean) {
  if (c.caseId !== null) return assignCase(c, c.caseId, self);
  const id = needIncident(c);
  const role = INCIDENT_ROLES.find((r) => r === c.args[0]?.toLowerCase());
  const who = self ? c.email : mailtoOf(c.args[1]);
  if (!role || !who) return `Say \`${self ? 'take <role>' : 'assign <role> <email>'}\`; roles: ${INCIDENT_ROLES.join(', ')}.`;
  const added = await giveRole(c.ctx, id, who, role);
  return added ? `${who} is now ${role}.` : `${who} already holds the ${role} role.`;
}

/**
 * A tactical or executive report, as the web app's: the same service (the report, its timeline event,
 * report.created for notifications and the channel), the same fields required, and its mail to the
 * incident's subscribers sent after commit.
 */
async function report(c: Command) {
  const id = needIncident(c);
  const [kind] = c.args;
  const usage = 'Say `report tactical <conditions> | <actions> | <needs>` or `report executive <status> | <overview> | <next steps>`.';
  if (kind !== 'tactical' && kind !== 'executive') return usage;
  // The words after `report <kind>`, split at |.
  const [first = '', second = '', third = ''] = c.rest
    .replace(/^\S+\s+\S+\s*/, '')
    .split('|')
    .map((p) => p.trim());
  // The web app's rules (createReport checks them); a missing first field is named in the command's words.
  const body = kind === 'tactical' ? { conditions: first, actions: second, needs: third } : { current_status: first, overview: second, next_steps: third };
  const made = await createReport(c.ctx, id, kind, body).catch((err: unknown) => {
    if (err instanceof HttpError && err.statusCode === 422) return `The ${kind === 'tactical' ? 'conditions are' : 'current status is'} needed. ${usage}`;
    throw err;
  });
  if (typeof made === 'string') return made;
  const { mails } = made;
  c.mails.push(...mails);
  const mailed = mails.length ? `, e-mailed to its ${mails.length} subscriber${mails.length === 1 ? '' : 's'}` : '';
  return `${kind === 'tactical' ? 'Tactical' : 'Executive'} report saved on the timeline${mailed}; it is posted in the channel.`;
}

async function escalate(c: Command) {
  if (c.caseId !== null && !c.args[0]) {
    const k = await loadCase(c.ctx, c.caseId);
    await escalateCase(c.ctx, k.id);
    return `Case ${k.name} escalated to an incident; its channel follows.`;
  }
  const [c0] = await c.ctx.tx
    .select({ id: cases.id })
    .from(cases)
    .where(and(eq(cases.organization_id, c.ctx.orgId), sql`lower(${cases.name}) = lower(${c.args[0] ?? ''})`));
  if (!c0) return `There is no case called '${c.args[0] ?? ''}'.`;
  await escalateCase(c.ctx, c0.id);
  return `Case ${c.args[0]} escalated to an incident; its channel follows.`;
}

const HANDLERS: Record<string, (c: Command) => Promise<string>> = {
  help: async () => HELP,
  status,
  update,
  assign: (c) => assign(c, false),
  take: (c) => assign(c, true),
  task: async (c) => {
    // On the record, if the member may see it (as the web app's task form checks).
    const on = c.caseId !== null ? { case_id: (await loadCase(c.ctx, c.caseId)).id } : { incident_id: (await loadIncident(c.ctx, needIncident(c))).id };
    await createTask(c.ctx, { ...on, description: c.rest.replace(/^\S+\s*/, '') || 'Task from Slack' });
    return 'Task added.';
  },
  join: (c) => joinIncident(c.ctx, needIncident(c)),
  subscribe: (c) => subscribeIncident(c.ctx, needIncident(c)),
  report,
  stable: (c) => (c.caseId !== null ? setCaseStatus(c, c.caseId, 'Stable') : setIncidentStatus(c.ctx, needIncident(c), 'Stable')),
  close: (c) => (c.caseId !== null ? setCaseStatus(c, c.caseId, 'Closed') : setIncidentStatus(c.ctx, needIncident(c), 'Closed')),
  escalate,
};

/** Runs a subcommand as the member (a refusal throws HttpError, in the web app's words). */
export function runSubcommand(ctx: RequestContext, o: Omit<Command, 'ctx' | 'args'> & { name: string }) {
  const handler = HANDLERS[o.name] ?? (async () => `I don't know \`${o.name}\`.\n${HELP}`);
  return handler({ ...o, ctx, args: o.rest.split(/\s+/).filter(Boolean).slice(1) });
}
