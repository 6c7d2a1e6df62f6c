CREATE TABLE "case_participants" (
	"organization_id" integer NOT NULL,
	"case_id" integer NOT NULL,
	"email" text NOT NULL,
	CONSTRAINT "case_participants_organization_id_case_id_email_pk" PRIMARY KEY("organization_id","case_id","email")
);
--> statement-breakpoint
ALTER TABLE "case_participants" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "case_tags" (
	"organization_id" integer NOT NULL,
	"case_id" integer NOT NULL,
	"tag_id" integer NOT NULL,
	CONSTRAINT "case_tags_organization_id_case_id_tag_id_pk" PRIMARY KEY("organization_id","case_id","tag_id")
);
--> statement-breakpoint
ALTER TABLE "case_tags" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "cases" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "cases_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer NOT NULL,
	"name" text NOT NULL,
	"title" text NOT NULL,
	"description" text,
	"resolution" text,
	"resolution_reason" text,
	"status" text DEFAULT 'New' NOT NULL,
	"visibility" text DEFAULT 'Open' NOT NULL,
	"case_type_id" integer,
	"case_priority_id" integer,
	"case_severity_id" integer,
	"assignee_email" text,
	"reporter_email" text,
	"reported_at" timestamp with time zone DEFAULT now() NOT NULL,
	"triage_at" timestamp with time zone,
	"escalated_at" timestamp with time zone,
	"stable_at" timestamp with time zone,
	"closed_at" timestamp with time zone,
	"incident_id" integer,
	"conversation_id" integer,
	"custom_fields" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "cases_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "cases_org_name_unique" UNIQUE("organization_id","name"),
	CONSTRAINT "cases_status_check" CHECK ("cases"."status" in ('New', 'Triage', 'Escalated', 'Stable', 'Closed')),
	CONSTRAINT "cases_visibility_check" CHECK ("cases"."visibility" in ('Open', 'Restricted')),
	CONSTRAINT "cases_resolution_reason_check" CHECK ("cases"."resolution_reason" is null or "cases"."resolution_reason" in ('Benign', 'Contained', 'Escalated', 'False Positive', 'Information Gathered', 'Insufficient Information', 'Mitigated', 'Operational Error', 'Policy Violation', 'User Acknowledged'))
);
--> statement-breakpoint
ALTER TABLE "cases" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "comments" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "comments_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"incident_id" integer,
	"case_id" integer,
	"author_email" text,
	"text" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "comments" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "conversation_messages" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "conversation_messages_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"conversation_id" integer NOT NULL,
	"author_email" text NOT NULL,
	"text" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "conversation_messages" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "conversations" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "conversations_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"incident_id" integer,
	"case_id" integer,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "conversations_org_id_unique" UNIQUE("organization_id","id")
);
--> statement-breakpoint
ALTER TABLE "conversations" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "events" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"incident_id" integer,
	"case_id" integer,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"ended_at" timestamp with time zone,
	"type" text DEFAULT 'Other' NOT NULL,
	"source" text NOT NULL,
	"description" text NOT NULL,
	"details" jsonb,
	"owner" text,
	"pinned" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "events" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "incident_costs" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "incident_costs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"incident_id" integer NOT NULL,
	"incident_cost_type_id" integer,
	"kind" text DEFAULT 'response' NOT NULL,
	"amount" numeric(14, 2) DEFAULT 0 NOT NULL,
	"details" jsonb,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "incident_costs_org_incident_kind_unique" UNIQUE("organization_id","incident_id","kind")
);
--> statement-breakpoint
ALTER TABLE "incident_costs" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "incident_participants" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "incident_participants_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"incident_id" integer NOT NULL,
	"email" text NOT NULL,
	"name" text,
	"added_reason" text,
	"added_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "incident_participants_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "incident_participants_org_incident_email_unique" UNIQUE("organization_id","incident_id","email")
);
--> statement-breakpoint
ALTER TABLE "incident_participants" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "incident_resources" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "incident_resources_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"incident_id" integer NOT NULL,
	"resource_type" text NOT NULL,
	"name" text NOT NULL,
	"weblink" text,
	"description" text,
	"content" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "incident_resources" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "incident_roles" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "incident_roles_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"incident_id" integer NOT NULL,
	"participant_id" integer NOT NULL,
	"role" text NOT NULL,
	"assumed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"renounced_at" timestamp with time zone,
	CONSTRAINT "incident_roles_role_check" CHECK ("incident_roles"."role" in ('reporter', 'commander', 'liaison', 'scribe', 'participant', 'observer'))
);
--> statement-breakpoint
ALTER TABLE "incident_roles" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "incident_steps" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "incident_steps_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"incident_id" integer NOT NULL,
	"position" integer NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"status" text DEFAULT 'Pending' NOT NULL,
	"notes" text,
	"updated_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "incident_steps" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "incident_subscriptions" (
	"organization_id" integer NOT NULL,
	"incident_id" integer NOT NULL,
	"email" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "incident_subscriptions_organization_id_incident_id_email_pk" PRIMARY KEY("organization_id","incident_id","email")
);
--> statement-breakpoint
ALTER TABLE "incident_subscriptions" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "incident_tags" (
	"organization_id" integer NOT NULL,
	"incident_id" integer NOT NULL,
	"tag_id" integer NOT NULL,
	CONSTRAINT "incident_tags_organization_id_incident_id_tag_id_pk" PRIMARY KEY("organization_id","incident_id","tag_id")
);
--> statement-breakpoint
ALTER TABLE "incident_tags" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "incidents" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "incidents_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer NOT NULL,
	"name" text NOT NULL,
	"title" text NOT NULL,
	"description" text,
	"resolution" text,
	"status" text DEFAULT 'Active' NOT NULL,
	"visibility" text DEFAULT 'Open' NOT NULL,
	"incident_type_id" integer,
	"incident_priority_id" integer,
	"incident_severity_id" integer,
	"reporter_email" text,
	"commander_email" text,
	"reported_at" timestamp with time zone DEFAULT now() NOT NULL,
	"stable_at" timestamp with time zone,
	"closed_at" timestamp with time zone,
	"conversation_id" integer,
	"conference_url" text,
	"custom_fields" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"search" "tsvector" GENERATED ALWAYS AS (to_tsvector('english', coalesce(title, '') || ' ' || coalesce(description, ''))) STORED,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "incidents_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "incidents_org_name_unique" UNIQUE("organization_id","name"),
	CONSTRAINT "incidents_status_check" CHECK ("incidents"."status" in ('Active', 'Stable', 'Closed')),
	CONSTRAINT "incidents_visibility_check" CHECK ("incidents"."visibility" in ('Open', 'Restricted'))
);
--> statement-breakpoint
ALTER TABLE "incidents" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "name_counters" (
	"organization_id" integer NOT NULL,
	"kind" text NOT NULL,
	"value" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "name_counters_organization_id_kind_pk" PRIMARY KEY("organization_id","kind")
);
--> statement-breakpoint
ALTER TABLE "name_counters" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "reports" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "reports_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"incident_id" integer NOT NULL,
	"type" text NOT NULL,
	"details" jsonb NOT NULL,
	"author_email" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "reports" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "tasks" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "tasks_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"incident_id" integer,
	"case_id" integer,
	"description" text NOT NULL,
	"status" text DEFAULT 'Open' NOT NULL,
	"priority" text DEFAULT 'Medium' NOT NULL,
	"type" text DEFAULT 'Follow-up' NOT NULL,
	"source" text DEFAULT 'Incident Participant' NOT NULL,
	"creator_email" text,
	"owner_email" text,
	"assignees" text[] DEFAULT '{}'::text[] NOT NULL,
	"resolve_by" timestamp with time zone,
	"resolved_at" timestamp with time zone,
	"reminders" boolean DEFAULT true NOT NULL,
	"last_reminder_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tasks_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "tasks_status_check" CHECK ("tasks"."status" in ('Open', 'Resolved'))
);
--> statement-breakpoint
ALTER TABLE "tasks" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "case_participants" ADD CONSTRAINT "case_participants_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "case_participants" ADD CONSTRAINT "case_participants_case_fk" FOREIGN KEY ("organization_id","case_id") REFERENCES "public"."cases"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "case_tags" ADD CONSTRAINT "case_tags_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "case_tags" ADD CONSTRAINT "case_tags_case_fk" FOREIGN KEY ("organization_id","case_id") REFERENCES "public"."cases"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "case_tags" ADD CONSTRAINT "case_tags_tag_fk" FOREIGN KEY ("organization_id","tag_id") REFERENCES "public"."tags"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cases" ADD CONSTRAINT "cases_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cases" ADD CONSTRAINT "cases_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cases" ADD CONSTRAINT "cases_incident_fk" FOREIGN KEY ("organization_id","incident_id") REFERENCES "public"."incidents"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comments" ADD CONSTRAINT "comments_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comments" ADD CONSTRAINT "comments_incident_fk" FOREIGN KEY ("organization_id","incident_id") REFERENCES "public"."incidents"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comments" ADD CONSTRAINT "comments_case_fk" FOREIGN KEY ("organization_id","case_id") REFERENCES "public"."cases"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversation_messages" ADD CONSTRAINT "conversation_messages_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversation_messages" ADD CONSTRAINT "conversation_messages_conversation_fk" FOREIGN KEY ("organization_id","conversation_id") REFERENCES "public"."conversations"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversations" ADD CONSTRAINT "conversations_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversations" ADD CONSTRAINT "conversations_incident_fk" FOREIGN KEY ("organization_id","incident_id") REFERENCES "public"."incidents"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversations" ADD CONSTRAINT "conversations_case_fk" FOREIGN KEY ("organization_id","case_id") REFERENCES "public"."cases"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_incident_fk" FOREIGN KEY ("organization_id","incident_id") REFERENCES "public"."incidents"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_case_fk" FOREIGN KEY ("organization_id","case_id") REFERENCES "public"."cases"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incident_costs" ADD CONSTRAINT "incident_costs_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incident_costs" ADD CONSTRAINT "incident_costs_incident_fk" FOREIGN KEY ("organization_id","incident_id") REFERENCES "public"."incidents"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incident_participants" ADD CONSTRAINT "incident_participants_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incident_participants" ADD CONSTRAINT "incident_participants_incident_fk" FOREIGN KEY ("organization_id","incident_id") REFERENCES "public"."incidents"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incident_resources" ADD CONSTRAINT "incident_resources_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incident_resources" ADD CONSTRAINT "incident_resources_incident_fk" FOREIGN KEY ("organization_id","incident_id") REFERENCES "public"."incidents"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incident_roles" ADD CONSTRAINT "incident_roles_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incident_roles" ADD CONSTRAINT "incident_roles_incident_fk" FOREIGN KEY ("organization_id","incident_id") REFERENCES "public"."incidents"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incident_roles" ADD CONSTRAINT "incident_roles_participant_fk" FOREIGN KEY ("organization_id","participant_id") REFERENCES "public"."incident_participants"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incident_steps" ADD CONSTRAINT "incident_steps_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incident_steps" ADD CONSTRAINT "incident_steps_incident_fk" FOREIGN KEY ("organization_id","incident_id") REFERENCES "public"."incidents"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incident_subscriptions" ADD CONSTRAINT "incident_subscriptions_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incident_subscriptions" ADD CONSTRAINT "incident_subscriptions_incident_fk" FOREIGN KEY ("organization_id","incident_id") REFERENCES "public"."incidents"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incident_tags" ADD CONSTRAINT "incident_tags_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incident_tags" ADD CONSTRAINT "incident_tags_incident_fk" FOREIGN KEY ("organization_id","incident_id") REFERENCES "public"."incidents"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incident_tags" ADD CONSTRAINT "incident_tags_tag_fk" FOREIGN KEY ("organization_id","tag_id") REFERENCES "public"."tags"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incidents" ADD CONSTRAINT "incidents_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incidents" ADD CONSTRAINT "incidents_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "name_counters" ADD CONSTRAINT "name_counters_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reports" ADD CONSTRAINT "reports_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reports" ADD CONSTRAINT "reports_incident_fk" FOREIGN KEY ("organization_id","incident_id") REFERENCES "public"."incidents"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_incident_fk" FOREIGN KEY ("organization_id","incident_id") REFERENCES "public"."incidents"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_case_fk" FOREIGN KEY ("organization_id","case_id") REFERENCES "public"."cases"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "case_tags_org_tag_idx" ON "case_tags" USING btree ("organization_id","tag_id","case_id");--> statement-breakpoint
CREATE INDEX "cases_org_reported_idx" ON "cases" USING btree ("organization_id","reported_at" DESC NULLS LAST,"id");--> statement-breakpoint
CREATE INDEX "cases_org_status_reported_idx" ON "cases" USING btree ("organization_id","status","reported_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "cases_org_incident_idx" ON "cases" USING btree ("organization_id","incident_id");--> statement-breakpoint
CREATE INDEX "comments_org_incident_idx" ON "comments" USING btree ("organization_id","incident_id","created_at");--> statement-breakpoint
CREATE INDEX "comments_org_case_idx" ON "comments" USING btree ("organization_id","case_id","created_at");--> statement-breakpoint
CREATE INDEX "conversation_messages_org_conversation_idx" ON "conversation_messages" USING btree ("organization_id","conversation_id","created_at");--> statement-breakpoint
CREATE INDEX "conversations_org_incident_idx" ON "conversations" USING btree ("organization_id","incident_id");--> statement-breakpoint
CREATE INDEX "events_org_incident_started_idx" ON "events" USING btree ("organization_id","incident_id","started_at");--> statement-breakpoint
CREATE INDEX "events_org_case_started_idx" ON "events" USING btree ("organization_id","case_id","started_at");--> statement-breakpoint
CREATE INDEX "incident_participants_org_email_idx" ON "incident_participants" USING btree ("organization_id","email","incident_id");--> statement-breakpoint
CREATE INDEX "incident_resources_org_incident_idx" ON "incident_resources" USING btree ("organization_id","incident_id");--> statement-breakpoint
CREATE INDEX "incident_roles_org_incident_idx" ON "incident_roles" USING btree ("organization_id","incident_id");--> statement-breakpoint
CREATE INDEX "incident_steps_org_incident_idx" ON "incident_steps" USING btree ("organization_id","incident_id","position");--> statement-breakpoint
CREATE INDEX "incident_tags_org_tag_idx" ON "incident_tags" USING btree ("organization_id","tag_id","incident_id");--> statement-breakpoint
CREATE INDEX "incidents_org_reported_idx" ON "incidents" USING btree ("organization_id","reported_at" DESC NULLS LAST,"id");--> statement-breakpoint
CREATE INDEX "incidents_org_status_reported_idx" ON "incidents" USING btree ("organization_id","status","reported_at" DESC NULLS LAST,"id");--> statement-breakpoint
CREATE INDEX "incidents_org_project_reported_idx" ON "incidents" USING btree ("organization_id","project_id","reported_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "incidents_org_commander_idx" ON "incidents" USING btree ("organization_id","commander_email");--> statement-breakpoint
CREATE INDEX "incidents_org_search_idx" ON "incidents" USING gin ("organization_id","search");--> statement-breakpoint
CREATE INDEX "reports_org_incident_idx" ON "reports" USING btree ("organization_id","incident_id","created_at");--> statement-breakpoint
CREATE INDEX "tasks_org_created_idx" ON "tasks" USING btree ("organization_id","created_at" DESC NULLS LAST,"id");--> statement-breakpoint
CREATE INDEX "tasks_org_incident_idx" ON "tasks" USING btree ("organization_id","incident_id");--> statement-breakpoint
CREATE INDEX "tasks_org_assignees_idx" ON "tasks" USING gin ("organization_id","assignees");--> statement-breakpoint
CREATE INDEX "tasks_org_due_idx" ON "tasks" USING btree ("organization_id","resolve_by") WHERE "tasks"."status" = 'Open' and "tasks"."reminders";--> statement-breakpoint
CREATE POLICY "case_participants_tenant_isolation" ON "case_participants" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "case_tags_tenant_isolation" ON "case_tags" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "cases_tenant_isolation" ON "cases" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "comments_tenant_isolation" ON "comments" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "conversation_messages_tenant_isolation" ON "conversation_messages" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "conversations_tenant_isolation" ON "conversations" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "events_tenant_isolation" ON "events" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "incident_costs_tenant_isolation" ON "incident_costs" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "incident_participants_tenant_isolation" ON "incident_participants" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "incident_resources_tenant_isolation" ON "incident_resources" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "incident_roles_tenant_isolation" ON "incident_roles" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "incident_steps_tenant_isolation" ON "incident_steps" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "incident_subscriptions_tenant_isolation" ON "incident_subscriptions" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "incident_tags_tenant_isolation" ON "incident_tags" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "incidents_tenant_isolation" ON "incidents" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "name_counters_tenant_isolation" ON "name_counters" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "reports_tenant_isolation" ON "reports" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "tasks_tenant_isolation" ON "tasks" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);