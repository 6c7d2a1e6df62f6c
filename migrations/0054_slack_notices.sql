CREATE TABLE "slack_notices" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "slack_notices_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"plugin_instance_id" integer NOT NULL,
	"target" text NOT NULL,
	"case_id" integer,
	"signal_group_id" integer,
	"channel_id" text,
	"ts" text,
	"digest" text,
	"posting_until" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "slack_notices_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "slack_notices_org_subject_unique" UNIQUE NULLS NOT DISTINCT("organization_id","plugin_instance_id","target","case_id","signal_group_id")
);
--> statement-breakpoint
ALTER TABLE "slack_notices" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "slack_notices" ADD CONSTRAINT "slack_notices_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "slack_notices" ADD CONSTRAINT "slack_notices_plugin_fk" FOREIGN KEY ("organization_id","plugin_instance_id") REFERENCES "public"."plugin_instances"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "slack_notices" ADD CONSTRAINT "slack_notices_case_fk" FOREIGN KEY ("organization_id","case_id") REFERENCES "public"."cases"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "slack_notices" ADD CONSTRAINT "slack_notices_group_fk" FOREIGN KEY ("organization_id","signal_group_id") REFERENCES "public"."signal_groups"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "slack_notices_org_case_idx" ON "slack_notices" USING btree ("organization_id","case_id");--> statement-breakpoint
CREATE POLICY "slack_notices_tenant_isolation" ON "slack_notices" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);