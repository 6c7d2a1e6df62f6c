CREATE TABLE "oncall_channels" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "oncall_channels_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"email" text NOT NULL,
	"kind" text NOT NULL,
	"address" text NOT NULL,
	"delay_minutes" integer DEFAULT 0 NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"last_tested_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "oncall_channels_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "oncall_channels_delay_check" CHECK ("oncall_channels"."delay_minutes" >= 0)
);
--> statement-breakpoint
ALTER TABLE "oncall_channels" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "oncall_escalation_policies" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "oncall_escalation_policies_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"name" text NOT NULL,
	"description" text,
	"steps" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"repeat" integer DEFAULT 0 NOT NULL,
	"external_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "oncall_escalation_policies_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "oncall_escalation_policies_org_external_unique" UNIQUE("organization_id","external_id")
);
--> statement-breakpoint
ALTER TABLE "oncall_escalation_policies" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "oncall_notifications" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "oncall_notifications_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"page_id" integer NOT NULL,
	"step" integer NOT NULL,
	"round" integer NOT NULL,
	"email" text NOT NULL,
	"channel_id" integer DEFAULT 0 NOT NULL,
	"kind" text NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"due_at" timestamp with time zone NOT NULL,
	"sent_at" timestamp with time zone,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "oncall_notifications_once" UNIQUE("organization_id","page_id","step","round","email","channel_id")
);
--> statement-breakpoint
ALTER TABLE "oncall_notifications" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "oncall_overrides" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "oncall_overrides_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"schedule_id" integer NOT NULL,
	"email" text NOT NULL,
	"start_at" timestamp with time zone NOT NULL,
	"end_at" timestamp with time zone NOT NULL,
	"note" text,
	"external_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "oncall_overrides_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "oncall_overrides_org_external_unique" UNIQUE("organization_id","external_id"),
	CONSTRAINT "oncall_overrides_order_check" CHECK ("oncall_overrides"."end_at" > "oncall_overrides"."start_at")
);
--> statement-breakpoint
ALTER TABLE "oncall_overrides" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "oncall_page_tokens" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "oncall_page_tokens_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"page_id" integer NOT NULL,
	"email" text NOT NULL,
	"action" text NOT NULL,
	"token_hash" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "oncall_page_tokens_org_hash_unique" UNIQUE("organization_id","token_hash")
);
--> statement-breakpoint
ALTER TABLE "oncall_page_tokens" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "oncall_pages" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "oncall_pages_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"key" text NOT NULL,
	"title" text NOT NULL,
	"details" text,
	"service_id" integer,
	"escalation_policy_id" integer,
	"incident_id" integer,
	"case_id" integer,
	"provider" text DEFAULT 'firewatch-oncall' NOT NULL,
	"plugin_instance_id" integer,
	"external_id" text,
	"state" text DEFAULT 'triggered' NOT NULL,
	"steps" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"repeat" integer DEFAULT 0 NOT NULL,
	"step" integer DEFAULT -1 NOT NULL,
	"round" integer DEFAULT 0 NOT NULL,
	"next_step" integer,
	"next_round" integer,
	"next_at" timestamp with time zone,
	"acknowledged_by" text,
	"acknowledged_at" timestamp with time zone,
	"resolved_by" text,
	"resolved_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "oncall_pages_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "oncall_pages_org_key_unique" UNIQUE("organization_id","key"),
	CONSTRAINT "oncall_pages_state_check" CHECK ("oncall_pages"."state" in ('triggered', 'acknowledged', 'resolved'))
);
--> statement-breakpoint
ALTER TABLE "oncall_pages" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "oncall_person_feeds" (
	"organization_id" integer NOT NULL,
	"email" text NOT NULL,
	"token" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "oncall_person_feeds_organization_id_email_pk" PRIMARY KEY("organization_id","email"),
	CONSTRAINT "oncall_person_feeds_token_unique" UNIQUE("token")
);
--> statement-breakpoint
ALTER TABLE "oncall_person_feeds" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "oncall_schedules" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "oncall_schedules_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"name" text NOT NULL,
	"description" text,
	"time_zone" text DEFAULT 'UTC' NOT NULL,
	"layers" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"prep_lead_minutes" integer DEFAULT 60 NOT NULL,
	"feed_token" text NOT NULL,
	"external_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "oncall_schedules_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "oncall_schedules_feed_token_unique" UNIQUE("feed_token"),
	CONSTRAINT "oncall_schedules_org_external_unique" UNIQUE("organization_id","external_id")
);
--> statement-breakpoint
ALTER TABLE "oncall_schedules" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "oncall_team_members" (
	"organization_id" integer NOT NULL,
	"team_id" integer NOT NULL,
	"email" text NOT NULL,
	CONSTRAINT "oncall_team_members_organization_id_team_id_email_pk" PRIMARY KEY("organization_id","team_id","email")
);
--> statement-breakpoint
ALTER TABLE "oncall_team_members" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "oncall_preshift_preps" ADD COLUMN "schedule_id" integer;--> statement-breakpoint
ALTER TABLE "oncall_preshift_preps" ADD COLUMN "shift_start" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "oncall_channels" ADD CONSTRAINT "oncall_channels_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oncall_escalation_policies" ADD CONSTRAINT "oncall_escalation_policies_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oncall_escalation_policies" ADD CONSTRAINT "oncall_escalation_policies_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oncall_notifications" ADD CONSTRAINT "oncall_notifications_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oncall_notifications" ADD CONSTRAINT "oncall_notifications_page_fk" FOREIGN KEY ("organization_id","page_id") REFERENCES "public"."oncall_pages"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oncall_overrides" ADD CONSTRAINT "oncall_overrides_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oncall_overrides" ADD CONSTRAINT "oncall_overrides_schedule_fk" FOREIGN KEY ("organization_id","schedule_id") REFERENCES "public"."oncall_schedules"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oncall_page_tokens" ADD CONSTRAINT "oncall_page_tokens_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oncall_page_tokens" ADD CONSTRAINT "oncall_page_tokens_page_fk" FOREIGN KEY ("organization_id","page_id") REFERENCES "public"."oncall_pages"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oncall_pages" ADD CONSTRAINT "oncall_pages_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oncall_person_feeds" ADD CONSTRAINT "oncall_person_feeds_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oncall_schedules" ADD CONSTRAINT "oncall_schedules_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oncall_schedules" ADD CONSTRAINT "oncall_schedules_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oncall_team_members" ADD CONSTRAINT "oncall_team_members_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oncall_team_members" ADD CONSTRAINT "oncall_team_members_team_fk" FOREIGN KEY ("organization_id","team_id") REFERENCES "public"."teams"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "oncall_channels_org_email_idx" ON "oncall_channels" USING btree ("organization_id","email");--> statement-breakpoint
CREATE INDEX "oncall_escalation_policies_org_sort_idx" ON "oncall_escalation_policies" USING btree ("organization_id",lower("name") collate "C","id");--> statement-breakpoint
CREATE INDEX "oncall_overrides_org_schedule_idx" ON "oncall_overrides" USING btree ("organization_id","schedule_id","end_at");--> statement-breakpoint
CREATE INDEX "oncall_pages_org_created_idx" ON "oncall_pages" USING btree ("organization_id","created_at" DESC NULLS LAST,"id");--> statement-breakpoint
CREATE INDEX "oncall_pages_org_due_idx" ON "oncall_pages" USING btree ("organization_id","next_at") WHERE "oncall_pages"."state" = 'triggered' and "oncall_pages"."next_at" is not null;--> statement-breakpoint
CREATE INDEX "oncall_pages_org_incident_idx" ON "oncall_pages" USING btree ("organization_id","incident_id");--> statement-breakpoint
CREATE INDEX "oncall_pages_org_case_idx" ON "oncall_pages" USING btree ("organization_id","case_id");--> statement-breakpoint
CREATE INDEX "oncall_schedules_org_sort_idx" ON "oncall_schedules" USING btree ("organization_id",lower("name") collate "C","id");--> statement-breakpoint
ALTER TABLE "oncall_preshift_preps" ADD CONSTRAINT "oncall_preshift_preps_org_shift_unique" UNIQUE("organization_id","schedule_id","shift_start","handover_to");--> statement-breakpoint
CREATE POLICY "oncall_channels_tenant_isolation" ON "oncall_channels" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "oncall_escalation_policies_tenant_isolation" ON "oncall_escalation_policies" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "oncall_notifications_tenant_isolation" ON "oncall_notifications" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "oncall_overrides_tenant_isolation" ON "oncall_overrides" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "oncall_page_tokens_tenant_isolation" ON "oncall_page_tokens" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "oncall_pages_tenant_isolation" ON "oncall_pages" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "oncall_person_feeds_tenant_isolation" ON "oncall_person_feeds" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "oncall_schedules_tenant_isolation" ON "oncall_schedules" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "oncall_team_members_tenant_isolation" ON "oncall_team_members" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);