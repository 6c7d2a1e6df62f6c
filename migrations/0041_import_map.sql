CREATE TABLE "import_map" (
	"organization_id" integer NOT NULL,
	"source" text NOT NULL,
	"kind" text NOT NULL,
	"source_id" text NOT NULL,
	"target_id" integer NOT NULL,
	"imported_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "import_map_organization_id_source_kind_source_id_pk" PRIMARY KEY("organization_id","source","kind","source_id")
);
--> statement-breakpoint
ALTER TABLE "import_map" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "import_map" ADD CONSTRAINT "import_map_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "import_map_org_target_idx" ON "import_map" USING btree ("organization_id","kind","target_id");--> statement-breakpoint
CREATE POLICY "import_map_tenant_isolation" ON "import_map" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);