DROP INDEX "tags_org_count_idx";--> statement-breakpoint
CREATE INDEX "tags_org_count_idx" ON "tags" USING btree ("organization_id","count" DESC NULLS FIRST,"id");