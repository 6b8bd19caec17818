-- Issue 14: the click tables' text keys compare byte by byte (the "C" collation). On a database
-- created with a language's collation (en_US.UTF-8, the default of many Postgres installations),
-- every comparison in their primary keys went through the C library's locale rules: a batch of
-- spread clicks spent about a fifth of its backends' time there. Nothing reads these columns in
-- an order a person sees (statistics sort their labels in the server), and an equality compares
-- the same bytes either way. Each table's indexes are rebuilt once, under its lock; its rows are
-- not rewritten. The view over click_profiles names their columns, so it is made again.
DROP VIEW "click_profile_rollups";--> statement-breakpoint
ALTER TABLE "click_profiles" ALTER COLUMN "subject" SET DATA TYPE text COLLATE "C",
  ALTER COLUMN "country" SET DATA TYPE text COLLATE "C", ALTER COLUMN "referrer" SET DATA TYPE text COLLATE "C",
  ALTER COLUMN "social" SET DATA TYPE text COLLATE "C", ALTER COLUMN "browser" SET DATA TYPE text COLLATE "C",
  ALTER COLUMN "os" SET DATA TYPE text COLLATE "C", ALTER COLUMN "device" SET DATA TYPE text COLLATE "C",
  ALTER COLUMN "language" SET DATA TYPE text COLLATE "C";--> statement-breakpoint
ALTER TABLE "click_visitors" ALTER COLUMN "subject" SET DATA TYPE text COLLATE "C",
  ALTER COLUMN "visitor_hash" SET DATA TYPE text COLLATE "C";--> statement-breakpoint
ALTER TABLE "click_visitor_hours" ALTER COLUMN "subject" SET DATA TYPE text COLLATE "C",
  ALTER COLUMN "visitor_hash" SET DATA TYPE text COLLATE "C";--> statement-breakpoint
ALTER TABLE "click_hourly" ALTER COLUMN "subject" SET DATA TYPE text COLLATE "C";--> statement-breakpoint
-- the rollups and totals too: statistics read their labels together with the profiles' in one union
ALTER TABLE "click_rollups" ALTER COLUMN "subject" SET DATA TYPE text COLLATE "C",
  ALTER COLUMN "dimension" SET DATA TYPE text COLLATE "C", ALTER COLUMN "label" SET DATA TYPE text COLLATE "C";--> statement-breakpoint
ALTER TABLE "click_totals" ALTER COLUMN "subject" SET DATA TYPE text COLLATE "C",
  ALTER COLUMN "dimension" SET DATA TYPE text COLLATE "C", ALTER COLUMN "label" SET DATA TYPE text COLLATE "C";--> statement-breakpoint
CREATE VIEW "click_profile_rollups" AS
  SELECT p.subject, p.link_id, p.qr_id, p.day, d.dimension, d.label, d.count
  FROM click_profiles p CROSS JOIN LATERAL (VALUES
    ('bot', '', CASE WHEN p.bot THEN p.count END),
    ('total', '', CASE WHEN NOT p.bot THEN p.count END),
    ('unique', '', CASE WHEN NOT p.bot AND p.uniques > 0 THEN p.uniques END),
    ('country', p.country, CASE WHEN NOT p.bot THEN p.count END),
    ('referrer', p.referrer, CASE WHEN NOT p.bot THEN p.count END),
    ('browser', p.browser, CASE WHEN NOT p.bot THEN p.count END),
    ('os', p.os, CASE WHEN NOT p.bot THEN p.count END),
    ('device', p.device, CASE WHEN NOT p.bot THEN p.count END),
    ('language', p.language, CASE WHEN NOT p.bot THEN p.count END),
    ('social', p.social, CASE WHEN NOT p.bot AND p.social <> '' THEN p.count END)) AS d(dimension, label, count)
  WHERE d.count > 0;
--> statement-breakpoint
-- a column's new type drops its statistics: gathered again now rather than when autovacuum next
-- finds enough changed rows, which on a large table can be days
ANALYZE "click_profiles", "click_visitors", "click_visitor_hours", "click_hourly", "click_rollups", "click_totals";
