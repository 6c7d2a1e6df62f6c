-- Global search's update trigger rewrote every changed row's entry: a delete and an insert, so
-- PostgreSQL recomputed the entry's tsvector even when only what is not text changed (a signal
-- instance pointed at its case, a case's status, updated_at). Processing 500 signal instances spent
-- 240-270 ms in it against 28-40 ms without (load 26). An entry whose text (key, title, link, body)
-- is unchanged is now updated in place, which leaves the stored tsvector as it is; the others are
-- deleted and written anew as before. The new entries are MATERIALIZED first: under row level
-- security a join clause holding the id's int-to-text cast cannot be an index condition on
-- search_entries (see 0031), and the update compared every changed row with every entry.
CREATE OR REPLACE FUNCTION search_entries_sync() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  kept text[];
BEGIN
  IF TG_OP = 'UPDATE' THEN
    EXECUTE format($q$
      WITH n AS MATERIALIZED (SELECT e.organization_id, e.source_id, e.type, lower(coalesce(e.key, '')) AS key, left(coalesce(e.title, ''), 500) AS title, e.link,
          left(coalesce(e.body, ''), 20000) AS body, e.incident_id, e.case_id, e.sensitivity_level, e.created_by, e.owner_id, coalesce(e.updated_at, now()) AS updated_at
        FROM (%s) e WHERE e.type IS NOT NULL),
      u AS (UPDATE search_entries s SET incident_id = n.incident_id, case_id = n.case_id, sensitivity_level = n.sensitivity_level,
          created_by = n.created_by, owner_id = n.owner_id, updated_at = n.updated_at
        FROM n WHERE s.organization_id = n.organization_id AND s.source = %L AND s.source_id = n.source_id AND s.type = n.type
          AND s.key = n.key AND s.title = n.title AND s.link = n.link AND s.body = n.body
        RETURNING s.organization_id || '/' || s.source_id || '/' || s.type AS k)
      SELECT coalesce(array_agg(k), '{}') FROM u$q$, replace(TG_ARGV[0], '{rows}', 'new_rows'), TG_TABLE_NAME) INTO kept;
  ELSE
    kept := '{}';
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    EXECUTE format('WITH r AS MATERIALIZED (SELECT organization_id, id::text AS source_id FROM old_rows) DELETE FROM search_entries e USING r WHERE e.organization_id = r.organization_id AND e.source = %L AND e.source_id = r.source_id AND NOT (e.organization_id || ''/'' || e.source_id || ''/'' || e.type = ANY ($1))', TG_TABLE_NAME) USING kept;
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    IF cardinality(kept) = 0 THEN
      EXECUTE search_entries_insert_sql(TG_TABLE_NAME, 'new_rows', TG_ARGV[0]);
    ELSE
      EXECUTE search_entries_insert_sql(TG_TABLE_NAME, 'new_rows', TG_ARGV[0]) || ' AND NOT (e.organization_id || ''/'' || e.source_id || ''/'' || e.type = ANY ($1))' USING kept;
    END IF;
  END IF;
  RETURN NULL;
END $$;
