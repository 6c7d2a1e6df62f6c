CREATE TABLE "ticket_deliveries" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "ticket_deliveries_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"organization_id" integer NOT NULL,
	"plugin_instance_id" integer NOT NULL,
	"key" text NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ticket_deliveries_org_id_unique" UNIQUE("organization_id","id"),
	CONSTRAINT "ticket_deliveries_org_key_unique" UNIQUE("organization_id","plugin_instance_id","key")
);
--> statement-breakpoint
ALTER TABLE "ticket_deliveries" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "ticket_deliveries" ADD CONSTRAINT "ticket_deliveries_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE POLICY "ticket_deliveries_tenant_isolation" ON "ticket_deliveries" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);