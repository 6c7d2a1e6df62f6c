CREATE TABLE "commits" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "commits_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"commit_id" text NOT NULL,
	"commit_message" text,
	"commit_author" text,
	"commit_date" timestamp with time zone,
	"repository_url" text,
	"repository_name" text,
	"repository_branch" text,
	"source" text DEFAULT 'GitHub' NOT NULL,
	"sync_completed" boolean DEFAULT false NOT NULL,
	"sync_completed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "commits_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "commits_org_repository_commit_unique" UNIQUE NULLS NOT DISTINCT("organization_id","repository_url","commit_id")
);
--> statement-breakpoint
ALTER TABLE "commits" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "commands" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "commands_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"name" text NOT NULL,
	"description" text,
	"command_text" text NOT NULL,
	"count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "commands_org_id_unique" UNIQUE("organization_id","id")
);
--> statement-breakpoint
ALTER TABLE "commands" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "queries" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "queries_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"source_id" integer,
	"name" text NOT NULL,
	"description" text,
	"text" text NOT NULL,
	"language" text,
	"count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "queries_org_id_unique" UNIQUE("organization_id","id")
);
--> statement-breakpoint
ALTER TABLE "queries" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "source_data_formats" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "source_data_formats_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"name" text NOT NULL,
	"description" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "source_data_formats_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "source_data_formats_org_project_name_unique" UNIQUE NULLS NOT DISTINCT("organization_id","project_id","name")
);
--> statement-breakpoint
ALTER TABLE "source_data_formats" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "source_environments" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "source_environments_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"name" text NOT NULL,
	"description" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "source_environments_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "source_environments_org_project_name_unique" UNIQUE NULLS NOT DISTINCT("organization_id","project_id","name")
);
--> statement-breakpoint
ALTER TABLE "source_environments" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "source_statuses" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "source_statuses_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"name" text NOT NULL,
	"description" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "source_statuses_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "source_statuses_org_project_name_unique" UNIQUE NULLS NOT DISTINCT("organization_id","project_id","name")
);
--> statement-breakpoint
ALTER TABLE "source_statuses" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "source_transports" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "source_transports_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"name" text NOT NULL,
	"description" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "source_transports_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "source_transports_org_project_name_unique" UNIQUE NULLS NOT DISTINCT("organization_id","project_id","name")
);
--> statement-breakpoint
ALTER TABLE "source_transports" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "source_types" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "source_types_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"name" text NOT NULL,
	"description" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "source_types_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "source_types_org_project_name_unique" UNIQUE NULLS NOT DISTINCT("organization_id","project_id","name")
);
--> statement-breakpoint
ALTER TABLE "source_types" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "sources" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "sources_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"name" text NOT NULL,
	"description" text,
	"owner" text,
	"retention" integer,
	"source_environment_id" integer,
	"source_status_id" integer,
	"source_type_id" integer,
	"source_transport_id" integer,
	"source_data_format_id" integer,
	"size" bigint,
	"aggregated" boolean DEFAULT false NOT NULL,
	"delay" integer,
	"external_id" text,
	"documentation" text,
	"data_last_loaded_at" timestamp with time zone,
	"sampling_rate" integer,
	"schema" text,
	"sample_log" text,
	"cost" numeric(14, 2),
	"links" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sources_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "sources_org_project_name_unique" UNIQUE NULLS NOT DISTINCT("organization_id","project_id","name")
);
--> statement-breakpoint
ALTER TABLE "sources" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "feedback" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "feedback_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"incident_id" integer,
	"participant_id" integer,
	"rating" text NOT NULL,
	"feedback" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "feedback_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "feedback_rating_check" CHECK ("feedback"."rating" in ('Very satisfied', 'Somewhat satisfied', 'Neither satisfied nor dissatisfied', 'Somewhat dissatisfied', 'Very dissatisfied'))
);
--> statement-breakpoint
ALTER TABLE "feedback" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "service_feedback" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "service_feedback_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"service_id" integer,
	"individual_contact_id" integer,
	"rating" text NOT NULL,
	"feedback" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "service_feedback_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "service_feedback_rating_check" CHECK ("service_feedback"."rating" in ('No effort', 'Little effort', 'Moderate effort', 'Lots of effort', 'Very high effort'))
);
--> statement-breakpoint
ALTER TABLE "service_feedback" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "form_types" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "form_types_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"name" text NOT NULL,
	"description" text,
	"enabled" boolean DEFAULT true NOT NULL,
	"form_schema" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "form_types_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "form_types_org_project_name_unique" UNIQUE NULLS NOT DISTINCT("organization_id","project_id","name")
);
--> statement-breakpoint
ALTER TABLE "form_types" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "forms" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "forms_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"form_type_id" integer NOT NULL,
	"incident_id" integer,
	"status" text DEFAULT 'Draft' NOT NULL,
	"form_data" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"creator" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "forms_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "forms_status_check" CHECK ("forms"."status" in ('Draft', 'Completed'))
);
--> statement-breakpoint
ALTER TABLE "forms" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "best_practices" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "best_practices_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"name" text NOT NULL,
	"description" text,
	"url" text,
	"count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "best_practices_org_id_unique" UNIQUE("organization_id","id")
);
--> statement-breakpoint
ALTER TABLE "best_practices" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "definitions" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "definitions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"text" text NOT NULL,
	"terms" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "definitions_org_id_unique" UNIQUE("organization_id","id")
);
--> statement-breakpoint
ALTER TABLE "definitions" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "terms" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "terms_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"text" text NOT NULL,
	"count" integer DEFAULT 0 NOT NULL,
	"discoverable" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "terms_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "terms_org_project_text_unique" UNIQUE NULLS NOT DISTINCT("organization_id","project_id","text")
);
--> statement-breakpoint
ALTER TABLE "terms" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "weblinks" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "weblinks_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"url" text NOT NULL,
	"title" text,
	"description" text,
	"count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "weblinks_org_id_unique" UNIQUE("organization_id","id")
);
--> statement-breakpoint
ALTER TABLE "weblinks" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "oncall_handoffs" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "oncall_handoffs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"handover_from" text NOT NULL,
	"handover_to" text NOT NULL,
	"start_time" timestamp with time zone,
	"end_time" timestamp with time zone,
	"shift_type" text,
	"location_type" text,
	"location_details" text,
	"critical_ongoing_issues" text,
	"tasks_completed" text,
	"pending_tasks" text,
	"mentions" text,
	"tools_and_access" text,
	"feedback" text,
	"handoff_completed" boolean DEFAULT false NOT NULL,
	"handoff_completed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "oncall_handoffs_org_id_unique" UNIQUE("organization_id","id")
);
--> statement-breakpoint
ALTER TABLE "oncall_handoffs" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "oncall_preshift_preps" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "oncall_preshift_preps_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"handover_to" text NOT NULL,
	"shift_type" text,
	"location_type" text,
	"sent" boolean DEFAULT false NOT NULL,
	"sent_at" timestamp with time zone,
	"accepted" boolean DEFAULT false NOT NULL,
	"accepted_at" timestamp with time zone,
	"handshake_completed" boolean DEFAULT false NOT NULL,
	"handshake_completed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "oncall_preshift_preps_org_id_unique" UNIQUE("organization_id","id")
);
--> statement-breakpoint
ALTER TABLE "oncall_preshift_preps" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "notifications" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "notifications_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"name" text NOT NULL,
	"description" text,
	"type" text DEFAULT 'conversation' NOT NULL,
	"target" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"filters" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"evergreen" boolean DEFAULT false NOT NULL,
	"evergreen_owner" text,
	"evergreen_reminder_interval" integer DEFAULT 90 NOT NULL,
	"evergreen_last_reminder_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "notifications_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "notifications_org_project_name_unique" UNIQUE NULLS NOT DISTINCT("organization_id","project_id","name"),
	CONSTRAINT "notifications_type_check" CHECK ("notifications"."type" in ('conversation', 'email'))
);
--> statement-breakpoint
ALTER TABLE "notifications" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "search_filters" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "search_filters_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"name" text NOT NULL,
	"description" text,
	"expression" jsonb NOT NULL,
	"type" text,
	"subject" text DEFAULT 'incident' NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "search_filters_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "search_filters_org_project_name_unique" UNIQUE NULLS NOT DISTINCT("organization_id","project_id","name"),
	CONSTRAINT "search_filters_subject_check" CHECK ("search_filters"."subject" in ('incident', 'case'))
);
--> statement-breakpoint
ALTER TABLE "search_filters" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "okrs" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "okrs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"title" text NOT NULL,
	"description" text,
	"key_results" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "okrs_org_id_unique" UNIQUE("organization_id","id")
);
--> statement-breakpoint
ALTER TABLE "okrs" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
DROP INDEX "case_types_org_sort_idx";--> statement-breakpoint
DROP INDEX "cost_models_org_sort_idx";--> statement-breakpoint
DROP INDEX "incident_cost_types_org_sort_idx";--> statement-breakpoint
DROP INDEX "incident_role_policies_org_sort_idx";--> statement-breakpoint
DROP INDEX "incident_types_org_sort_idx";--> statement-breakpoint
DROP INDEX "individuals_org_sort_idx";--> statement-breakpoint
DROP INDEX "services_org_sort_idx";--> statement-breakpoint
DROP INDEX "teams_org_sort_idx";--> statement-breakpoint
DROP INDEX "documents_org_sort_idx";--> statement-breakpoint
ALTER TABLE "commits" ADD CONSTRAINT "commits_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "commits" ADD CONSTRAINT "commits_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "commands" ADD CONSTRAINT "commands_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "commands" ADD CONSTRAINT "commands_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "queries" ADD CONSTRAINT "queries_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "queries" ADD CONSTRAINT "queries_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "queries" ADD CONSTRAINT "queries_source_fk" FOREIGN KEY ("organization_id","source_id") REFERENCES "public"."sources"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "source_data_formats" ADD CONSTRAINT "source_data_formats_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "source_data_formats" ADD CONSTRAINT "source_data_formats_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "source_environments" ADD CONSTRAINT "source_environments_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "source_environments" ADD CONSTRAINT "source_environments_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "source_statuses" ADD CONSTRAINT "source_statuses_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "source_statuses" ADD CONSTRAINT "source_statuses_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "source_transports" ADD CONSTRAINT "source_transports_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "source_transports" ADD CONSTRAINT "source_transports_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "source_types" ADD CONSTRAINT "source_types_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "source_types" ADD CONSTRAINT "source_types_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sources" ADD CONSTRAINT "sources_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sources" ADD CONSTRAINT "sources_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sources" ADD CONSTRAINT "sources_environment_fk" FOREIGN KEY ("organization_id","source_environment_id") REFERENCES "public"."source_environments"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sources" ADD CONSTRAINT "sources_status_fk" FOREIGN KEY ("organization_id","source_status_id") REFERENCES "public"."source_statuses"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sources" ADD CONSTRAINT "sources_type_fk" FOREIGN KEY ("organization_id","source_type_id") REFERENCES "public"."source_types"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sources" ADD CONSTRAINT "sources_transport_fk" FOREIGN KEY ("organization_id","source_transport_id") REFERENCES "public"."source_transports"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sources" ADD CONSTRAINT "sources_data_format_fk" FOREIGN KEY ("organization_id","source_data_format_id") REFERENCES "public"."source_data_formats"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "feedback" ADD CONSTRAINT "feedback_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "feedback" ADD CONSTRAINT "feedback_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "feedback" ADD CONSTRAINT "feedback_incident_fk" FOREIGN KEY ("organization_id","incident_id") REFERENCES "public"."incidents"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "feedback" ADD CONSTRAINT "feedback_participant_fk" FOREIGN KEY ("organization_id","participant_id") REFERENCES "public"."incident_participants"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "service_feedback" ADD CONSTRAINT "service_feedback_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "service_feedback" ADD CONSTRAINT "service_feedback_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "service_feedback" ADD CONSTRAINT "service_feedback_service_fk" FOREIGN KEY ("organization_id","service_id") REFERENCES "public"."services"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "service_feedback" ADD CONSTRAINT "service_feedback_individual_fk" FOREIGN KEY ("organization_id","individual_contact_id") REFERENCES "public"."individuals"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "form_types" ADD CONSTRAINT "form_types_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "form_types" ADD CONSTRAINT "form_types_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forms" ADD CONSTRAINT "forms_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forms" ADD CONSTRAINT "forms_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forms" ADD CONSTRAINT "forms_form_type_fk" FOREIGN KEY ("organization_id","form_type_id") REFERENCES "public"."form_types"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forms" ADD CONSTRAINT "forms_incident_fk" FOREIGN KEY ("organization_id","incident_id") REFERENCES "public"."incidents"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "best_practices" ADD CONSTRAINT "best_practices_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "best_practices" ADD CONSTRAINT "best_practices_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "definitions" ADD CONSTRAINT "definitions_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "definitions" ADD CONSTRAINT "definitions_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "terms" ADD CONSTRAINT "terms_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "terms" ADD CONSTRAINT "terms_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "weblinks" ADD CONSTRAINT "weblinks_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "weblinks" ADD CONSTRAINT "weblinks_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oncall_handoffs" ADD CONSTRAINT "oncall_handoffs_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oncall_handoffs" ADD CONSTRAINT "oncall_handoffs_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oncall_preshift_preps" ADD CONSTRAINT "oncall_preshift_preps_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oncall_preshift_preps" ADD CONSTRAINT "oncall_preshift_preps_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "search_filters" ADD CONSTRAINT "search_filters_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "search_filters" ADD CONSTRAINT "search_filters_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "okrs" ADD CONSTRAINT "okrs_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "okrs" ADD CONSTRAINT "okrs_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "commits_org_sort_idx" ON "commits" USING btree ("organization_id","commit_date","id");--> statement-breakpoint
CREATE INDEX "commits_org_commit_message_trgm_idx" ON "commits" USING gin ("organization_id","commit_message" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "commands_org_sort_idx" ON "commands" USING btree ("organization_id","count","id");--> statement-breakpoint
CREATE INDEX "commands_org_name_trgm_idx" ON "commands" USING gin ("organization_id","name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "queries_org_sort_idx" ON "queries" USING btree ("organization_id",lower("name") collate "C","id");--> statement-breakpoint
CREATE INDEX "queries_org_name_trgm_idx" ON "queries" USING gin ("organization_id","name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "source_data_formats_org_sort_idx" ON "source_data_formats" USING btree ("organization_id",lower("name") collate "C","id");--> statement-breakpoint
CREATE INDEX "source_environments_org_sort_idx" ON "source_environments" USING btree ("organization_id",lower("name") collate "C","id");--> statement-breakpoint
CREATE INDEX "source_statuses_org_sort_idx" ON "source_statuses" USING btree ("organization_id",lower("name") collate "C","id");--> statement-breakpoint
CREATE INDEX "source_transports_org_sort_idx" ON "source_transports" USING btree ("organization_id",lower("name") collate "C","id");--> statement-breakpoint
CREATE INDEX "source_types_org_sort_idx" ON "source_types" USING btree ("organization_id",lower("name") collate "C","id");--> statement-breakpoint
CREATE INDEX "sources_org_sort_idx" ON "sources" USING btree ("organization_id",lower("name") collate "C","id");--> statement-breakpoint
CREATE INDEX "sources_org_name_trgm_idx" ON "sources" USING gin ("organization_id","name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "feedback_org_sort_idx" ON "feedback" USING btree ("organization_id","created_at","id");--> statement-breakpoint
CREATE INDEX "service_feedback_org_sort_idx" ON "service_feedback" USING btree ("organization_id","created_at","id");--> statement-breakpoint
CREATE INDEX "form_types_org_sort_idx" ON "form_types" USING btree ("organization_id",lower("name") collate "C","id");--> statement-breakpoint
CREATE INDEX "forms_org_sort_idx" ON "forms" USING btree ("organization_id","created_at","id");--> statement-breakpoint
CREATE INDEX "best_practices_org_sort_idx" ON "best_practices" USING btree ("organization_id","count","id");--> statement-breakpoint
CREATE INDEX "best_practices_org_name_trgm_idx" ON "best_practices" USING gin ("organization_id","name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "definitions_org_sort_idx" ON "definitions" USING btree ("organization_id",lower("text") collate "C","id");--> statement-breakpoint
CREATE INDEX "definitions_org_terms_idx" ON "definitions" USING gin ("organization_id","terms");--> statement-breakpoint
CREATE INDEX "definitions_org_text_trgm_idx" ON "definitions" USING gin ("organization_id","text" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "terms_org_sort_idx" ON "terms" USING btree ("organization_id",lower("text") collate "C","id");--> statement-breakpoint
CREATE INDEX "terms_org_text_trgm_idx" ON "terms" USING gin ("organization_id","text" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "weblinks_org_sort_idx" ON "weblinks" USING btree ("organization_id","count","id");--> statement-breakpoint
CREATE INDEX "weblinks_org_title_trgm_idx" ON "weblinks" USING gin ("organization_id","title" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "oncall_handoffs_org_sort_idx" ON "oncall_handoffs" USING btree ("organization_id","end_time","id");--> statement-breakpoint
CREATE INDEX "oncall_preshift_preps_org_sort_idx" ON "oncall_preshift_preps" USING btree ("organization_id","sent_at","id");--> statement-breakpoint
CREATE INDEX "notifications_org_sort_idx" ON "notifications" USING btree ("organization_id",lower("name") collate "C","id");--> statement-breakpoint
CREATE INDEX "search_filters_org_sort_idx" ON "search_filters" USING btree ("organization_id",lower("name") collate "C","id");--> statement-breakpoint
CREATE INDEX "okrs_org_sort_idx" ON "okrs" USING btree ("organization_id",lower("title") collate "C","id");--> statement-breakpoint
CREATE INDEX "case_types_org_sort_idx" ON "case_types" USING btree ("organization_id",lower("name") collate "C","id");--> statement-breakpoint
CREATE INDEX "cost_models_org_sort_idx" ON "cost_models" USING btree ("organization_id",lower("name") collate "C","id");--> statement-breakpoint
CREATE INDEX "incident_cost_types_org_sort_idx" ON "incident_cost_types" USING btree ("organization_id",lower("name") collate "C","id");--> statement-breakpoint
CREATE INDEX "incident_role_policies_org_sort_idx" ON "incident_role_policies" USING btree ("organization_id",lower("role") collate "C","order","id");--> statement-breakpoint
CREATE INDEX "incident_types_org_sort_idx" ON "incident_types" USING btree ("organization_id",lower("name") collate "C","id");--> statement-breakpoint
CREATE INDEX "individuals_org_sort_idx" ON "individuals" USING btree ("organization_id",lower("name") collate "C","id");--> statement-breakpoint
CREATE INDEX "services_org_sort_idx" ON "services" USING btree ("organization_id",lower("name") collate "C","id");--> statement-breakpoint
CREATE INDEX "teams_org_sort_idx" ON "teams" USING btree ("organization_id",lower("name") collate "C","id");--> statement-breakpoint
CREATE INDEX "documents_org_sort_idx" ON "documents" USING btree ("organization_id",lower("name") collate "C","id");--> statement-breakpoint
CREATE POLICY "commits_tenant_isolation" ON "commits" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "commands_tenant_isolation" ON "commands" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "queries_tenant_isolation" ON "queries" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "source_data_formats_tenant_isolation" ON "source_data_formats" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "source_environments_tenant_isolation" ON "source_environments" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "source_statuses_tenant_isolation" ON "source_statuses" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "source_transports_tenant_isolation" ON "source_transports" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "source_types_tenant_isolation" ON "source_types" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "sources_tenant_isolation" ON "sources" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "feedback_tenant_isolation" ON "feedback" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "service_feedback_tenant_isolation" ON "service_feedback" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "form_types_tenant_isolation" ON "form_types" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "forms_tenant_isolation" ON "forms" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "best_practices_tenant_isolation" ON "best_practices" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "definitions_tenant_isolation" ON "definitions" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "terms_tenant_isolation" ON "terms" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "weblinks_tenant_isolation" ON "weblinks" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "oncall_handoffs_tenant_isolation" ON "oncall_handoffs" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "oncall_preshift_preps_tenant_isolation" ON "oncall_preshift_preps" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "notifications_tenant_isolation" ON "notifications" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "search_filters_tenant_isolation" ON "search_filters" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "okrs_tenant_isolation" ON "okrs" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);