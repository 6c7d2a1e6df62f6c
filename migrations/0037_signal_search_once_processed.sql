-- A signal instance's search entry was written in the ingest commit (its payload's values tokenized
-- while the sender waited for its 202), then rewritten when processing pointed the instance at its
-- case: the same text again (updated in place since 0034, but still a new row version in every index
-- of search_entries, its GIN index included). An instance now gets its entry once, when it is
-- processed (within seconds of its accept), with its case from the start: the accept path does no
-- search work, and each signal's entry is written once.
DROP TRIGGER IF EXISTS "signal_instances_search_entries_insert" ON "signal_instances";--> statement-breakpoint
DROP TRIGGER IF EXISTS "signal_instances_search_entries_update" ON "signal_instances";--> statement-breakpoint
DROP TRIGGER IF EXISTS "signal_instances_search_entries_delete" ON "signal_instances";--> statement-breakpoint
DELETE FROM "search_entries" e USING "signal_instances" r
  WHERE e."source" = 'signal_instances' AND e.organization_id = r.organization_id AND e.source_id = r.id::text AND r.processed_at IS NULL;--> statement-breakpoint
DO $$
DECLARE
  entries text := $e$
  SELECT r.organization_id, r.id::text AS source_id, 'SignalInstance' AS type, r.dedup_key AS key, concat_ws(' ', s.name, r.dedup_key) AS title, '/signals/instances/' || r.id AS link,
    concat_ws(' ', r.source, r.event_action, left((SELECT string_agg(v #>> '{}', ' ') FROM jsonb_path_query(r.raw, 'strict $.** ? (@.type() == "string" || @.type() == "number")') v), 2000)) AS body,
    NULL::int AS incident_id, r.case_id, NULL::text AS sensitivity_level, NULL::int AS created_by, NULL::int AS owner_id, r.updated_at
  FROM {rows} r LEFT JOIN signals s ON s.organization_id = r.organization_id AND s.id = r.signal_id
  WHERE r.processed_at IS NOT NULL
$e$;
BEGIN
  -- search_entries_attach's triggers, without its initial fill: the processed rows keep the entries they have.
  EXECUTE format('CREATE TRIGGER signal_instances_search_entries_insert AFTER INSERT ON signal_instances REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_entries_sync(%L)', entries);
  EXECUTE format('CREATE TRIGGER signal_instances_search_entries_update AFTER UPDATE ON signal_instances REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_entries_sync(%L)', entries);
  EXECUTE format('CREATE TRIGGER signal_instances_search_entries_delete AFTER DELETE ON signal_instances REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION search_entries_sync(%L)', entries);
END $$;
