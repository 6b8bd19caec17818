CREATE TABLE "blocklist_entries" (
	"id" serial PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"value" text NOT NULL,
	"reason" text,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "link_reports" (
	"id" serial PRIMARY KEY NOT NULL,
	"link_id" integer,
	"short_url" text NOT NULL,
	"reason" text NOT NULL,
	"comment" text,
	"email" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "links" ADD COLUMN "quarantined" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "blocklist_entries" ADD CONSTRAINT "blocklist_entries_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "link_reports" ADD CONSTRAINT "link_reports_link_id_links_id_fk" FOREIGN KEY ("link_id") REFERENCES "public"."links"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "blocklist_type_value_idx" ON "blocklist_entries" USING btree ("type","value");--> statement-breakpoint
CREATE INDEX "link_reports_created_idx" ON "link_reports" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "link_reports_link_idx" ON "link_reports" USING btree ("link_id");