import { sql, type SQL } from 'drizzle-orm';
import { cases } from '../cases/tables.js';
import { incidents } from '../incidents/tables.js';
import { documents } from '../knowledge/tables.js';
import type { RequestContext } from '../core/context.js';
import { caseScope } from '../cases/scope.js';
import { incidentScope } from '../incidents/scope.js';
import { rowsOf } from '../core/db/client.js';
import { type Passage, type RetrievalSource } from './retrieve.js';

/** How many of the newest records of each kind are searched (the records have no full-text index). */
const RECENT = 5000;
const PER_KIND = 2;

interface Row {
  id: number;
  name: string;
  title: string;
  body: string;
  rank: number | string;
}

/**
 * The organization's incidents, cases and runbooks for signed-in users' chats, each through its
 * owner's visibility rule (Restricted incidents and cases only for participants and admins).
 * Matches are ranked among themselves and follow the project's own passages.
 */
export const workspaceSource: RetrievalSource = {
  name: 'workspace',
  async search(tx, opts) {
    if (opts.access.kind !== 'user') return [];
    const ctx = { orgId: opts.orgId, userId: opts.access.userId, role: opts.access.role, tx } as unknown as RequestContext;
    const q = sql`(select case when numnode(w) = 0 then null else replace(w::text, ' & ', ' | ')::tsquery end from websearch_to_tsquery('english', ${opts.query}) w)`;
    // The floor: a record must hold at least half of the question's words (any one of them selects
    // it), so a procps question does not cite "Customer reports double charge" for its "report".
    const words = sql`tsvector_to_array(to_tsvector('english', ${opts.query}))`;
    const search = async (table: SQL, scope: SQL, name: SQL, title: SQL, body: SQL): Promise<Row[]> =>
      rowsOf<Row>(
        await tx.execute(sql`
          with recent as (select * from ${table} where ${scope} order by id desc limit ${RECENT}),
          doc as (select id, ${name} as name, ${title} as title, ${body} as body, to_tsvector('english', ${title} || ' ' || ${body}) as tsv from recent)
          select id, name, title, body, ts_rank_cd(tsv, ${q}) as rank
          from doc where tsv @@ ${q}
            and 2 * (select count(*) from unnest(${words}) w where tsv @@ quote_literal(w)::tsquery) >= cardinality(${words})
          order by rank desc, id desc limit ${PER_KIND}`),
      );
    const found: Passage[] = [];
    const add = (rows: Row[], type: string, label: string, url: (r: Row) => string) => {
      for (const r of rows) {
        found.push({
          object_type: type,
          object_id: r.id,
          title: `${label} ${r.name}: ${r.title}`,
          text: r.body || r.title,
          place: {},
          headline: (r.body || r.title).slice(0, 240),
          score: Number(r.rank),
          url: url(r),
        });
      }
    };
    add(
      await search(sql`${incidents}`, incidentScope(ctx), sql`name`, sql`title`, sql`concat_ws(' ', description, resolution)`),
      'incident',
      'Incident',
      (r) => `iaos/${encodeURIComponent(r.name)}/view`,
    );
    add(
      await search(sql`${cases}`, caseScope(ctx), sql`name`, sql`title`, sql`concat_ws(' ', description, resolution)`),
      'case',
      'Case',
      (r) => `cases/${encodeURIComponent(r.name)}`,
    );
    add(
      await search(
        sql`${documents}`,
        sql`${documents.organization_id} = ${opts.orgId} and ${documents.resource_type} like '%-runbook'`,
        sql`id::text`,
        sql`name`,
        sql`coalesce(description, '')`,
      ),
      'runbook',
      'Runbook',
      (r) => `documents/${r.id}`,
    );
    // Below every project passage: the project's own material answers first.
    return found.sort((a, b) => b.score - a.score).map((p, i) => ({ ...p, score: -1 - i }));
  },
};
