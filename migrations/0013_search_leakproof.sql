-- Row level security evaluates a query's own conditions after the tenant policy unless their
-- functions are LEAKPROOF, so the planner may neither use an index for them nor read the column's
-- statistics. Full-text matches (@@) and ILIKE / LIKE are not marked so by default, which turned
-- every search (`q` on lists, chat retrieval over chunks) into a scan of the organization's rows:
-- 3.3 s instead of 0.1 s for one word over a million chunks.
--
-- These functions raise errors only about their pattern or query argument (a malformed LIKE
-- pattern), never about the row's value, and Firewatch never passes a column as the pattern; so
-- evaluating them before the policy shows nothing of another organization's rows.
--
-- Needs a superuser (the embedded database is one). Without it the migration carries on with a
-- warning and search works, unindexed; a superuser can run these four statements later.
DO $$
BEGIN
  ALTER FUNCTION pg_catalog.ts_match_vq(tsvector, tsquery) LEAKPROOF;
  ALTER FUNCTION pg_catalog.texticlike(text, text) LEAKPROOF;
  ALTER FUNCTION pg_catalog.texticnlike(text, text) LEAKPROOF;
  ALTER FUNCTION pg_catalog.textlike(text, text) LEAKPROOF;
EXCEPTION WHEN insufficient_privilege THEN
  RAISE WARNING 'Firewatch: not a superuser, so searches under row level security cannot use their indexes (see migrations/0013_search_leakproof.sql).';
END $$;
