CREATE TABLE "search_vocabulary" (
	"organization_id" integer NOT NULL,
	"resource" text NOT NULL,
	"word" text NOT NULL,
	CONSTRAINT "search_vocabulary_pk" PRIMARY KEY("word","organization_id","resource")
);
--> statement-breakpoint
ALTER TABLE "search_vocabulary" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "search_words" (
	"organization_id" integer NOT NULL,
	"resource" text NOT NULL,
	"word" text NOT NULL,
	"next_word" text COLLATE "C" NOT NULL,
	"sort_key" text COLLATE "C" NOT NULL,
	"id" integer NOT NULL,
	CONSTRAINT "search_words_pk" PRIMARY KEY("organization_id","resource","id","word","next_word")
);
--> statement-breakpoint
ALTER TABLE "search_words" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "search_vocabulary" ADD CONSTRAINT "search_vocabulary_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "search_words" ADD CONSTRAINT "search_words_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "search_vocabulary_trgm_idx" ON "search_vocabulary" USING gin ("word" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "search_words_match_idx" ON "search_words" USING btree ("organization_id","resource","word","sort_key","id");--> statement-breakpoint
CREATE INDEX "search_words_pair_idx" ON "search_words" USING btree ("organization_id","resource","word","next_word","sort_key","id");--> statement-breakpoint
CREATE POLICY "search_vocabulary_tenant_isolation" ON "search_vocabulary" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "search_words_tenant_isolation" ON "search_words" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
-- The words of a text as `q` search sees them, in order: lower case, split at anything that is not a
-- letter or digit (locale rules: PostgreSQL's C locale counts only ASCII). The one tokenizer of both
-- the words stored and the words searched, so the two always agree. Not STRICT, here and in
-- search_word_pairs: PostgreSQL inlines only non-strict set-returning SQL functions, and calling them
-- row by row made the triggers' tokenizing about 5 times slower.
CREATE FUNCTION search_split(value text) RETURNS TABLE (word text, ordinal bigint) LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT w, n FROM regexp_split_to_table(lower(value), '[^[:alnum:]]+') WITH ORDINALITY t(w, n) WHERE w <> ''
$$;--> statement-breakpoint
-- Each word of a text with the word after it ('' after the last), each pair once. A typed search
-- without separators occurs in a text exactly when it occurs in one of its words; one with separators
-- (`redis-fail`) needs a word containing its first word followed by a word that starts with its second.
CREATE FUNCTION search_word_pairs(value text) RETURNS TABLE (word text, next_word text) LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT DISTINCT s.word, coalesce(lead(s.word) OVER (ORDER BY s.ordinal), '') FROM search_split(value) s
$$;--> statement-breakpoint
-- What a list search needs to know of its text: its words in order; whether it is one word and nothing
-- else (`whole`: no recheck of the pattern needed); whether it is read by word pairs (`pair`: two
-- words or more, the first long enough for the trigram index); and the LIKE pattern of the vocabulary
-- words to read (`containing`: those containing the first word for pairs, else the longest word). The
-- pattern is made here because `||` is not leakproof: built inside a query on a table under row level
-- security, it would keep the pattern from the trigram index.
CREATE FUNCTION search_parse(search text, OUT pieces text[], OUT whole boolean, OUT pair boolean, OUT containing text) LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT p.pieces, p.pieces = array[lower(search)], p.pair,
    '%' || CASE WHEN p.pair THEN p.pieces[1] ELSE (SELECT w FROM unnest(p.pieces) w ORDER BY length(w) DESC, w LIMIT 1) END || '%'
  FROM (SELECT a.pieces, cardinality(a.pieces) > 1 AND length(a.pieces[1]) >= 3 AS pair
        FROM (SELECT coalesce(array_agg(s.word ORDER BY s.ordinal), '{}') AS pieces FROM search_split(search) s) a) p
$$;--> statement-breakpoint
-- The statement that adds to search_words (and search_vocabulary) the words of the rows of `source`
-- (a table, or a trigger's transition table) that pass `row_filter`.
CREATE FUNCTION search_words_insert_sql(resource text, source text, row_filter text, sort_column text, searched text[]) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT format($q$
    WITH added AS (
      INSERT INTO search_words (organization_id, resource, word, next_word, sort_key, id)
      SELECT r.organization_id, %L, w.word, w.next_word, lower(r.%I), r.id
      FROM %I r CROSS JOIN LATERAL search_word_pairs(concat_ws(' ', %s)) w
      WHERE %s
      RETURNING organization_id, resource, word)
    INSERT INTO search_vocabulary (organization_id, resource, word)
    SELECT DISTINCT organization_id, resource, word FROM added ORDER BY 1, 2, 3
    ON CONFLICT DO NOTHING$q$,
    resource, sort_column, source, (SELECT string_agg(format('r.%I', c), ', ') FROM unnest(searched) c), row_filter)
$$;--> statement-breakpoint
-- Statement trigger on a searchable table (arguments: its sort column, then its `q` columns). Transition
-- tables keep bulk writes set-based; an update rewrites the words only of rows whose searched or sort
-- columns changed. Vocabulary words go in in one order, so two statements writing the same new words
-- at once wait for each other instead of deadlocking.
CREATE FUNCTION search_words_sync() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  sort_column text := TG_ARGV[0];
  searched text[] := TG_ARGV[1:TG_NARGS - 1];
  changed text := 'true';
BEGIN
  IF TG_OP = 'UPDATE' THEN
    changed := format('r.id IN (SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE ROW(%s) IS DISTINCT FROM ROW(%s))',
      (SELECT string_agg(format('n.%I', c), ', ') FROM unnest(searched || sort_column) c),
      (SELECT string_agg(format('o.%I', c), ', ') FROM unnest(searched || sort_column) c));
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    EXECUTE format('DELETE FROM search_words w USING old_rows r WHERE w.organization_id = r.organization_id AND w.resource = %L AND w.id = r.id AND %s',
      TG_TABLE_NAME, changed);
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    EXECUTE search_words_insert_sql(TG_TABLE_NAME, 'new_rows', changed, sort_column, searched);
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
-- Makes `q` on `resource` answerable from search_words: its three triggers, and the words of the rows
-- it has now.
CREATE FUNCTION search_index_attach(resource text, sort_column text, VARIADIC searched text[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  args text := (SELECT string_agg(quote_literal(a), ', ') FROM unnest(sort_column || searched) a);
BEGIN
  EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_words_sync(%s)', resource || '_search_words_insert', resource, args);
  EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_words_sync(%s)', resource || '_search_words_update', resource, args);
  EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION search_words_sync(%s)', resource || '_search_words_delete', resource, args);
  EXECUTE search_words_insert_sql(resource, resource, 'true', sort_column, searched);
END $$;--> statement-breakpoint
SELECT search_index_attach('tags', 'name', 'name');
