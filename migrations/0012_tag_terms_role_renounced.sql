ALTER TABLE "incident_role_policies" ADD COLUMN "renounced_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "tags" ADD COLUMN "terms" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
CREATE INDEX "tags_org_terms_idx" ON "tags" USING gin ("organization_id","terms");