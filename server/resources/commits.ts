import { z } from 'zod';
import { commits } from '../db/schema/index.js';
import { datetime, fieldsOf, projectField, stampFlags } from './common.js';
import { defineResource } from './define.js';
import { flag, requiredText, text, url } from './fields.js';
import { projectResource } from './projects.js';

export const commitResource = defineResource({
  model: 'Commit',
  label: 'Commit',
  path: '/commits',
  table: commits,
  create: z.strictObject({
    commit_id: requiredText(200),
    commit_message: text(20_000),
    commit_author: text(200),
    commit_date: datetime(),
    repository_url: url(),
    repository_name: text(200),
    repository_branch: text(200),
    source: z.string().trim().min(1).max(100).optional(),
    sync_completed: flag().optional(),
    sync_completed_at: datetime(),
    ...projectField,
  }),
  pageSize: 25,
  sort: [['commit_date', 'desc']],
  search: ['commit_id', 'commit_message', 'commit_author', 'repository_name'],
  fields: fieldsOf(commits),
  references: { project_id: () => projectResource },
  hooks: stampFlags(commits, { sync_completed: 'sync_completed_at' }),
});
