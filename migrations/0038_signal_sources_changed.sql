-- Ingestion keeps each source it resolved by key hash for a couple of seconds (otherwise a lookup per
-- delivery, competing with the insert it precedes). Any change to a definition (a rotated key, a new
-- secret or rate, a deletion) tells every app process to forget them, once the change commits.
CREATE OR REPLACE FUNCTION signals_sources_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('firewatch_signal_sources', '');
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER signals_sources_changed AFTER UPDATE OR DELETE ON signals FOR EACH STATEMENT EXECUTE FUNCTION signals_sources_changed();
