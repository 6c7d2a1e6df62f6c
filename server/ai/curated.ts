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

/** A question shows in Trending once this many visitors asked it today, so no one visitor's words are shown to others. */
export const TRENDING_MIN_ASKERS = 2;

/**
 * Today's (UTC) most-asked questions on the public landing page: visitors' questions, the same when
 * they differ only in case, spacing or a closing question mark, by how many visitors asked them; each
 * in its latest wording.
 */
export async function questionsToday(tx: Executor, orgId: number, limit = 5) {
  return rowsOf<{ text: string; asked: number; last_asked_at: string }>(
    await tx.execute(sql`
      select (array_agg(q.text order by q.created_at desc))[1] as text, count(distinct q.anonymous_session_id)::int as asked, max(q.created_at) as last_asked_at
      from (select m.text, m.created_at, m.anonymous_session_id,
              lower(regexp_replace(regexp_replace(btrim(m.text), ${'\\s+'}, ' ', 'g'), ${'\\s*\\?+$'}, '')) as normalized
            from chat_messages m
            where m.organization_id = ${orgId} and m.role = 'user' and m.user_id is null and m.anonymous_session_id is not null
              and m.created_at >= date_trunc('day', now() at time zone 'utc') at time zone 'utc' and length(m.text) <= 300) q
      group by q.normalized
      having count(distinct q.anonymous_session_id) >= ${TRENDING_MIN_ASKERS}
      order by asked desc, last_asked_at desc
      limit ${limit}`),
  ).map((r) => ({ ...r, last_asked_at: new Date(r.last_asked_at).toISOString() }));
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
