CREATE TABLE "slack_channels" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "slack_channels_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"installation_id" integer NOT NULL,
	"conversation_id" integer NOT NULL,
	"incident_id" integer,
	"case_id" integer,
	"channel_id" text NOT NULL,
	"name" text NOT NULL,
	"is_private" boolean NOT NULL,
	"card_ts" text,
	"bookmarked" boolean DEFAULT false NOT NULL,
	"invited" text[] DEFAULT '{}' NOT NULL,
	"missing" text[] DEFAULT '{}' NOT NULL,
	"archived_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "slack_channels_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "slack_channels_org_channel_unique" UNIQUE("organization_id","channel_id"),
	CONSTRAINT "slack_channels_org_conversation_unique" UNIQUE("organization_id","conversation_id")
);
--> statement-breakpoint
ALTER TABLE "slack_channels" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "slack_deliveries" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "slack_deliveries_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"key" text NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "slack_deliveries_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "slack_deliveries_org_key_unique" UNIQUE("organization_id","key")
);
--> statement-breakpoint
ALTER TABLE "slack_deliveries" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "slack_installations" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "slack_installations_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"plugin_instance_id" integer NOT NULL,
	"team_id" text NOT NULL,
	"team_name" text,
	"enterprise_id" text,
	"app_id" text,
	"bot_user_id" text,
	"scopes" text[] DEFAULT '{}' NOT NULL,
	"installed_by" text,
	"uninstalled_at" timestamp with time zone,
	"last_error" jsonb,
	"last_ok_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "slack_installations_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "slack_installations_org_team_unique" UNIQUE("organization_id","team_id")
);
--> statement-breakpoint
ALTER TABLE "slack_installations" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "slack_messages" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "slack_messages_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"channel_id" text NOT NULL,
	"ts" text NOT NULL,
	"conversation_message_id" integer,
	"event_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "slack_messages_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "slack_messages_org_channel_ts_unique" UNIQUE("organization_id","channel_id","ts")
);
--> statement-breakpoint
ALTER TABLE "slack_messages" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "slack_channels" ADD CONSTRAINT "slack_channels_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "slack_channels" ADD CONSTRAINT "slack_channels_installation_fk" FOREIGN KEY ("organization_id","installation_id") REFERENCES "public"."slack_installations"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "slack_channels" ADD CONSTRAINT "slack_channels_conversation_fk" FOREIGN KEY ("organization_id","conversation_id") REFERENCES "public"."conversations"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "slack_channels" ADD CONSTRAINT "slack_channels_incident_fk" FOREIGN KEY ("organization_id","incident_id") REFERENCES "public"."incidents"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "slack_deliveries" ADD CONSTRAINT "slack_deliveries_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "slack_installations" ADD CONSTRAINT "slack_installations_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "slack_installations" ADD CONSTRAINT "slack_installations_plugin_fk" FOREIGN KEY ("organization_id","plugin_instance_id") REFERENCES "public"."plugin_instances"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "slack_messages" ADD CONSTRAINT "slack_messages_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "slack_channels_org_incident_idx" ON "slack_channels" USING btree ("organization_id","incident_id");--> statement-breakpoint
CREATE POLICY "slack_channels_tenant_isolation" ON "slack_channels" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "slack_deliveries_tenant_isolation" ON "slack_deliveries" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "slack_installations_tenant_isolation" ON "slack_installations" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);--> statement-breakpoint
CREATE POLICY "slack_messages_tenant_isolation" ON "slack_messages" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);