DROP INDEX "incidents_org_reported_v2_idx";--> statement-breakpoint
DROP INDEX "incidents_org_status_reported_v2_idx";--> statement-breakpoint
CREATE INDEX "incidents_org_reported_v3_idx" ON "incidents" USING btree ("organization_id","reported_at" DESC NULLS FIRST,"id","status","visibility");--> statement-breakpoint
CREATE INDEX "incidents_org_status_reported_v3_idx" ON "incidents" USING btree ("organization_id","status","reported_at" DESC NULLS FIRST,"id","visibility");