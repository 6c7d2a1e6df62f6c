CREATE TABLE "case_priorities" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "case_priorities_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"name" text NOT NULL,
	"description" text,
	"color" text,
	"enabled" boolean DEFAULT true NOT NULL,
	"default" boolean DEFAULT false NOT NULL,
	"view_order" integer DEFAULT 1 NOT NULL,
	"page_assignee" boolean DEFAULT false NOT NULL,
	"sla" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "case_priorities_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "case_priorities_org_project_name_unique" UNIQUE NULLS NOT DISTINCT("organization_id","project_id","name")
);
--> statement-breakpoint
ALTER TABLE "case_priorities" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "case_severities" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "case_severities_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"name" text NOT NULL,
	"description" text,
	"color" text,
	"enabled" boolean DEFAULT true NOT NULL,
	"default" boolean DEFAULT false NOT NULL,
	"view_order" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "case_severities_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "case_severities_org_project_name_unique" UNIQUE NULLS NOT DISTINCT("organization_id","project_id","name")
);
--> statement-breakpoint
ALTER TABLE "case_severities" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "case_types" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "case_types_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"name" text NOT NULL,
	"slug" text,
	"description" text,
	"visibility" text DEFAULT 'Open' NOT NULL,
	"case_template_document_id" integer,
	"incident_type_id" integer,
	"oncall_service_id" integer,
	"conversation_target" text,
	"plugin_metadata" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"custom_fields" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"storycurve_logging_enabled" boolean DEFAULT false NOT NULL,
	"exclude_from_metrics" boolean DEFAULT false NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"default" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "case_types_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "case_types_org_project_name_unique" UNIQUE NULLS NOT DISTINCT("organization_id","project_id","name"),
	CONSTRAINT "case_types_visibility_check" CHECK ("case_types"."visibility" in ('Open', 'Restricted'))
);
--> statement-breakpoint
ALTER TABLE "case_types" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "cost_models" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "cost_models_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"name" text NOT NULL,
	"description" text,
	"enabled" boolean DEFAULT true NOT NULL,
	"activities" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "cost_models_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "cost_models_org_project_name_unique" UNIQUE NULLS NOT DISTINCT("organization_id","project_id","name")
);
--> statement-breakpoint
ALTER TABLE "cost_models" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "incident_cost_types" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "incident_cost_types_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"name" text NOT NULL,
	"description" text,
	"category" text,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"default" boolean DEFAULT false NOT NULL,
	"editable" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "incident_cost_types_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "incident_cost_types_org_project_name_unique" UNIQUE NULLS NOT DISTINCT("organization_id","project_id","name")
);
--> statement-breakpoint
ALTER TABLE "incident_cost_types" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "incident_priorities" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "incident_priorities_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"name" text NOT NULL,
	"description" text,
	"color" text,
	"enabled" boolean DEFAULT true NOT NULL,
	"default" boolean DEFAULT false NOT NULL,
	"view_order" integer DEFAULT 1 NOT NULL,
	"page_commander" boolean DEFAULT false NOT NULL,
	"page_liaison" boolean DEFAULT false NOT NULL,
	"page_scribe" boolean DEFAULT false NOT NULL,
	"tactical_report_reminder" integer DEFAULT 24 NOT NULL,
	"executive_report_reminder" integer DEFAULT 24 NOT NULL,
	"create_incident_postmortem" boolean DEFAULT false NOT NULL,
	"create_ai_summaries_in_background" boolean DEFAULT false NOT NULL,
	"require_manual_confirmation_for_incident_actions" boolean DEFAULT false NOT NULL,
	"enable_opsgpt_incident_copilot" boolean DEFAULT false NOT NULL,
	"enable_opsgpt_task_copilot" boolean DEFAULT false NOT NULL,
	"auto_add_participants_based_on_ai_generated_tags" boolean DEFAULT false NOT NULL,
	"auto_add_follow_ups_from_recording_transcript" boolean DEFAULT false NOT NULL,
	"auto_add_tasks_from_recording_transcript" boolean DEFAULT false NOT NULL,
	"auto_post_to_status_page" boolean DEFAULT false NOT NULL,
	"auto_schedule_postmortem_meeting" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "incident_priorities_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "incident_priorities_org_project_name_unique" UNIQUE NULLS NOT DISTINCT("organization_id","project_id","name")
);
--> statement-breakpoint
ALTER TABLE "incident_priorities" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "incident_role_policies" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "incident_role_policies_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"role" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"order" integer DEFAULT 1 NOT NULL,
	"incident_type_id" integer,
	"incident_priority_id" integer,
	"service_id" integer,
	"individual_id" integer,
	"engage_next_oncall" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "incident_role_policies_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "incident_role_policies_role_check" CHECK ("incident_role_policies"."role" in ('reporter', 'commander', 'liaison', 'scribe', 'participant', 'observer'))
);
--> statement-breakpoint
ALTER TABLE "incident_role_policies" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "incident_severities" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "incident_severities_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"name" text NOT NULL,
	"description" text,
	"color" text,
	"enabled" boolean DEFAULT true NOT NULL,
	"default" boolean DEFAULT false NOT NULL,
	"view_order" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "incident_severities_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "incident_severities_org_project_name_unique" UNIQUE NULLS NOT DISTINCT("organization_id","project_id","name")
);
--> statement-breakpoint
ALTER TABLE "incident_severities" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "incident_types" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "incident_types_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"name" text NOT NULL,
	"slug" text,
	"description" text,
	"visibility" text DEFAULT 'Open' NOT NULL,
	"incident_template_document_id" integer,
	"tracking_template_document_id" integer,
	"review_template_document_id" integer,
	"executive_template_document_id" integer,
	"plugin_metadata" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"custom_fields" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"custom_checklist" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"postmortem_custom_fields" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"repo_urls" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"storycurve_logging_enabled" boolean DEFAULT false NOT NULL,
	"exclude_from_metrics" boolean DEFAULT false NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"default" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "incident_types_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "incident_types_org_project_name_unique" UNIQUE NULLS NOT DISTINCT("organization_id","project_id","name"),
	CONSTRAINT "incident_types_visibility_check" CHECK ("incident_types"."visibility" in ('Open', 'Restricted'))
);
--> statement-breakpoint
ALTER TABLE "incident_types" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "individuals" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "individuals_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"name" text NOT NULL,
	"email" text NOT NULL,
	"company" text,
	"notes" text,
	"title" text,
	"external_id" text,
	"filters" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"is_external" boolean DEFAULT false NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "individuals_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "individuals_org_project_email_unique" UNIQUE NULLS NOT DISTINCT("organization_id","project_id","email")
);
--> statement-breakpoint
ALTER TABLE "individuals" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "services" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "services_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"name" text NOT NULL,
	"type" text DEFAULT 'pagerduty-oncall' NOT NULL,
	"external_id" text,
	"is_active" boolean DEFAULT true NOT NULL,
	"description" text,
	"filters" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"health_metrics" boolean DEFAULT false NOT NULL,
	"evergreen" boolean DEFAULT false NOT NULL,
	"evergreen_owner" text,
	"evergreen_reminder_interval" integer DEFAULT 90 NOT NULL,
	"evergreen_last_reminder_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "services_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "services_org_project_name_unique" UNIQUE NULLS NOT DISTINCT("organization_id","project_id","name")
);
--> statement-breakpoint
ALTER TABLE "services" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "teams" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "teams_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"name" text NOT NULL,
	"email" text,
	"company" text,
	"notes" text,
	"filters" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"evergreen" boolean DEFAULT false NOT NULL,
	"evergreen_owner" text,
	"evergreen_reminder_interval" integer DEFAULT 90 NOT NULL,
	"evergreen_last_reminder_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "teams_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "teams_org_project_name_unique" UNIQUE NULLS NOT DISTINCT("organization_id","project_id","name")
);
--> statement-breakpoint
ALTER TABLE "teams" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "documents" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "documents_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"name" text NOT NULL,
	"resource_type" text,
	"resource_id" text,
	"weblink" text,
	"description" text,
	"filters" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"evergreen" boolean DEFAULT false NOT NULL,
	"evergreen_owner" text,
	"evergreen_reminder_interval" integer DEFAULT 90 NOT NULL,
	"evergreen_last_reminder_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "documents_org_id_unique" UNIQUE("organization_id","id")
);
--> statement-breakpoint
ALTER TABLE "documents" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
DROP INDEX "tags_org_name_idx";--> statement-breakpoint
ALTER TABLE "case_priorities" ADD CONSTRAINT "case_priorities_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "case_priorities" ADD CONSTRAINT "case_priorities_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "case_severities" ADD CONSTRAINT "case_severities_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "case_severities" ADD CONSTRAINT "case_severities_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "case_types" ADD CONSTRAINT "case_types_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "case_types" ADD CONSTRAINT "case_types_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "case_types" ADD CONSTRAINT "case_types_template_fk" FOREIGN KEY ("organization_id","case_template_document_id") REFERENCES "public"."documents"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "case_types" ADD CONSTRAINT "case_types_incident_type_fk" FOREIGN KEY ("organization_id","incident_type_id") REFERENCES "public"."incident_types"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "case_types" ADD CONSTRAINT "case_types_oncall_service_fk" FOREIGN KEY ("organization_id","oncall_service_id") REFERENCES "public"."services"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cost_models" ADD CONSTRAINT "cost_models_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cost_models" ADD CONSTRAINT "cost_models_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incident_cost_types" ADD CONSTRAINT "incident_cost_types_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incident_cost_types" ADD CONSTRAINT "incident_cost_types_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incident_priorities" ADD CONSTRAINT "incident_priorities_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incident_priorities" ADD CONSTRAINT "incident_priorities_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incident_role_policies" ADD CONSTRAINT "incident_role_policies_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incident_role_policies" ADD CONSTRAINT "incident_role_policies_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incident_role_policies" ADD CONSTRAINT "incident_role_policies_incident_type_fk" FOREIGN KEY ("organization_id","incident_type_id") REFERENCES "public"."incident_types"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incident_role_policies" ADD CONSTRAINT "incident_role_policies_incident_priority_fk" FOREIGN KEY ("organization_id","incident_priority_id") REFERENCES "public"."incident_priorities"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incident_role_policies" ADD CONSTRAINT "incident_role_policies_service_fk" FOREIGN KEY ("organization_id","service_id") REFERENCES "public"."services"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incident_role_policies" ADD CONSTRAINT "incident_role_policies_individual_fk" FOREIGN KEY ("organization_id","individual_id") REFERENCES "public"."individuals"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incident_severities" ADD CONSTRAINT "incident_severities_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incident_severities" ADD CONSTRAINT "incident_severities_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incident_types" ADD CONSTRAINT "incident_types_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incident_types" ADD CONSTRAINT "incident_types_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incident_types" ADD CONSTRAINT "incident_types_incident_template_fk" FOREIGN KEY ("organization_id","incident_template_document_id") REFERENCES "public"."documents"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incident_types" ADD CONSTRAINT "incident_types_tracking_template_fk" FOREIGN KEY ("organization_id","tracking_template_document_id") REFERENCES "public"."documents"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incident_types" ADD CONSTRAINT "incident_types_review_template_fk" FOREIGN KEY ("organization_id","review_template_document_id") REFERENCES "public"."documents"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incident_types" ADD CONSTRAINT "incident_types_executive_template_fk" FOREIGN KEY ("organization_id","executive_template_document_id") REFERENCES "public"."documents"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "individuals" ADD CONSTRAINT "individuals_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "individuals" ADD CONSTRAINT "individuals_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "services" ADD CONSTRAINT "services_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "services" ADD CONSTRAINT "services_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "teams" ADD CONSTRAINT "teams_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "teams" ADD CONSTRAINT "teams_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "documents" ADD CONSTRAINT "documents_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "documents" ADD CONSTRAINT "documents_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "case_priorities_org_sort_idx" ON "case_priorities" USING btree ("organization_id","view_order","id");--> statement-breakpoint
CREATE INDEX "case_severities_org_sort_idx" ON "case_severities" USING btree ("organization_id","view_order","id");--> statement-breakpoint
CREATE INDEX "case_types_org_sort_idx" ON "case_types" USING btree ("organization_id","name","id");--> statement-breakpoint
CREATE INDEX "cost_models_org_sort_idx" ON "cost_models" USING btree ("organization_id","name","id");--> statement-breakpoint
CREATE INDEX "incident_cost_types_org_sort_idx" ON "incident_cost_types" USING btree ("organization_id","name","id");--> statement-breakpoint
CREATE INDEX "incident_priorities_org_sort_idx" ON "incident_priorities" USING btree ("organization_id","view_order","id");--> statement-breakpoint
CREATE INDEX "incident_role_policies_org_sort_idx" ON "incident_role_policies" USING btree ("organization_id","role","order","id");--> statement-breakpoint
CREATE INDEX "incident_severities_org_sort_idx" ON "incident_severities" USING btree ("organization_id","view_order","id");--> statement-breakpoint
CREATE INDEX "incident_types_org_sort_idx" ON "incident_types" USING btree ("organization_id","name","id");--> statement-breakpoint
CREATE INDEX "individuals_org_sort_idx" ON "individuals" USING btree ("organization_id","name","id");--> statement-breakpoint
CREATE INDEX "individuals_org_name_trgm_idx" ON "individuals" USING gin ("organization_id","name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "services_org_sort_idx" ON "services" USING btree ("organization_id","name","id");--> statement-breakpoint
CREATE INDEX "services_org_name_trgm_idx" ON "services" USING gin ("organization_id","name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "teams_org_sort_idx" ON "teams" USING btree ("organization_id","name","id");--> statement-breakpoint
CREATE INDEX "teams_org_name_trgm_idx" ON "teams" USING gin ("organization_id","name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "documents_org_sort_idx" ON "documents" USING btree ("organization_id","name","id");--> statement-breakpoint
CREATE INDEX "documents_org_name_trgm_idx" ON "documents" USING gin ("organization_id","name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "documents_org_type_idx" ON "documents" USING btree ("organization_id","resource_type","name");--> statement-breakpoint
CREATE INDEX "tags_org_name_idx" ON "tags" USING btree ("organization_id",lower("name") collate "C","id");--> statement-breakpoint
CREATE POLICY "case_priorities_tenant_isolation" ON "case_priorities" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "case_severities_tenant_isolation" ON "case_severities" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "case_types_tenant_isolation" ON "case_types" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "cost_models_tenant_isolation" ON "cost_models" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "incident_cost_types_tenant_isolation" ON "incident_cost_types" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "incident_priorities_tenant_isolation" ON "incident_priorities" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "incident_role_policies_tenant_isolation" ON "incident_role_policies" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "incident_severities_tenant_isolation" ON "incident_severities" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "incident_types_tenant_isolation" ON "incident_types" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "individuals_tenant_isolation" ON "individuals" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "services_tenant_isolation" ON "services" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "teams_tenant_isolation" ON "teams" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "documents_tenant_isolation" ON "documents" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);