-- Global search reads uploaded passages from `chunks` itself (its English full-text index) instead
-- of a copy of each in search_entries: the copy (the text again, a second tsvector, a second GIN and
-- five btrees) was half of ingestion's time (bench/README.md, `ingest`). A submission keeps one entry,
-- for its title, once it is indexed.
DROP TRIGGER IF EXISTS "chunks_search_entries_insert" ON "chunks";--> statement-breakpoint
DROP TRIGGER IF EXISTS "chunks_search_entries_update" ON "chunks";--> statement-breakpoint
DROP TRIGGER IF EXISTS "chunks_search_entries_delete" ON "chunks";--> statement-breakpoint
DELETE FROM "search_entries" WHERE "source" = 'chunks';--> statement-breakpoint
SELECT search_entries_attach('submissions', $$
  SELECT r.organization_id, r.id::text AS source_id,
    CASE r.kind WHEN 'text' THEN 'TextSubmission' WHEN 'file' THEN 'FileSubmission' WHEN 'video_transcript' THEN 'YouTubeTranscriptSubmission' END AS type,
    NULL AS key, coalesce(r.title, r.file_name, 'Submission') AS title, '/chat?project_id=' || r.project_id AS link, concat_ws(' ', r.file_name, r.source_url) AS body,
    NULL::int AS incident_id, NULL::int AS case_id, r.sensitivity_level, r.created_by, NULL::int AS owner_id, r.updated_at
  FROM {rows} r WHERE r.status = 'indexed'
$$);--> statement-breakpoint
-- A typed term as a tsquery over chunks.tsv: its words as the English configuration reads the
-- passages (the same parser, stems, stop words dropped), in order at their distances, the last one as
-- a prefix when `prefix`; NULL when only stop words are left.
CREATE FUNCTION search_chunk_term_query(term text, prefix boolean) RETURNS tsquery LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT nullif(string_agg(
      CASE WHEN w.prev IS NULL THEN '' ELSE ' <' || (w.pos - w.prev) || '> ' END || quote_literal(w.lexeme) || CASE WHEN prefix AND w.pos = w.last THEN ':*' ELSE '' END,
      '' ORDER BY w.pos), '')::tsquery
  FROM (
    SELECT l.lexeme, l.pos, lag(l.pos) OVER (ORDER BY l.pos) AS prev, max(l.pos) OVER () AS last
    FROM (SELECT u.lexeme, p AS pos FROM unnest(to_tsvector('english', term)) u, unnest(u.positions) p) l
  ) w
$$;--> statement-breakpoint
-- `a && b` and `a || b` where a NULL side (a term of stop words only) is left out.
CREATE FUNCTION search_tsquery_and(a tsquery, b tsquery) RETURNS tsquery LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN a IS NULL THEN b WHEN b IS NULL THEN a ELSE a && b END
$$;--> statement-breakpoint
CREATE FUNCTION search_tsquery_or(a tsquery, b tsquery) RETURNS tsquery LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN a IS NULL THEN b WHEN b IS NULL THEN a ELSE a || b END
$$;
