import { randomBytes } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { invalid } from '../core/errors.js';
import { z } from 'zod';
import { bodyOf } from '../engine/body.js';
import { oncallEscalationPolicies, oncallHandoffs, oncallOverrides, oncallPages, oncallPreshiftPreps, oncallSchedules } from './tables.js';
import { datetime, fieldsOf, stampFlags } from '../engine/definition-kit.js';
import { defineResource } from '../engine/define.js';
import { email, ref, requiredRef, requiredText, text } from '../engine/fields.js';
import { isTimeZone, isWall } from './schedule-math.js';

const shift = { shift_type: text(100), location_type: text(100) };

export const handoffResource = defineResource({
  model: 'OncallHandoff',
  label: 'Handoff',
  path: '/oncall/handoffs',
  table: oncallHandoffs,
  create: bodyOf(oncallHandoffs, {
    handover_from: requiredText(200),
    handover_to: requiredText(200),
    start_time: datetime(),
    end_time: datetime(),
    ...shift,
    location_details: text(2000),
    critical_ongoing_issues: text(),
    tasks_completed: text(),
    pending_tasks: text(),
    mentions: text(),
    tools_and_access: text(),
    feedback: text(),
    handoff_completed_at: datetime(),
  }),
  pageSize: 25,
  sort: [['end_time', 'desc']],
  search: ['handover_from', 'handover_to', 'critical_ongoing_issues', 'pending_tasks'],
  fields: fieldsOf(oncallHandoffs),
  references: { project_id: 'Project' },
  hooks: stampFlags(oncallHandoffs, { handoff_completed: 'handoff_completed_at' }),
});

export const preshiftPrepResource = defineResource({
  model: 'OncallPreshiftPrep',
  label: 'Preshift prep',
  path: '/oncall/preshift_preps',
  table: oncallPreshiftPreps,
  create: bodyOf(oncallPreshiftPreps, {
    handover_to: requiredText(200),
    ...shift,
    sent_at: datetime(),
    accepted_at: datetime(),
    handshake_completed_at: datetime(),
  }),
  pageSize: 25,
  sort: [['sent_at', 'desc']],
  search: ['handover_to'],
  fields: fieldsOf(oncallPreshiftPreps),
  references: { project_id: 'Project' },
  hooks: stampFlags(oncallPreshiftPreps, { sent: 'sent_at', accepted: 'accepted_at', handshake_completed: 'handshake_completed_at' }),
});

const HHMM = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'A time like 09:00');
const wall = z.string().refine(isWall, 'A wall time like 2026-03-02T09:00');
const layerSchema = z
  .strictObject({
    name: requiredText(200),
    start: wall,
    rotation: z.enum(['daily', 'weekly', 'custom']),
    length: z.number().int().min(1).max(8760),
    members: z.array(email()).min(1).max(100),
    restrictions: z
      .array(z.strictObject({ days: z.array(z.number().int().min(1).max(7)).min(1).max(7), start: HHMM, end: HHMM }))
      .max(20)
      .optional(),
    end: wall.nullish(),
  })
  .refine((l) => !l.end || l.end > l.start, { message: 'A layer ends after it starts', path: ['end'] });
const targetSchema = z.union([
  z.strictObject({ type: z.enum(['schedule', 'team', 'team_all']), id: ref() }),
  z.strictObject({ type: z.literal('person'), email: email() }),
]);
const stepSchema = z.strictObject({ timeout_minutes: z.number().int().min(1).max(1440), targets: z.array(targetSchema).min(1).max(20) });
const timeZone = z.string().refine(isTimeZone, 'An IANA time zone like Europe/Berlin');

export const scheduleResource = defineResource({
  model: 'OncallSchedule',
  label: 'Schedule',
  path: '/oncall/schedules',
  table: oncallSchedules,
  create: bodyOf(oncallSchedules, {
    name: requiredText(200),
    description: text(5000),
    time_zone: timeZone.optional(),
    layers: z.array(layerSchema).max(20).optional(),
    prep_lead_minutes: z.number().int().min(0).max(10_080).optional(),
    feed_token: z.never().optional(),
    external_id: text(200),
  }),
  pageSize: 25,
  sort: [['name', 'asc']],
  search: ['name', 'description'],
  fields: fieldsOf(oncallSchedules, ['layers']),
  fieldMeta: { feed_token: { label: 'iCal feed secret', form: false, list: false }, layers: { label: 'Layers', list: false } },
  immutable: ['feed_token'],
  answerOnly: ['feed_token'],
  references: { project_id: 'Project' },
  hooks: { beforeCreate: (_ctx, data) => ({ ...data, feed_token: randomBytes(18).toString('base64url') }) },
});

function ordered(data: Record<string, unknown>) {
  if (data.start_at && data.end_at && new Date(data.end_at as string) <= new Date(data.start_at as string))
    throw invalid('An override ends after it starts.', ['body', 'end_at']);
  return data;
}

export const overrideResource = defineResource({
  model: 'OncallOverride',
  label: 'Override',
  path: '/oncall/overrides',
  table: oncallOverrides,
  create: bodyOf(oncallOverrides, {
    schedule_id: requiredRef(),
    email: email(),
    start_at: datetime().unwrap().unwrap(),
    end_at: datetime().unwrap().unwrap(),
    note: text(2000),
    external_id: text(200),
  }),
  pageSize: 25,
  sort: [['start_at', 'asc']],
  search: ['email', 'note'],
  fields: fieldsOf(oncallOverrides),
  references: { schedule_id: 'OncallSchedule' },
  hooks: {
    beforeCreate: (_ctx, data) => ordered(data),
    beforeUpdate: async (ctx, id, data) => {
      const [row] = await ctx.tx
        .select()
        .from(oncallOverrides)
        .where(and(eq(oncallOverrides.organization_id, ctx.orgId), eq(oncallOverrides.id, id)));
      ordered({ ...row, ...data });
      return data;
    },
  },
});

export const policyResource = defineResource({
  model: 'OncallEscalationPolicy',
  label: 'Escalation policy',
  labelPlural: 'Escalation policies',
  path: '/oncall/escalation_policies',
  table: oncallEscalationPolicies,
  create: bodyOf(oncallEscalationPolicies, {
    name: requiredText(200),
    description: text(5000),
    steps: z.array(stepSchema).min(1).max(20),
    repeat: z.number().int().min(0).max(9).optional(),
    external_id: text(200),
  }),
  pageSize: 25,
  sort: [['name', 'asc']],
  search: ['name', 'description'],
  fields: fieldsOf(oncallEscalationPolicies, ['steps']),
  references: { project_id: 'Project' },
});

export const pageResource = defineResource({
  model: 'OncallPage',
  label: 'Page',
  path: '/oncall/pages',
  table: oncallPages,
  create: bodyOf(oncallPages, {}),
  routes: { create: false, update: false, delete: false },
  pageSize: 25,
  sort: [['created_at', 'desc']],
  search: ['title', 'key'],
  fields: fieldsOf(oncallPages, ['steps']),
  // The list shows a page's state in place of its key and its external provider's fields.
  fieldMeta: { key: { list: false }, provider: { list: false }, plugin_instance_id: { list: false }, external_id: { list: false } },
  references: { project_id: 'Project', service_id: 'Service', incident_id: 'Incident', case_id: 'Case', escalation_policy_id: 'OncallEscalationPolicy' },
});
