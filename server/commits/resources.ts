import { z } from 'zod';
import { bodyOf } from '../engine/body.js';
import { commits } from './tables.js';
import { datetime, fieldsOf, stampFlags } from '../engine/definition-kit.js';
import { defineResource } from '../engine/define.js';
import { requiredText, text, url } from '../engine/fields.js';

export const commitResource = defineResource({
  model: 'Commit',
  label: 'Commit',
  path: '/commits',
  table: commits,
  create: bodyOf(commits, {
    commit_id: requiredText(200),
    commit_message: text(20_000),
    commit_author: text(200),
    commit_date: datetime(),
    repository_url: url(),
    repository_name: text(200),
    repository_branch: text(200),
    source: z.string().trim().min(1).max(100).optional(),
    sync_completed_at: datetime(),
  }),
  pageSize: 25,
  sort: [['commit_date', 'desc']],
  search: ['commit_id', 'commit_message', 'commit_author', 'repository_name'],
  fields: fieldsOf(commits),
  references: { project_id: 'Project' },
  hooks: stampFlags(commits, { sync_completed: 'sync_completed_at' }),
});
