ALTER TABLE "message_feedback" ADD COLUMN "error" text;--> statement-breakpoint
ALTER TABLE "message_feedback" ADD COLUMN "submission_id" integer;