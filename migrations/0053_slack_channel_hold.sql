ALTER TABLE "slack_channels" ADD COLUMN "following_by" text;--> statement-breakpoint
ALTER TABLE "slack_channels" ADD COLUMN "following_until" timestamp with time zone;