DROP INDEX "cases_org_reported_idx";--> statement-breakpoint
DROP INDEX "cases_org_status_reported_idx";--> statement-breakpoint
DROP INDEX "incidents_org_reported_idx";--> statement-breakpoint
DROP INDEX "incidents_org_status_reported_idx";--> statement-breakpoint
DROP INDEX "incidents_org_project_reported_idx";--> statement-breakpoint
DROP INDEX "tasks_org_created_idx";--> statement-breakpoint
CREATE INDEX "cases_org_reported_v2_idx" ON "cases" USING btree ("organization_id","reported_at" DESC NULLS FIRST,"id");--> statement-breakpoint
CREATE INDEX "cases_org_status_reported_v2_idx" ON "cases" USING btree ("organization_id","status","reported_at" DESC NULLS FIRST,"id");--> statement-breakpoint
CREATE INDEX "incidents_org_reported_v2_idx" ON "incidents" USING btree ("organization_id","reported_at" DESC NULLS FIRST,"id");--> statement-breakpoint
CREATE INDEX "incidents_org_status_reported_v2_idx" ON "incidents" USING btree ("organization_id","status","reported_at" DESC NULLS FIRST,"id");--> statement-breakpoint
CREATE INDEX "incidents_org_project_reported_v2_idx" ON "incidents" USING btree ("organization_id","project_id","reported_at" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "tasks_org_created_v2_idx" ON "tasks" USING btree ("organization_id","created_at" DESC NULLS FIRST,"id");