-- A signal instance deduplicated into an open group no longer gets a search entry of its own: an
-- alert storm of one series filled global search with identical hits, and tokenizing each repeat cost
-- processing 100-130 µs of PostgreSQL CPU per signal (a quarter of it). The instance that opened the
-- group (and every snoozed or unfiltered one) is still found, and leads to the case that holds the rest.
DROP TRIGGER IF EXISTS "signal_instances_search_entries_insert" ON "signal_instances";--> statement-breakpoint
DROP TRIGGER IF EXISTS "signal_instances_search_entries_update" ON "signal_instances";--> statement-breakpoint
DROP TRIGGER IF EXISTS "signal_instances_search_entries_delete" ON "signal_instances";--> statement-breakpoint
DELETE FROM "search_entries" e USING "signal_instances" r
  WHERE e."source" = 'signal_instances' AND e.organization_id = r.organization_id AND e.source_id = r.id::text AND r.filter_action = 'deduplicate';--> statement-breakpoint
DO $$
DECLARE
  entries text := $e$
  SELECT r.organization_id, r.id::text AS source_id, 'SignalInstance' AS type, r.dedup_key AS key, concat_ws(' ', s.name, r.dedup_key) AS title, '/signals/instances/' || r.id AS link,
    concat_ws(' ', r.source, r.event_action, left((SELECT string_agg(v #>> '{}', ' ') FROM jsonb_path_query(r.raw, 'strict $.** ? (@.type() == "string" || @.type() == "number")') v), 2000)) AS body,
    NULL::int AS incident_id, r.case_id, NULL::text AS sensitivity_level, NULL::int AS created_by, NULL::int AS owner_id, r.updated_at
  FROM {rows} r LEFT JOIN signals s ON s.organization_id = r.organization_id AND s.id = r.signal_id
  WHERE r.processed_at IS NOT NULL AND r.filter_action IS DISTINCT FROM 'deduplicate'
$e$;
BEGIN
  EXECUTE format('CREATE TRIGGER signal_instances_search_entries_insert AFTER INSERT ON signal_instances REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_entries_sync(%L)', entries);
  EXECUTE format('CREATE TRIGGER signal_instances_search_entries_update AFTER UPDATE ON signal_instances REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_entries_sync(%L)', entries);
  EXECUTE format('CREATE TRIGGER signal_instances_search_entries_delete AFTER DELETE ON signal_instances REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION search_entries_sync(%L)', entries);
END $$;
