CREATE TABLE "link_aliases" (
	"id" serial PRIMARY KEY NOT NULL,
	"link_id" integer NOT NULL,
	"domain_id" integer,
	"alias" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "links" ADD COLUMN "redirect_status" smallint;--> statement-breakpoint
ALTER TABLE "links" ADD COLUMN "cache_ttl" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "links" ADD COLUMN "fallback" text;--> statement-breakpoint
ALTER TABLE "links" ADD COLUMN "health_state" text DEFAULT 'unknown' NOT NULL;--> statement-breakpoint
ALTER TABLE "links" ADD COLUMN "health_status" smallint;--> statement-breakpoint
ALTER TABLE "links" ADD COLUMN "health_reason" text;--> statement-breakpoint
ALTER TABLE "links" ADD COLUMN "checked_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "links" ADD COLUMN "next_check_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "link_aliases" ADD CONSTRAINT "link_aliases_link_id_links_id_fk" FOREIGN KEY ("link_id") REFERENCES "public"."links"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "link_aliases" ADD CONSTRAINT "link_aliases_domain_id_domains_id_fk" FOREIGN KEY ("domain_id") REFERENCES "public"."domains"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "link_aliases_domain_alias_idx" ON "link_aliases" USING btree (coalesce("domain_id", 0),"alias");--> statement-breakpoint
CREATE INDEX "link_aliases_link_idx" ON "link_aliases" USING btree ("link_id");--> statement-breakpoint
CREATE INDEX "links_next_check_idx" ON "links" USING btree ("next_check_at");