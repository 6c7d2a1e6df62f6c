ALTER TABLE "slack_channels" ADD COLUMN "reports_posting_by" text;--> statement-breakpoint
ALTER TABLE "slack_channels" ADD COLUMN "reports_posting_until" timestamp with time zone;