import { bodyOf } from '../engine/body.js';
import { oncallHandoffs, oncallPreshiftPreps } from './tables.js';
import { datetime, fieldsOf, stampFlags } from '../engine/definition-kit.js';
import { defineResource } from '../engine/define.js';
import { requiredText, text } from '../engine/fields.js';

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
