ALTER TABLE "case_types" ADD COLUMN "dedicated_channel" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "slack_channels" ADD COLUMN "topic" text;--> statement-breakpoint
ALTER TABLE "slack_channels" ADD COLUMN "card_digest" text;--> statement-breakpoint
ALTER TABLE "slack_channels" ADD COLUMN "documents_bookmarked" text[] DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE "slack_channels" ADD COLUMN "reports_posted" integer[] DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE "slack_channels" ADD CONSTRAINT "slack_channels_case_fk" FOREIGN KEY ("organization_id","case_id") REFERENCES "public"."cases"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "slack_channels_org_case_idx" ON "slack_channels" USING btree ("organization_id","case_id");