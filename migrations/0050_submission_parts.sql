CREATE TABLE "submission_parts" (
	"organization_id" integer NOT NULL,
	"submission_id" integer NOT NULL,
	"seq" integer NOT NULL,
	"data" "bytea" NOT NULL,
	CONSTRAINT "submission_parts_pk" PRIMARY KEY("organization_id","submission_id","seq")
);
--> statement-breakpoint
ALTER TABLE "submission_parts" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "submission_parts" ADD CONSTRAINT "submission_parts_submission_fk" FOREIGN KEY ("organization_id","submission_id") REFERENCES "public"."submissions"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Existing files move to parts of a megabyte (1048576 bytes) before their column goes.
INSERT INTO "submission_parts" ("organization_id", "submission_id", "seq", "data")
SELECT s."organization_id", s."id", p.seq, substring(s."content" from p.seq * 1048576 + 1 for 1048576)
FROM "submissions" s, generate_series(0, (octet_length(s."content") - 1) / 1048576) AS p(seq)
WHERE octet_length(s."content") > 0;--> statement-breakpoint
ALTER TABLE "submissions" DROP COLUMN "content";--> statement-breakpoint
CREATE POLICY "submission_parts_tenant_isolation" ON "submission_parts" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);