import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Executor } from '../core/db/client.js';
import { curatedContent, curatedEngagements } from './tables.js';
import { defineResource } from '../engine/define.js';
import { requiredText, url } from '../engine/fields.js';
import { rowsOf } from '../core/db/client.js';

export const DEFAULT_PLATFORM = 'linkedin';
const platform = () =>
  z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^[a-z0-9_-]{1,40}$/, 'Must be a platform name like linkedin');

/** Curated content items, managed on admin/content_manager (Admins write, members read). */
export const curatedContentResource = defineResource({
  model: 'CuratedContent',
  label: 'Curated content item',
  path: '/curated_content',
  table: curatedContent,
  create: z.strictObject({ text: requiredText(5000), link: url(), platform: platform().optional() }),
  pageSize: 10,
  sort: [['created_at', 'desc']],
  search: ['text', 'link'],
  fields: ['platform', 'text', 'link', 'created_at', 'engagement_count', 'last_engaged_at'],
  immutable: [],
  writeRole: 'Admin',
});

/**
 * Trending: each engagement counts 1, halving every 3 days, so recent attention outranks old
 * totals; items without engagement follow, newest first.
 */
export async function trending(tx: Executor, orgId: number, platformName: string, limit = 10) {
  return rowsOf<{ id: number; text: string; link: string | null; created_at: string; platform: string; score: number }>(
    await tx.execute(sql`
      select c.id, c.text, c.link, c.created_at, c.platform,
        coalesce((select sum(power(0.5, extract(epoch from now() - e.created_at) / 259200.0))
                  from curated_engagements e
                  where e.organization_id = c.organization_id and e.content_id = c.id and e.created_at > now() - interval '30 days'), 0)::float8 as score
      from curated_content c
      where c.organization_id = ${orgId} and c.platform = ${platformName}
      order by score desc, c.created_at desc, c.id desc
      limit ${limit}`),
  ).map((r) => ({ ...r, score: Math.round(Number(r.score) * 1000) / 1000 }));
}

export async function recordEngagement(tx: Executor, orgId: number, contentId: number, kind: string) {
  const [row] = rowsOf<{ id: number }>(
    await tx.execute(
      sql`update curated_content set engagement_count = engagement_count + 1, last_engaged_at = now() where organization_id = ${orgId} and id = ${contentId} returning id`,
    ),
  );
  if (!row) return false;
  await tx.insert(curatedEngagements).values({ organization_id: orgId, content_id: contentId, kind });
  return true;
}
