ALTER TABLE "cases" ADD COLUMN "documents" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "cases" ADD COLUMN "ticket" jsonb;--> statement-breakpoint
ALTER TABLE "cases" ADD COLUMN "storage" jsonb;--> statement-breakpoint
ALTER TABLE "cases" ADD COLUMN "storycurve_sketch_id" integer;--> statement-breakpoint
ALTER TABLE "cases" ADD COLUMN "storycurve_url" text;--> statement-breakpoint
ALTER TABLE "incidents" ADD COLUMN "services" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "incidents" ADD COLUMN "queries" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "sources" ADD COLUMN "incidents" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "sources" ADD COLUMN "alerts" jsonb DEFAULT '[]'::jsonb NOT NULL;