import { z } from 'zod';
import { sitePages, SITE_PAGE_KINDS } from './tables.js';
import { bodyOf } from '../engine/body.js';
import { defineResource } from '../engine/define.js';
import { flag, requiredText } from '../engine/fields.js';

/** The public pages' content: anyone signed in reads it here, only the Owner writes it. */
export const sitePageResource = defineResource({
  model: 'SitePage',
  label: 'Public page',
  fieldMeta: {
    kind: { label: 'Page', help: 'Terms of service, privacy policy and FAQ show their latest published entry; blog shows every published post.' },
    body: { help: 'Plain text; a blank line starts a new paragraph.' },
  },
  path: '/site/pages',
  table: sitePages,
  create: bodyOf(sitePages, {
    kind: z.enum(SITE_PAGE_KINDS, 'Must be one of terms, privacy, faq, blog'),
    title: requiredText(200),
    body: z.string().max(100_000).optional(),
    published: flag().optional(),
  }),
  pageSize: 25,
  sort: [['created_at', 'desc']],
  search: ['title'],
  fields: ['kind', 'title', 'body', 'published', 'created_at', 'updated_at'],
  writeRole: 'Owner',
});
