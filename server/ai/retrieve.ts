import { sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import type { ChunkPlace, SensitivityLevel } from '../db/schema/ai.js';
import type { Role } from '../db/schema/index.js';

/** Who is asking, which decides the sensitivity levels they may retrieve. */
export type Access =
  | { kind: 'user'; userId: number; role: Role }
  | { kind: 'apikey' }
  | { kind: 'anonymous'; sessionId: number };

export interface Passage {
  /** What a citation opens: 'chunk' for submissions; other sources name their own type. */
  object_type: string;
  object_id: number | string;
  submission_id?: number;
  title: string;
  text: string;
  place: ChunkPlace;
  /** Matching words marked with «» (ts_headline). */
  headline: string;
  score: number;
  url?: string | null;
}

export interface RetrieveOptions {
  orgId: number;
  /** Restricts to one project; anonymous callers without one see the organization's public material. */
  projectId?: number | null;
  query: string;
  access: Access;
  limit?: number;
}

/** Another searchable domain (incidents, cases, runbooks) registered by its owner. */
export interface RetrievalSource {
  name: string;
  /** Only signed-in users get these (anonymous visitors and API keys do not). */
  search(tx: Executor, opts: RetrieveOptions & { limit: number }): Promise<Passage[]>;
}
const sources: RetrievalSource[] = [];
export function registerRetrievalSource(source: RetrievalSource) {
  if (!sources.some((s) => s.name === source.name)) sources.push(source);
}

/** Levels each caller may read; restricted material is also readable by its uploader (see below). */
export function allowedLevels(access: Access): SensitivityLevel[] {
  if (access.kind === 'anonymous') return ['public'];
  if (access.kind === 'user' && (access.role === 'Admin' || access.role === 'Manager' || access.role === 'Owner')) return ['public', 'internal', 'restricted'];
  return ['public', 'internal'];
}

/** SQL condition on chunk alias `c` for what the caller may see. */
export function accessCondition(access: Access): SQL {
  const levels = allowedLevels(access);
  const base = sql`c.sensitivity_level in (${sql.join(levels.map((l) => sql`${l}`), sql`, `)})`;
  if (access.kind === 'anonymous') {
    return sql`(${base} or c.submission_id in (select s.id from submissions s where s.organization_id = c.organization_id and s.anonymous_session_id = ${access.sessionId}))`;
  }
  if (access.kind === 'user' && !levels.includes('restricted')) {
    return sql`(${base} or c.submission_id in (select s.id from submissions s where s.organization_id = c.organization_id and s.created_by = ${access.userId}))`;
  }
  return base;
}

/**
 * Codes and host names ("ERR-4521", "db-01.prod.internal", "10.0.3.7") that the English parser
 * splits or stems; they are also matched literally through the trigram index.
 */
export function codeTokens(query: string): string[] {
  const found = query.match(/[A-Za-z0-9][A-Za-z0-9_.:/-]*[A-Za-z0-9]/g) ?? [];
  return [...new Set(found.filter((t) => t.length >= 4 && (/\d/.test(t) || /[a-z0-9]\.[a-z0-9]/i.test(t))))].slice(0, 5);
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * Best passages for a question. Full-text search matches any of the question's words (an AND of
 * every word would miss most natural questions), ranked by cover density, with a bonus when every
 * word is present and for literal code/host matches.
 */
export async function retrieve(tx: Executor, opts: RetrieveOptions): Promise<Passage[]> {
  const limit = opts.limit ?? 8;
  const query = opts.query.trim().slice(0, 1000);
  if (!query) return [];
  const codes = codeTokens(query);
  const codeMatch = codes.length ? sql.join(codes.map((c) => sql`c.text ilike ${'%' + escapeLike(c) + '%'}`), sql` or `) : sql`false`;
  const codeScore = codes.length ? sql.join(codes.map((c) => sql`(c.text ilike ${'%' + escapeLike(c) + '%'})::int`), sql` + `) : sql`0`;
  const project = opts.projectId ? sql`and c.project_id = ${opts.projectId}` : sql``;
  const rows = await tx.execute(sql`
    with q as (select websearch_to_tsquery('english', ${query}) as qa),
    qq as (select qa, case when numnode(qa) = 0 then null else replace(qa::text, ' & ', ' | ')::tsquery end as qo from q)
    select c.id, c.submission_id, c.text, c.place, s.title, s.source_url, s.kind,
      ts_headline('english', c.text, coalesce(qq.qo, qq.qa), 'StartSel=«, StopSel=», MaxWords=30, MinWords=12, MaxFragments=2') as headline,
      (case when qq.qo is null then 0 else ts_rank_cd(c.tsv, qq.qo, 1) + case when c.tsv @@ qq.qa then 0.5 else 0 end end + ${codeScore}) as score
    from chunks c cross join qq
    join submissions s on s.organization_id = c.organization_id and s.id = c.submission_id
    where c.organization_id = ${opts.orgId} ${project}
      and (${qq_match()} or ${codeMatch})
      and ${accessCondition(opts.access)}
    order by score desc, c.id
    limit ${limit}
  `);
  const list = rowsOf<Row>(rows);
  const passages: Passage[] = list.map((r) => ({
    object_type: 'chunk',
    object_id: Number(r.id),
    submission_id: r.submission_id,
    title: r.title,
    text: r.text,
    place: r.place,
    headline: r.headline,
    score: Number(r.score),
    url: r.source_url,
  }));
  if (opts.access.kind === 'user' && sources.length) {
    for (const source of sources) {
      try {
        passages.push(...(await source.search(tx, { ...opts, limit })));
      } catch {
        // Another domain's search failing must not take the chat down with it.
      }
    }
    passages.sort((a, b) => b.score - a.score);
  }
  return passages.slice(0, limit);
}

const qq_match = () => sql`(qq.qo is not null and c.tsv @@ qq.qo)`;

interface Row {
  id: number | string;
  submission_id: number;
  text: string;
  place: ChunkPlace;
  title: string;
  source_url: string | null;
  kind: string;
  headline: string;
  score: number | string;
}

/** drizzle's execute returns `{rows}` on PGlite and an array on postgres.js. */
export function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : ((result as { rows?: T[] }).rows ?? [])) as T[];
}
