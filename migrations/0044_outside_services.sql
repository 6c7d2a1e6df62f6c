CREATE TABLE "commit_syncs" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "commit_syncs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"project_id" integer,
	"plugin_instance_id" integer NOT NULL,
	"repository_url" text NOT NULL,
	"etag" text,
	"since" timestamp with time zone,
	"started_at" timestamp with time zone,
	"completed_at" timestamp with time zone,
	"wait_until" timestamp with time zone,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "commit_syncs_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "commit_syncs_org_repository_unique" UNIQUE("organization_id","repository_url")
);
--> statement-breakpoint
ALTER TABLE "commit_syncs" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "tickets" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "tickets_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"incident_id" integer,
	"case_id" integer,
	"plugin_instance_id" integer NOT NULL,
	"resource_type" text NOT NULL,
	"resource_id" text,
	"weblink" text,
	"synced_status" text,
	"status_category" text,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tickets_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "tickets_org_owner_unique" UNIQUE NULLS NOT DISTINCT("organization_id","incident_id","case_id"),
	CONSTRAINT "tickets_org_resource_unique" UNIQUE("organization_id","resource_type","resource_id")
);
--> statement-breakpoint
ALTER TABLE "tickets" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "status_posts" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "status_posts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"incident_id" integer NOT NULL,
	"plugin_instance_id" integer NOT NULL,
	"page_incident_id" text,
	"weblink" text,
	"status" text,
	"name" text,
	"body" text,
	"components" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "status_posts_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "status_posts_org_incident_unique" UNIQUE("organization_id","incident_id")
);
--> statement-breakpoint
ALTER TABLE "status_posts" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "meetings" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "meetings_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"incident_id" integer NOT NULL,
	"purpose" text NOT NULL,
	"plugin_instance_id" integer NOT NULL,
	"meeting_id" text,
	"weblink" text,
	"starts_at" timestamp with time zone,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "meetings_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "meetings_org_incident_purpose_unique" UNIQUE("organization_id","incident_id","purpose")
);
--> statement-breakpoint
ALTER TABLE "meetings" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "commit_syncs" ADD CONSTRAINT "commit_syncs_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "commit_syncs" ADD CONSTRAINT "commit_syncs_project_fk" FOREIGN KEY ("organization_id","project_id") REFERENCES "public"."projects"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tickets" ADD CONSTRAINT "tickets_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "status_posts" ADD CONSTRAINT "status_posts_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meetings" ADD CONSTRAINT "meetings_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE POLICY "commit_syncs_tenant_isolation" ON "commit_syncs" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "tickets_tenant_isolation" ON "tickets" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "status_posts_tenant_isolation" ON "status_posts" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "meetings_tenant_isolation" ON "meetings" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);