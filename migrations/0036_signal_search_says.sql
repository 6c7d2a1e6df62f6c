-- A signal instance's search entry indexed its whole raw payload as JSON text (keys, quotes, braces and
-- all, up to 10,000 characters), tokenized at every accepted signal inside the ingest commit. It now
-- indexes what the signal said: the string and number values of its payload (where its summary,
-- labels, hosts and other entity values are), up to 2,000 characters, beside its source, action,
-- definition name and dedup key. The entries are written again for the rows there are.
DROP TRIGGER IF EXISTS "signal_instances_search_entries_insert" ON "signal_instances";--> statement-breakpoint
DROP TRIGGER IF EXISTS "signal_instances_search_entries_update" ON "signal_instances";--> statement-breakpoint
DROP TRIGGER IF EXISTS "signal_instances_search_entries_delete" ON "signal_instances";--> statement-breakpoint
DELETE FROM "search_entries" WHERE "source" = 'signal_instances';--> statement-breakpoint
SELECT search_entries_attach('signal_instances', $$
  SELECT r.organization_id, r.id::text AS source_id, 'SignalInstance' AS type, r.dedup_key AS key, concat_ws(' ', s.name, r.dedup_key) AS title, '/signals/instances/' || r.id AS link,
    concat_ws(' ', r.source, r.event_action, left((SELECT string_agg(v #>> '{}', ' ') FROM jsonb_path_query(r.raw, 'strict $.** ? (@.type() == "string" || @.type() == "number")') v), 2000)) AS body,
    NULL::int AS incident_id, r.case_id, NULL::text AS sensitivity_level, NULL::int AS created_by, NULL::int AS owner_id, r.updated_at
  FROM {rows} r LEFT JOIN signals s ON s.organization_id = r.organization_id AND s.id = r.signal_id
$$);
