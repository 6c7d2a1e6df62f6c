CREATE TABLE "entities" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "entities_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"entity_type_id" integer NOT NULL,
	"value" text NOT NULL,
	"normalized" text NOT NULL,
	"source" text,
	"description" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "entities_org_type_normalized_unique" UNIQUE("organization_id","entity_type_id","normalized"),
	CONSTRAINT "entities_org_id_unique" UNIQUE("organization_id","id")
);
--> statement-breakpoint
ALTER TABLE "entities" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "entity_types" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "entity_types_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"name" text NOT NULL,
	"description" text,
	"jpath" text,
	"regular_expression" text,
	"enabled" boolean DEFAULT true NOT NULL,
	"scope" text DEFAULT 'multiple' NOT NULL,
	"default" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "entity_types_org_name_unique" UNIQUE("organization_id","name"),
	CONSTRAINT "entity_types_org_id_unique" UNIQUE("organization_id","id")
);
--> statement-breakpoint
ALTER TABLE "entity_types" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "signal_engagements" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "signal_engagements_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"name" text NOT NULL,
	"description" text,
	"message" text,
	"require_mfa" boolean DEFAULT false NOT NULL,
	"entity_type_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "signal_engagements_org_id_unique" UNIQUE("organization_id","id")
);
--> statement-breakpoint
ALTER TABLE "signal_engagements" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "signal_filters" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "signal_filters_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"name" text NOT NULL,
	"description" text,
	"expression" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"mode" text DEFAULT 'active' NOT NULL,
	"action" text DEFAULT 'snooze' NOT NULL,
	"expiration" timestamp with time zone,
	"window" integer DEFAULT 600 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "signal_filters_org_id_unique" UNIQUE("organization_id","id")
);
--> statement-breakpoint
ALTER TABLE "signal_filters" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "signal_groups" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "signal_groups_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"signal_id" integer NOT NULL,
	"group_key" text NOT NULL,
	"status" text DEFAULT 'triggered' NOT NULL,
	"window" integer,
	"case_id" integer,
	"count" integer DEFAULT 1 NOT NULL,
	"first_seen" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "signal_groups_org_id_unique" UNIQUE("organization_id","id")
);
--> statement-breakpoint
ALTER TABLE "signal_groups" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "signal_instance_entities" (
	"organization_id" integer NOT NULL,
	"signal_instance_id" integer NOT NULL,
	"entity_id" integer NOT NULL,
	CONSTRAINT "signal_instance_entities_organization_id_signal_instance_id_entity_id_pk" PRIMARY KEY("organization_id","signal_instance_id","entity_id")
);
--> statement-breakpoint
ALTER TABLE "signal_instance_entities" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "signal_instances" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "signal_instances_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"signal_id" integer NOT NULL,
	"source" text NOT NULL,
	"event_action" text DEFAULT 'trigger' NOT NULL,
	"dedup_key" text,
	"raw" jsonb NOT NULL,
	"filter_action" text,
	"filter_id" integer,
	"group_id" integer,
	"case_id" integer,
	"processed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "signal_instances_org_id_unique" UNIQUE("organization_id","id")
);
--> statement-breakpoint
ALTER TABLE "signal_instances" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "signals" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "signals_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"variant" text,
	"owner" text,
	"external_id" text,
	"external_url" text,
	"case_type_id" integer,
	"case_priority_id" integer,
	"oncall_service_id" integer,
	"conversation_target" text,
	"create_case" boolean DEFAULT true NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"source" text,
	"entity_type_ids" integer[] DEFAULT '{}'::integer[] NOT NULL,
	"filter_ids" integer[] DEFAULT '{}'::integer[] NOT NULL,
	"engagement_ids" integer[] DEFAULT '{}'::integer[] NOT NULL,
	"tag_ids" integer[] DEFAULT '{}'::integer[] NOT NULL,
	"workflow_ids" integer[] DEFAULT '{}'::integer[] NOT NULL,
	"ingest_key_hash" text NOT NULL,
	"hmac_secret" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "signals_ingest_key_hash_unique" UNIQUE("ingest_key_hash"),
	CONSTRAINT "signals_org_id_unique" UNIQUE("organization_id","id")
);
--> statement-breakpoint
ALTER TABLE "signals" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "entities" ADD CONSTRAINT "entities_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "entities" ADD CONSTRAINT "entities_type_fk" FOREIGN KEY ("organization_id","entity_type_id") REFERENCES "public"."entity_types"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "entities" ADD CONSTRAINT "entities_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "entity_types" ADD CONSTRAINT "entity_types_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "entity_types" ADD CONSTRAINT "entity_types_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "signal_engagements" ADD CONSTRAINT "signal_engagements_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "signal_engagements" ADD CONSTRAINT "signal_engagements_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "signal_filters" ADD CONSTRAINT "signal_filters_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "signal_filters" ADD CONSTRAINT "signal_filters_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "signal_groups" ADD CONSTRAINT "signal_groups_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "signal_groups" ADD CONSTRAINT "signal_groups_signal_fk" FOREIGN KEY ("organization_id","signal_id") REFERENCES "public"."signals"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "signal_instance_entities" ADD CONSTRAINT "signal_instance_entities_instance_fk" FOREIGN KEY ("organization_id","signal_instance_id") REFERENCES "public"."signal_instances"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "signal_instance_entities" ADD CONSTRAINT "signal_instance_entities_entity_fk" FOREIGN KEY ("organization_id","entity_id") REFERENCES "public"."entities"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "signal_instances" ADD CONSTRAINT "signal_instances_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "signal_instances" ADD CONSTRAINT "signal_instances_signal_fk" FOREIGN KEY ("organization_id","signal_id") REFERENCES "public"."signals"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "signal_instances" ADD CONSTRAINT "signal_instances_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "signals" ADD CONSTRAINT "signals_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "signals" ADD CONSTRAINT "signals_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "entities_org_sort_idx" ON "entities" USING btree ("organization_id",lower("value") collate "C","id");--> statement-breakpoint
CREATE INDEX "entity_types_org_sort_idx" ON "entity_types" USING btree ("organization_id",lower("name") collate "C","id");--> statement-breakpoint
CREATE INDEX "signal_engagements_org_sort_idx" ON "signal_engagements" USING btree ("organization_id",lower("name") collate "C","id");--> statement-breakpoint
CREATE INDEX "signal_filters_org_sort_idx" ON "signal_filters" USING btree ("organization_id",lower("name") collate "C","id");--> statement-breakpoint
CREATE UNIQUE INDEX "signal_groups_open_key_unique" ON "signal_groups" USING btree ("organization_id","signal_id","group_key") WHERE status in ('triggered', 'acknowledged');--> statement-breakpoint
CREATE INDEX "signal_instance_entities_entity_idx" ON "signal_instance_entities" USING btree ("organization_id","entity_id");--> statement-breakpoint
CREATE INDEX "signal_instances_unprocessed_idx" ON "signal_instances" USING btree ("organization_id","id") WHERE processed_at is null;--> statement-breakpoint
CREATE INDEX "signal_instances_signal_idx" ON "signal_instances" USING btree ("organization_id","signal_id","id");--> statement-breakpoint
CREATE INDEX "signal_instances_case_idx" ON "signal_instances" USING btree ("organization_id","case_id");--> statement-breakpoint
CREATE INDEX "signal_instances_org_sort_idx" ON "signal_instances" USING btree ("organization_id","created_at","id");--> statement-breakpoint
CREATE INDEX "signals_org_sort_idx" ON "signals" USING btree ("organization_id",lower("name") collate "C","id");--> statement-breakpoint
CREATE POLICY "entities_tenant_isolation" ON "entities" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "entity_types_tenant_isolation" ON "entity_types" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "signal_engagements_tenant_isolation" ON "signal_engagements" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "signal_filters_tenant_isolation" ON "signal_filters" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "signal_groups_tenant_isolation" ON "signal_groups" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "signal_instance_entities_tenant_isolation" ON "signal_instance_entities" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "signal_instances_tenant_isolation" ON "signal_instances" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "signals_tenant_isolation" ON "signals" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);