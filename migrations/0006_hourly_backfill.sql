-- Hourly series (click_hourly, migration 0002) start empty on an upgraded database: fill them from
-- the click detail still kept (within retention and the plan's monthly quota), and the last week's
-- hourly visitors, so an hour in progress at the upgrade counts its unique visitors once.
INSERT INTO "click_hourly" ("subject", "link_id", "qr_id", "hour", "clicks", "unique_clicks", "bot_clicks")
SELECT 'l' || "link_id", "link_id", NULL, (date_trunc('hour', "created_at" AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'),
  count(*) FILTER (WHERE NOT "bot"), count(DISTINCT "visitor_hash") FILTER (WHERE NOT "bot"), count(*) FILTER (WHERE "bot")
FROM "clicks" WHERE "link_id" IS NOT NULL GROUP BY "link_id", (date_trunc('hour', "created_at" AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')
ON CONFLICT ("subject", "hour") DO NOTHING;
--> statement-breakpoint
INSERT INTO "click_hourly" ("subject", "link_id", "qr_id", "hour", "clicks", "unique_clicks", "bot_clicks")
SELECT 'q' || "qr_id", NULL, "qr_id", (date_trunc('hour', "created_at" AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'),
  count(*) FILTER (WHERE NOT "bot"), count(DISTINCT "visitor_hash") FILTER (WHERE NOT "bot"), count(*) FILTER (WHERE "bot")
FROM "clicks" WHERE "qr_id" IS NOT NULL GROUP BY "qr_id", (date_trunc('hour', "created_at" AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')
ON CONFLICT ("subject", "hour") DO NOTHING;
--> statement-breakpoint
INSERT INTO "click_visitor_hours" ("subject", "link_id", "qr_id", "hour", "visitor_hash")
SELECT DISTINCT 'l' || "link_id", "link_id", NULL::integer, (date_trunc('hour', "created_at" AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), "visitor_hash"
FROM "clicks" WHERE "link_id" IS NOT NULL AND NOT "bot" AND "created_at" > now() - interval '7 days'
ON CONFLICT DO NOTHING;
--> statement-breakpoint
INSERT INTO "click_visitor_hours" ("subject", "link_id", "qr_id", "hour", "visitor_hash")
SELECT DISTINCT 'q' || "qr_id", NULL::integer, "qr_id", (date_trunc('hour', "created_at" AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), "visitor_hash"
FROM "clicks" WHERE "qr_id" IS NOT NULL AND NOT "bot" AND "created_at" > now() - interval '7 days'
ON CONFLICT DO NOTHING;
