CREATE TABLE "search_entries" (
	"organization_id" integer NOT NULL,
	"source" text NOT NULL,
	"source_id" text NOT NULL,
	"type" text NOT NULL,
	"key" text NOT NULL,
	"title" text NOT NULL,
	"link" text NOT NULL,
	"body" text NOT NULL,
	"incident_id" integer,
	"case_id" integer,
	"sensitivity_level" text,
	"created_by" integer,
	"owner_id" integer,
	"updated_at" timestamp with time zone NOT NULL,
	"tsv" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('simple', regexp_replace(lower(title), '[^[:alnum:]]+', ' ', 'g')), 'A') || setweight(to_tsvector('simple', regexp_replace(lower(body), '[^[:alnum:]]+', ' ', 'g')), 'B')) STORED NOT NULL,
	CONSTRAINT "search_entries_pk" PRIMARY KEY("organization_id","source","source_id","type")
);
--> statement-breakpoint
ALTER TABLE "search_entries" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "search_entries" ADD CONSTRAINT "search_entries_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "search_entries_org_tsv_idx" ON "search_entries" USING gin ("organization_id","tsv");--> statement-breakpoint
CREATE INDEX "search_entries_org_key_idx" ON "search_entries" USING btree ("organization_id","key");--> statement-breakpoint
CREATE INDEX "search_entries_org_recent_idx" ON "search_entries" USING btree ("organization_id","updated_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "search_entries_org_type_recent_idx" ON "search_entries" USING btree ("organization_id","type","updated_at" DESC NULLS LAST);--> statement-breakpoint
CREATE POLICY "search_entries_tenant_isolation" ON "search_entries" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
-- The statement that writes into search_entries the entries of the rows of `source` (a table, or a
-- trigger's transition table). `entries` is a SELECT over `{rows} r` giving, by name: organization_id,
-- source_id, type, key, title, link, body, incident_id, case_id, sensitivity_level, created_by,
-- owner_id, updated_at. Titles and bodies are capped: a tsvector has a 1 MB limit and the passage
-- shown is cut from the start of the body anyway.
CREATE FUNCTION search_entries_insert_sql(source_table text, source text, entries text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT format($q$
    INSERT INTO search_entries (organization_id, source, source_id, type, key, title, link, body, incident_id, case_id, sensitivity_level, created_by, owner_id, updated_at)
    SELECT e.organization_id, %L, e.source_id, e.type, lower(coalesce(e.key, '')), left(coalesce(e.title, ''), 500), e.link, left(coalesce(e.body, ''), 20000),
      e.incident_id, e.case_id, e.sensitivity_level, e.created_by, e.owner_id, coalesce(e.updated_at, now())
    FROM (%s) e WHERE e.type IS NOT NULL$q$,
    source_table, replace(entries, '{rows}', quote_ident(source)))
$$;--> statement-breakpoint
-- Statement trigger on a searchable table (argument: its entries SELECT). Transition tables keep
-- bulk writes set-based; the entries are written in the writer's transaction.
CREATE FUNCTION search_entries_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    EXECUTE format('DELETE FROM search_entries e USING old_rows r WHERE e.organization_id = r.organization_id AND e.source = %L AND e.source_id = r.id::text', TG_TABLE_NAME);
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    EXECUTE search_entries_insert_sql(TG_TABLE_NAME, 'new_rows', TG_ARGV[0]);
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
-- Makes a table's rows found by global search: its three triggers, and the entries of the rows it has now.
CREATE FUNCTION search_entries_attach(source_table text, entries text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_entries_sync(%L)', source_table || '_search_entries_insert', source_table, entries);
  EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_entries_sync(%L)', source_table || '_search_entries_update', source_table, entries);
  EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION search_entries_sync(%L)', source_table || '_search_entries_delete', source_table, entries);
  EXECUTE search_entries_insert_sql(source_table, source_table, entries);
END $$;--> statement-breakpoint
-- A typed term as a tsquery over search_entries.tsv: its words (search_split, the tokenizer of the
-- stored text) one after the other, the last one as a prefix when `prefix`; NULL when it has none.
CREATE FUNCTION search_term_query(term text, prefix boolean) RETURNS tsquery LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT nullif(string_agg(quote_literal(s.word) || CASE WHEN prefix AND s.ordinal = m.last THEN ':*' ELSE '' END, ' <-> ' ORDER BY s.ordinal), '')::tsquery
  FROM search_split(term) s, (SELECT max(ordinal) AS last FROM search_split(term)) m
$$;--> statement-breakpoint
SELECT search_entries_attach('incidents', $$
  SELECT r.organization_id, r.id::text AS source_id, 'Incident' AS type, r.name AS key, r.name || ': ' || r.title AS title, '/iaos/' || r.name || '/view' AS link,
    concat_ws(' ', r.description, r.resolution) AS body, r.id AS incident_id, NULL::int AS case_id, NULL::text AS sensitivity_level, NULL::int AS created_by, NULL::int AS owner_id, r.updated_at FROM {rows} r
  UNION ALL
  SELECT r.organization_id, r.id::text, 'Conference', NULL, r.name || ' conference: ' || r.title, '/iaos/' || r.name || '/view',
    r.conference_url, r.id, NULL, NULL, NULL, NULL, r.updated_at FROM {rows} r WHERE r.conference_url IS NOT NULL AND r.conference_url <> ''
$$);--> statement-breakpoint
SELECT search_entries_attach('cases', $$
  SELECT r.organization_id, r.id::text AS source_id, 'Case' AS type, r.name AS key, r.name || ': ' || r.title AS title, '/cases/' || r.name || '/view' AS link,
    concat_ws(' ', r.description, r.resolution) AS body, NULL::int AS incident_id, r.id AS case_id, NULL::text AS sensitivity_level, NULL::int AS created_by, NULL::int AS owner_id, r.updated_at FROM {rows} r
$$);--> statement-breakpoint
SELECT search_entries_attach('tasks', $$
  SELECT r.organization_id, r.id::text AS source_id, 'Task' AS type, NULL AS key, left(r.description, 200) AS title, '/tasks/' || r.id AS link,
    concat_ws(' ', r.description, r.owner_email, r.assignees) AS body, r.incident_id, r.case_id, NULL::text AS sensitivity_level, NULL::int AS created_by, NULL::int AS owner_id, r.updated_at FROM {rows} r
$$);--> statement-breakpoint
SELECT search_entries_attach('incident_resources', $$
  SELECT r.organization_id, r.id::text AS source_id, CASE WHEN r.resource_type ILIKE '%ticket%' THEN 'Ticket' ELSE 'Document' END AS type, NULL AS key, r.name AS title,
    '/iaos/' || i.name || '/view' AS link, concat_ws(' ', r.weblink, r.description, left(r.content, 20000)) AS body, r.incident_id, NULL::int AS case_id,
    NULL::text AS sensitivity_level, NULL::int AS created_by, NULL::int AS owner_id, r.created_at AS updated_at
  FROM {rows} r JOIN incidents i ON i.organization_id = r.organization_id AND i.id = r.incident_id
$$);--> statement-breakpoint
SELECT search_entries_attach('conversations', $$
  SELECT r.organization_id, r.id::text AS source_id, 'Conversation' AS type, NULL AS key, r.name AS title,
    coalesce('/iaos/' || i.name || '/view', '/cases/' || c.name || '/view', '/') AS link, '' AS body, r.incident_id, r.case_id,
    NULL::text AS sensitivity_level, NULL::int AS created_by, NULL::int AS owner_id, r.created_at AS updated_at
  FROM {rows} r LEFT JOIN incidents i ON i.organization_id = r.organization_id AND i.id = r.incident_id LEFT JOIN cases c ON c.organization_id = r.organization_id AND c.id = r.case_id
$$);--> statement-breakpoint
SELECT search_entries_attach('conversation_messages', $$
  SELECT r.organization_id, r.id::text AS source_id, 'Conversation' AS type, NULL AS key, v.name || ' (' || coalesce(r.author_email, '') || ')' AS title,
    coalesce('/iaos/' || i.name || '/view', '/cases/' || c.name || '/view', '/') AS link, r.text AS body, v.incident_id, v.case_id,
    NULL::text AS sensitivity_level, NULL::int AS created_by, NULL::int AS owner_id, r.created_at AS updated_at
  FROM {rows} r JOIN conversations v ON v.organization_id = r.organization_id AND v.id = r.conversation_id
  LEFT JOIN incidents i ON i.organization_id = v.organization_id AND i.id = v.incident_id LEFT JOIN cases c ON c.organization_id = v.organization_id AND c.id = v.case_id
$$);--> statement-breakpoint
SELECT search_entries_attach('chats', $$
  SELECT r.organization_id, r.id::text AS source_id, 'Conversation' AS type, NULL AS key, r.title AS title, '/chat?chat_id=' || r.id AS link, '' AS body,
    NULL::int AS incident_id, NULL::int AS case_id, NULL::text AS sensitivity_level, NULL::int AS created_by, r.user_id AS owner_id, r.updated_at
  FROM {rows} r WHERE r.user_id IS NOT NULL
$$);--> statement-breakpoint
SELECT search_entries_attach('chat_messages', $$
  SELECT r.organization_id, r.id::text AS source_id, 'Conversation' AS type, NULL AS key, c.title AS title, '/chat?chat_id=' || c.id AS link, r.text AS body,
    NULL::int AS incident_id, NULL::int AS case_id, NULL::text AS sensitivity_level, NULL::int AS created_by, c.user_id AS owner_id, r.created_at AS updated_at
  FROM {rows} r JOIN chats c ON c.organization_id = r.organization_id AND c.id = r.chat_id WHERE c.user_id IS NOT NULL
$$);--> statement-breakpoint
SELECT search_entries_attach('chunks', $$
  SELECT r.organization_id, r.id::text AS source_id,
    CASE s.kind WHEN 'text' THEN 'TextSubmission' WHEN 'file' THEN 'FileSubmission' WHEN 'video_transcript' THEN 'YouTubeTranscriptSubmission' END AS type,
    NULL AS key, coalesce(s.title, s.file_name, 'Submission') AS title, '/chat?project_id=' || r.project_id AS link, r.text AS body, NULL::int AS incident_id, NULL::int AS case_id,
    r.sensitivity_level, s.created_by, NULL::int AS owner_id, s.updated_at
  FROM {rows} r JOIN submissions s ON s.organization_id = r.organization_id AND s.id = r.submission_id
$$);--> statement-breakpoint
SELECT search_entries_attach('documents', $$
  SELECT r.organization_id, r.id::text AS source_id, 'Document' AS type, r.name AS key, r.name AS title, '/documents/' || r.id AS link,
    concat_ws(' ', r.resource_type, r.weblink, r.description) AS body, NULL::int AS incident_id, NULL::int AS case_id, NULL::text AS sensitivity_level, NULL::int AS created_by, NULL::int AS owner_id, r.updated_at FROM {rows} r
$$);--> statement-breakpoint
SELECT search_entries_attach('tags', $$
  SELECT r.organization_id, r.id::text AS source_id, 'Tag' AS type, r.name AS key, r.name AS title, '/tags/' || r.id AS link,
    concat_ws(' ', r.source, r.uri, r.description) AS body, NULL::int AS incident_id, NULL::int AS case_id, NULL::text AS sensitivity_level, NULL::int AS created_by, NULL::int AS owner_id, r.updated_at FROM {rows} r
$$);--> statement-breakpoint
SELECT search_entries_attach('sources', $$
  SELECT r.organization_id, r.id::text AS source_id, 'Source' AS type, r.name AS key, r.name AS title, '/data/sources/' || r.id AS link,
    concat_ws(' ', r.description, r.owner, r.documentation, left(r.sample_log, 5000)) AS body, NULL::int AS incident_id, NULL::int AS case_id, NULL::text AS sensitivity_level, NULL::int AS created_by, NULL::int AS owner_id, r.updated_at FROM {rows} r
$$);--> statement-breakpoint
SELECT search_entries_attach('queries', $$
  SELECT r.organization_id, r.id::text AS source_id, 'Query' AS type, r.name AS key, r.name AS title, '/data/queries/' || r.id AS link,
    concat_ws(' ', r.description, r.text) AS body, NULL::int AS incident_id, NULL::int AS case_id, NULL::text AS sensitivity_level, NULL::int AS created_by, NULL::int AS owner_id, r.updated_at FROM {rows} r
$$);--> statement-breakpoint
SELECT search_entries_attach('commands', $$
  SELECT r.organization_id, r.id::text AS source_id, 'Command' AS type, r.name AS key, r.name AS title, '/data/commands/' || r.id AS link,
    concat_ws(' ', r.description, r.command_text) AS body, NULL::int AS incident_id, NULL::int AS case_id, NULL::text AS sensitivity_level, NULL::int AS created_by, NULL::int AS owner_id, r.updated_at FROM {rows} r
$$);--> statement-breakpoint
SELECT search_entries_attach('weblinks', $$
  SELECT r.organization_id, r.id::text AS source_id, 'Weblink' AS type, r.url AS key, coalesce(r.title, r.url) AS title, '/weblinks/' || r.id AS link,
    concat_ws(' ', r.url, r.description) AS body, NULL::int AS incident_id, NULL::int AS case_id, NULL::text AS sensitivity_level, NULL::int AS created_by, NULL::int AS owner_id, r.updated_at FROM {rows} r
$$);--> statement-breakpoint
SELECT search_entries_attach('signal_instances', $$
  SELECT r.organization_id, r.id::text AS source_id, 'SignalInstance' AS type, r.dedup_key AS key, concat_ws(' ', s.name, r.dedup_key) AS title, '/signals/instances/' || r.id AS link,
    concat_ws(' ', r.source, r.event_action, left(r.raw::text, 10000)) AS body, NULL::int AS incident_id, r.case_id, NULL::text AS sensitivity_level, NULL::int AS created_by, NULL::int AS owner_id, r.updated_at
  FROM {rows} r LEFT JOIN signals s ON s.organization_id = r.organization_id AND s.id = r.signal_id
$$);--> statement-breakpoint
SELECT search_entries_attach('commits', $$
  SELECT r.organization_id, r.id::text AS source_id, 'Commit' AS type, r.commit_id AS key, left(r.commit_id, 12) || ' ' || coalesce(r.repository_name, '') AS title, '/commits/' || r.commit_id AS link,
    concat_ws(' ', r.commit_message, r.commit_author, r.repository_url, r.repository_branch) AS body, NULL::int AS incident_id, NULL::int AS case_id, NULL::text AS sensitivity_level, NULL::int AS created_by, NULL::int AS owner_id, r.updated_at FROM {rows} r
$$);--> statement-breakpoint
SELECT search_entries_attach('terms', $$
  SELECT r.organization_id, r.id::text AS source_id, 'Term' AS type, r.text AS key, r.text AS title, '/terms/' || r.id AS link,
    '' AS body, NULL::int AS incident_id, NULL::int AS case_id, NULL::text AS sensitivity_level, NULL::int AS created_by, NULL::int AS owner_id, r.updated_at FROM {rows} r
$$);--> statement-breakpoint
SELECT search_entries_attach('definitions', $$
  SELECT r.organization_id, r.id::text AS source_id, 'Definition' AS type, NULL AS key, left(r.text, 200) AS title, '/definitions/' || r.id AS link,
    r.text AS body, NULL::int AS incident_id, NULL::int AS case_id, NULL::text AS sensitivity_level, NULL::int AS created_by, NULL::int AS owner_id, r.updated_at FROM {rows} r
$$);--> statement-breakpoint
SELECT search_entries_attach('services', $$
  SELECT r.organization_id, r.id::text AS source_id, 'Service' AS type, r.name AS key, r.name AS title, '/services/' || r.id AS link,
    concat_ws(' ', r.type, r.external_id, r.description) AS body, NULL::int AS incident_id, NULL::int AS case_id, NULL::text AS sensitivity_level, NULL::int AS created_by, NULL::int AS owner_id, r.updated_at FROM {rows} r
$$);--> statement-breakpoint
SELECT search_entries_attach('teams', $$
  SELECT r.organization_id, r.id::text AS source_id, 'TeamContact' AS type, r.name AS key, r.name AS title, '/teams/' || r.id AS link,
    concat_ws(' ', r.email, r.company, r.notes) AS body, NULL::int AS incident_id, NULL::int AS case_id, NULL::text AS sensitivity_level, NULL::int AS created_by, NULL::int AS owner_id, r.updated_at FROM {rows} r
$$);--> statement-breakpoint
SELECT search_entries_attach('individuals', $$
  SELECT r.organization_id, r.id::text AS source_id, 'IndividualContact' AS type, r.email AS key, r.name AS title, '/individuals/' || r.id AS link,
    concat_ws(' ', r.email, r.title, r.company, r.notes) AS body, NULL::int AS incident_id, NULL::int AS case_id, NULL::text AS sensitivity_level, NULL::int AS created_by, NULL::int AS owner_id, r.updated_at FROM {rows} r
$$);
