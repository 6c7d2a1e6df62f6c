CREATE TABLE "incident_entities" (
	"organization_id" integer NOT NULL,
	"incident_id" integer NOT NULL,
	"entity_id" integer NOT NULL,
	CONSTRAINT "incident_entities_organization_id_incident_id_entity_id_pk" PRIMARY KEY("organization_id","incident_id","entity_id")
);
--> statement-breakpoint
ALTER TABLE "incident_entities" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "incident_entities" ADD CONSTRAINT "incident_entities_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incident_entities" ADD CONSTRAINT "incident_entities_incident_fk" FOREIGN KEY ("organization_id","incident_id") REFERENCES "public"."incidents"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incident_entities" ADD CONSTRAINT "incident_entities_entity_fk" FOREIGN KEY ("organization_id","entity_id") REFERENCES "public"."entities"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "incident_entities_org_entity_idx" ON "incident_entities" USING btree ("organization_id","entity_id","incident_id");--> statement-breakpoint
CREATE POLICY "incident_entities_tenant_isolation" ON "incident_entities" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);