CREATE TABLE "chunk_lexemes" (
	"organization_id" integer NOT NULL,
	"project_id" integer NOT NULL,
	"lexeme" text NOT NULL,
	"ndoc" integer NOT NULL,
	CONSTRAINT "chunk_lexemes_organization_id_project_id_lexeme_pk" PRIMARY KEY("organization_id","project_id","lexeme")
);
--> statement-breakpoint
ALTER TABLE "chunk_lexemes" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
DROP INDEX "chunks_text_trgm_idx";--> statement-breakpoint
ALTER TABLE "chunk_lexemes" ADD CONSTRAINT "chunk_lexemes_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chunk_lexemes_org_lexeme_idx" ON "chunk_lexemes" USING btree ("organization_id","lexeme");--> statement-breakpoint
CREATE INDEX "chunks_org_text_trgm_idx" ON "chunks" USING gin ("organization_id","text" gin_trgm_ops);--> statement-breakpoint
CREATE POLICY "chunk_lexemes_tenant_isolation" ON "chunk_lexemes" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);