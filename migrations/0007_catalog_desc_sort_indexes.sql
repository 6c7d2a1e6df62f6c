DROP INDEX "commits_org_sort_idx";--> statement-breakpoint
DROP INDEX "commands_org_sort_idx";--> statement-breakpoint
DROP INDEX "feedback_org_sort_idx";--> statement-breakpoint
DROP INDEX "service_feedback_org_sort_idx";--> statement-breakpoint
DROP INDEX "forms_org_sort_idx";--> statement-breakpoint
DROP INDEX "best_practices_org_sort_idx";--> statement-breakpoint
DROP INDEX "weblinks_org_sort_idx";--> statement-breakpoint
DROP INDEX "oncall_handoffs_org_sort_idx";--> statement-breakpoint
DROP INDEX "oncall_preshift_preps_org_sort_idx";--> statement-breakpoint
CREATE INDEX "commits_org_sort_idx" ON "commits" USING btree ("organization_id","commit_date" DESC NULLS FIRST,"id");--> statement-breakpoint
CREATE INDEX "commands_org_sort_idx" ON "commands" USING btree ("organization_id","count" DESC NULLS FIRST,"id");--> statement-breakpoint
CREATE INDEX "feedback_org_sort_idx" ON "feedback" USING btree ("organization_id","created_at" DESC NULLS FIRST,"id");--> statement-breakpoint
CREATE INDEX "service_feedback_org_sort_idx" ON "service_feedback" USING btree ("organization_id","created_at" DESC NULLS FIRST,"id");--> statement-breakpoint
CREATE INDEX "forms_org_sort_idx" ON "forms" USING btree ("organization_id","created_at" DESC NULLS FIRST,"id");--> statement-breakpoint
CREATE INDEX "best_practices_org_sort_idx" ON "best_practices" USING btree ("organization_id","count" DESC NULLS FIRST,"id");--> statement-breakpoint
CREATE INDEX "weblinks_org_sort_idx" ON "weblinks" USING btree ("organization_id","count" DESC NULLS FIRST,"id");--> statement-breakpoint
CREATE INDEX "oncall_handoffs_org_sort_idx" ON "oncall_handoffs" USING btree ("organization_id","end_time" DESC NULLS FIRST,"id");--> statement-breakpoint
CREATE INDEX "oncall_preshift_preps_org_sort_idx" ON "oncall_preshift_preps" USING btree ("organization_id","sent_at" DESC NULLS FIRST,"id");