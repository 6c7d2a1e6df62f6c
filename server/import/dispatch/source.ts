import postgres from 'postgres';

/**
 * The Dispatch database, read-only. Dispatch's DateTime columns are `timestamp without time zone`
 * holding UTC (TimeStampMixin writes datetime.now(timezone.utc) into them), so they are parsed as UTC
 * rather than in this machine's zone.
 */
export function openSource(url: string): postgres.Sql {
  return postgres(url, {
    max: 2,
    onnotice: () => {},
    types: {
      naiveUtc: {
        to: 1114,
        from: [1114],
        serialize: (d: Date) => d.toISOString().replace('Z', ''),
        parse: (s: string) => new Date(`${s.replace(' ', 'T')}Z`),
      },
    },
  });
}

export interface SourceOrganization {
  id: number;
  name: string;
  slug: string;
  description: string | null;
  banner_enabled: boolean | null;
  banner_color: string | null;
  banner_text: string | null;
  schema: string;
}

/** Dispatch's organizations whose tenant schema exists (dispatch_organization_<slug>). */
export async function sourceOrganizations(src: postgres.Sql): Promise<SourceOrganization[]> {
  return src<SourceOrganization[]>`
    select o.id, o.name, o.slug, o.description, o.banner_enabled, o.banner_color, o.banner_text, n.nspname as schema
    from dispatch_core.organization o
    join pg_namespace n on n.nspname = 'dispatch_organization_' || o.slug
    order by o.id`;
}

/** Whether the tenant schema has the table (older Dispatch versions lack some). */
export async function tableExists(src: postgres.Sql, schema: string, table: string) {
  const [row] = await src<{ found: boolean }[]>`select to_regclass(${`"${schema}"."${table}"`}) is not null as found`;
  return row!.found;
}

/** A query column: the e-mail address of the participant that `alias.column` names (`commander_id` -> `commander_email`). */
export const personEmail = (alias: string, column: string) =>
  `(select lower(c.email) from {s}participant p join {s}individual_contact c on c.id = p.individual_contact_id where p.id = ${alias}.${column}) as ${column.replace('_id', '_email')}`;

/**
 * A query column `as` read from `query` (one row per record: `key`, `value`) joined on `outer`. Dispatch
 * indexes few foreign keys (participant_role.participant_id, assoc_task_assignees.task_id, …): a
 * correlated subquery scanned such a table once per record, so reading 10,000 incidents' people grew with
 * the square of their number; the join reads it once.
 */
export const joined = (as: string, outer: string, query: string) => ({
  column: `${as}.value as ${as}`,
  join: `left join (${query}) ${as} on ${as}.key = ${outer}`,
});
