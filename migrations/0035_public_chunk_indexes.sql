-- Anonymous visitors retrieve public chunks only. Through the full-text index that serves every
-- level, a question read the organization's matches of all levels and dropped the others (ten
-- rows read for each one kept where a tenth is public), and a question of common words walked the
-- chunks of internal sources before reaching a public one. These partial indexes hold public
-- chunks alone (retrieve.ts accessScopes names the level as a literal so the planner can use them).
CREATE INDEX "chunks_public_tsv_idx" ON "chunks" USING gin ("organization_id","project_id","tsv") WHERE "chunks"."sensitivity_level" = 'public';--> statement-breakpoint
CREATE INDEX "chunks_public_submission_idx" ON "chunks" USING btree ("organization_id","submission_id","ordinal") WHERE "chunks"."sensitivity_level" = 'public';
