ALTER TABLE "signals" ADD COLUMN "signature_header" text;--> statement-breakpoint
ALTER TABLE "signals" ADD COLUMN "timestamp_header" text;--> statement-breakpoint
ALTER TABLE "signals" ADD COLUMN "grouping" text DEFAULT 'group' NOT NULL;--> statement-breakpoint
ALTER TABLE "signals" ADD COLUMN "group_by" text[] DEFAULT '{}'::text[] NOT NULL;