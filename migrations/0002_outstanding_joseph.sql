CREATE TABLE "click_hourly" (
	"subject" text NOT NULL,
	"link_id" integer,
	"qr_id" integer,
	"hour" timestamp with time zone NOT NULL,
	"clicks" integer DEFAULT 0 NOT NULL,
	"unique_clicks" integer DEFAULT 0 NOT NULL,
	"bot_clicks" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "click_hourly_subject_hour_pk" PRIMARY KEY("subject","hour")
);
--> statement-breakpoint
CREATE TABLE "click_spool_marks" (
	"instance" text PRIMARY KEY NOT NULL,
	"seq" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "click_visitor_hours" (
	"subject" text NOT NULL,
	"link_id" integer,
	"qr_id" integer,
	"hour" timestamp with time zone NOT NULL,
	"visitor_hash" text NOT NULL,
	CONSTRAINT "click_visitor_hours_subject_hour_visitor_hash_pk" PRIMARY KEY("subject","hour","visitor_hash")
);
--> statement-breakpoint
ALTER TABLE "click_hourly" ADD CONSTRAINT "click_hourly_link_id_links_id_fk" FOREIGN KEY ("link_id") REFERENCES "public"."links"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "click_hourly" ADD CONSTRAINT "click_hourly_qr_id_qr_codes_id_fk" FOREIGN KEY ("qr_id") REFERENCES "public"."qr_codes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "click_visitor_hours" ADD CONSTRAINT "click_visitor_hours_link_id_links_id_fk" FOREIGN KEY ("link_id") REFERENCES "public"."links"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "click_visitor_hours" ADD CONSTRAINT "click_visitor_hours_qr_id_qr_codes_id_fk" FOREIGN KEY ("qr_id") REFERENCES "public"."qr_codes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "click_visitor_hours_hour_idx" ON "click_visitor_hours" USING btree ("hour");