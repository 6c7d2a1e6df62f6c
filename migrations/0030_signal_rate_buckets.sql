CREATE TABLE "signal_rate_buckets" (
	"organization_id" integer NOT NULL,
	"signal_id" integer NOT NULL,
	"tokens" double precision NOT NULL,
	"refilled_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "signal_rate_buckets_organization_id_signal_id_pk" PRIMARY KEY("organization_id","signal_id")
);
--> statement-breakpoint
ALTER TABLE "signal_rate_buckets" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "signal_rate_buckets" ADD CONSTRAINT "signal_rate_buckets_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "signal_rate_buckets" ADD CONSTRAINT "signal_rate_buckets_signal_fk" FOREIGN KEY ("organization_id","signal_id") REFERENCES "public"."signals"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE POLICY "signal_rate_buckets_tenant_isolation" ON "signal_rate_buckets" AS PERMISSIVE FOR ALL TO public USING (organization_id = nullif(current_setting('app.org_id', true), '')::integer) WITH CHECK (organization_id = nullif(current_setting('app.org_id', true), '')::integer);