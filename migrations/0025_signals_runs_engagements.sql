CREATE TABLE "entity_subscriptions" (
	"organization_id" integer NOT NULL,
	"entity_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "entity_subscriptions_organization_id_entity_id_user_id_pk" PRIMARY KEY("organization_id","entity_id","user_id")
);
--> statement-breakpoint
ALTER TABLE "entity_subscriptions" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "entity_type_runs" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "entity_type_runs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"entity_type_id" integer NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"total" integer DEFAULT 0 NOT NULL,
	"processed" integer DEFAULT 0 NOT NULL,
	"matched" integer DEFAULT 0 NOT NULL,
	"cursor" integer DEFAULT 0 NOT NULL,
	"error" text,
	"finished_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "entity_type_runs_org_id_unique" UNIQUE("organization_id","id")
);
--> statement-breakpoint
ALTER TABLE "entity_type_runs" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "signal_engagement_requests" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "signal_engagement_requests_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"engagement_id" integer NOT NULL,
	"case_id" integer NOT NULL,
	"entity_id" integer NOT NULL,
	"signal_instance_id" integer,
	"email" text NOT NULL,
	"token_hash" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"sent_at" timestamp with time zone,
	"answered_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "signal_engagement_requests_token_unique" UNIQUE("token_hash"),
	CONSTRAINT "signal_engagement_requests_once" UNIQUE("organization_id","engagement_id","case_id","entity_id"),
	CONSTRAINT "signal_engagement_requests_org_id_unique" UNIQUE("organization_id","id")
);
--> statement-breakpoint
ALTER TABLE "signal_engagement_requests" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "signals" ADD COLUMN "previous_ingest_key_hash" text;--> statement-breakpoint
ALTER TABLE "signals" ADD COLUMN "previous_key_expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "signals" ADD COLUMN "rate_limit_per_minute" integer;--> statement-breakpoint
ALTER TABLE "entity_subscriptions" ADD CONSTRAINT "entity_subscriptions_entity_fk" FOREIGN KEY ("organization_id","entity_id") REFERENCES "public"."entities"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "entity_type_runs" ADD CONSTRAINT "entity_type_runs_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "entity_type_runs" ADD CONSTRAINT "entity_type_runs_type_fk" FOREIGN KEY ("organization_id","entity_type_id") REFERENCES "public"."entity_types"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "signal_engagement_requests" ADD CONSTRAINT "signal_engagement_requests_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "signal_engagement_requests" ADD CONSTRAINT "signal_engagement_requests_engagement_fk" FOREIGN KEY ("organization_id","engagement_id") REFERENCES "public"."signal_engagements"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "signal_engagement_requests" ADD CONSTRAINT "signal_engagement_requests_entity_fk" FOREIGN KEY ("organization_id","entity_id") REFERENCES "public"."entities"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "entity_type_runs_type_idx" ON "entity_type_runs" USING btree ("organization_id","entity_type_id","id");--> statement-breakpoint
CREATE INDEX "signals_previous_ingest_key_idx" ON "signals" USING btree ("previous_ingest_key_hash") WHERE previous_ingest_key_hash is not null;--> statement-breakpoint
CREATE POLICY "entity_subscriptions_tenant_isolation" ON "entity_subscriptions" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "entity_type_runs_tenant_isolation" ON "entity_type_runs" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "signal_engagement_requests_tenant_isolation" ON "signal_engagement_requests" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);