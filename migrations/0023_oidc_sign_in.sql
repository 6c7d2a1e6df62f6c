CREATE TABLE "oidc_logins" (
	"state_hash" text PRIMARY KEY NOT NULL,
	"organization_id" integer NOT NULL,
	"provider" text NOT NULL,
	"nonce" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "oidc_tickets" (
	"ticket_hash" text PRIMARY KEY NOT NULL,
	"organization_id" integer NOT NULL,
	"user_id" integer,
	"error" text,
	"status" integer,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "sso_domain" text;--> statement-breakpoint
ALTER TABLE "oidc_logins" ADD CONSTRAINT "oidc_logins_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oidc_tickets" ADD CONSTRAINT "oidc_tickets_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oidc_tickets" ADD CONSTRAINT "oidc_tickets_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "oidc_logins_created_idx" ON "oidc_logins" USING btree ("created_at");--> statement-breakpoint
-- Read and written by the server's own role only, like login_codes and sessions.
REVOKE ALL ON "oidc_logins", "oidc_tickets" FROM firewatch_app;
