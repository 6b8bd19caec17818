-- Issue 14: a click of a day not yet folded writes one row of click_profiles (its labels of every
-- dimension together) where it wrote one click_rollups row per dimension, eight for a visitor's
-- first click of a link on a day. The daily fold (src/clicks/totals.ts) moves a finished day's
-- profiles into click_rollups and click_totals; readers add click_profile_rollups, the same rows
-- spelled as rollups, to what they read of click_rollups (src/clicks/stats.ts, series.ts).
CREATE TABLE "click_profiles" (
	"subject" text NOT NULL,
	"link_id" integer,
	"qr_id" integer,
	"day" date NOT NULL,
	"bot" boolean NOT NULL,
	"country" text NOT NULL,
	"referrer" text NOT NULL,
	"social" text NOT NULL,
	"browser" text NOT NULL,
	"os" text NOT NULL,
	"device" text NOT NULL,
	"language" text NOT NULL,
	"count" integer DEFAULT 0 NOT NULL,
	"uniques" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "click_profiles_pkey" PRIMARY KEY("subject","day","bot","country","referrer","social","browser","os","device","language")
) WITH (fillfactor = 70);
--> statement-breakpoint
CREATE INDEX "click_profiles_day_brin" ON "click_profiles" USING brin ("day");
--> statement-breakpoint
-- One profile row as the rollup rows it stands for: the one definition readers and the fold share.
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
CREATE OR REPLACE FUNCTION "delete_click_rows"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  ids integer[] := ARRAY(SELECT id FROM gone);
  subjects text[];
BEGIN
  -- a fold under way finishes first, so it cannot write totals for these subjects after they go
  PERFORM pg_advisory_xact_lock_shared(72801312);
  IF TG_TABLE_NAME = 'links' THEN
    DELETE FROM clicks WHERE link_id IS NOT NULL AND link_id = ANY(ids);
    subjects := ARRAY(SELECT 'l' || x FROM unnest(ids) x);
  ELSE
    DELETE FROM clicks WHERE qr_id IS NOT NULL AND qr_id = ANY(ids);
    subjects := ARRAY(SELECT 'q' || x FROM unnest(ids) x);
  END IF;
  DELETE FROM click_rollups WHERE subject = ANY(subjects);
  DELETE FROM click_totals WHERE subject = ANY(subjects);
  DELETE FROM click_profiles WHERE subject = ANY(subjects);
  DELETE FROM click_visitors WHERE subject = ANY(subjects);
  DELETE FROM click_hourly WHERE subject = ANY(subjects);
  DELETE FROM click_visitor_hours WHERE subject = ANY(subjects);
  RETURN NULL;
END $$;
--> statement-breakpoint
-- write_click_batch() of migration 0011, but a click goes to its profile row instead of a rollup row
-- per dimension, whatever its day: a late click of a day already folded waits in click_profiles for
-- the fold's next run, which adds it to the rollups and the totals.
CREATE OR REPLACE FUNCTION "write_click_batch"(p_batch jsonb, p_link integer[], p_qr integer[], p_source text[], p_at bigint[],
  p_enrichment integer[], p_quota integer[], p_place integer[], p_enriched json) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_links integer[] := ARRAY(SELECT x::integer FROM jsonb_array_elements_text(p_batch->'links') x);
  v_qrs integer[] := ARRAY(SELECT x::integer FROM jsonb_array_elements_text(p_batch->'qrs') x);
  v_live_links integer[];
  v_live_qrs integer[];
  v_done bigint := 0;
  v_allowed integer[];
BEGIN
  -- shared with other batches and link deletes; the daily fold takes it alone (clicks/totals.ts)
  PERFORM pg_advisory_xact_lock_shared(72801312);
  -- replayed spool records: those at or below the committed mark were written before the crash
  IF p_batch->'spool'->>'lowest' IS NOT NULL THEN
    SELECT coalesce(max(seq), 0) INTO v_done FROM (
      SELECT seq FROM click_spool_marks WHERE instance = p_batch->'spool'->>'instance' FOR UPDATE) m;
  END IF;
  -- a delete of one of these waits for this statement, then its trigger removes what it wrote
  v_live_links := ARRAY(SELECT id FROM (SELECT id FROM links WHERE id = ANY(v_links) ORDER BY id FOR KEY SHARE) l);
  v_live_qrs := ARRAY(SELECT id FROM (SELECT id FROM qr_codes WHERE id = ANY(v_qrs) ORDER BY id FOR KEY SHARE) q);
  IF cardinality(v_live_links) < cardinality(v_links) OR cardinality(v_live_qrs) < cardinality(v_qrs)
     OR (p_batch->'spool'->>'lowest')::bigint <= v_done THEN
    RETURN jsonb_build_object('done', v_done,
      'links', to_jsonb(ARRAY(SELECT x FROM unnest(v_links) x WHERE x <> ALL(v_live_links))),
      'qrs', to_jsonb(ARRAY(SELECT x FROM unnest(v_qrs) x WHERE x <> ALL(v_live_qrs))));
  END IF;

  IF p_batch ? 'spool' THEN
    INSERT INTO click_spool_marks (instance, seq) VALUES (p_batch->'spool'->>'instance', (p_batch->'spool'->>'top')::bigint)
      ON CONFLICT (instance) DO UPDATE SET seq = greatest(click_spool_marks.seq, excluded.seq);
  END IF;

  -- The plan's monthly `clicks` quota: detail rows beyond it are not kept (the visit still counts).
  -- Admins and a limit of 0 are unlimited. The plan is the one that applies now: the SQL twin of
  -- effectivePlanLimit('max_clicks') in src/accounts/effective-plan.ts (DECISIONS §3).
  PERFORM 1 FROM click_quota q
    JOIN jsonb_to_recordset(p_batch->'quota') AS g(i integer, user_id integer, month text, count integer)
      ON q.user_id = g.user_id AND q.month = g.month
    ORDER BY q.user_id, q.month FOR UPDATE OF q;
  WITH g AS (
    SELECT x.i, x.user_id, x.month, x.count, q.count AS used, (
      SELECT CASE WHEN u.admin THEN 0 ELSE coalesce(CASE WHEN pl.id IS NULL OR (u.plan_expires IS NOT NULL AND u.plan_expires <= now())
          THEN (SELECT d.max_clicks FROM plans d WHERE d.is_default OR d.free ORDER BY d.is_default DESC, d.id LIMIT 1)
          ELSE pl.max_clicks END, 0) END
      FROM users u LEFT JOIN plans pl ON pl.id = u.plan_id WHERE u.id = x.user_id) AS lim
    FROM jsonb_to_recordset(p_batch->'quota') AS x(i integer, user_id integer, month text, count integer)
    LEFT JOIN click_quota q ON q.user_id = x.user_id AND q.month = x.month
  ), a AS (
    SELECT i, user_id, month,
      CASE WHEN coalesce(lim, 0) <= 0 THEN count ELSE greatest(0, least(count, lim - coalesce(used, 0))) END AS kept
    FROM g
  ), counted AS (
    INSERT INTO click_quota (user_id, month, count) SELECT user_id, month, kept FROM a WHERE kept > 0
    ON CONFLICT (user_id, month) DO UPDATE SET count = click_quota.count + excluded.count
  )
  SELECT array_agg(kept ORDER BY i) INTO v_allowed FROM a;

  WITH e AS MATERIALIZED (
    SELECT * FROM json_to_recordset(p_enriched) AS e(i integer, day date, country text, referrer text, social text,
      browser text, os text, device text, language text, bot boolean, hash text)
  ), c AS MATERIALIZED (
    -- one row per click from the parallel arrays (l link, q QR code, s source, t epoch ms,
    -- e enrichment, g quota group, n place in the group)
    SELECT * FROM unnest(p_link, p_qr, p_source, p_at, p_enrichment, p_quota, p_place) AS c(l, q, s, t, e, g, n)
  ), detail AS (
    INSERT INTO clicks (link_id, qr_id, source, created_at, country, referrer, browser, os, device, language, bot, visitor_hash)
    SELECT c.l, c.q, c.s, to_timestamp(c.t::float8 / 1000), e.country, e.referrer, e.browser, e.os, e.device, e.language, e.bot, e.hash
    FROM c JOIN e ON e.i = c.e
    WHERE c.n < v_allowed[c.g + 1]
  ), hit AS MATERIALIZED (
    -- clicks per subject (the link and / or the QR code), enrichment and UTC hour: repeated
    -- visitors make this much shorter than the batch, and all that follows reads it. Grouped on the
    -- integers, so subjects and hours are built per group, not per click
    SELECT g.subject, g.link_id, g.qr_id, g.e, to_timestamp(g.h * 3600) AS hour, g.n, e.day, e.bot, e.hash, e.country, e.referrer, e.social, e.browser, e.os, e.device, e.language
    FROM (SELECT 'l' || c.l AS subject, c.l AS link_id, NULL::integer AS qr_id, c.e, c.t / 3600000 AS h, count(*)::integer AS n
          FROM c WHERE c.l IS NOT NULL GROUP BY c.l, c.e, c.t / 3600000
          UNION ALL
          SELECT 'q' || c.q, NULL::integer, c.q, c.e, c.t / 3600000, count(*)::integer
          FROM c WHERE c.q IS NOT NULL GROUP BY c.q, c.e, c.t / 3600000) g
    JOIN e ON e.i = g.e
  ), fresh AS (
    INSERT INTO click_visitors (subject, link_id, qr_id, day, visitor_hash)
    SELECT DISTINCT subject, link_id, qr_id, day, hash FROM hit WHERE NOT bot
    ON CONFLICT DO NOTHING
    RETURNING subject, day, visitor_hash
  ), uniq AS MATERIALIZED (
    SELECT subject, count(*)::integer AS n FROM fresh GROUP BY subject
  ), firsts AS (
    -- a new visitor of the day counts once, on the profile of its first enrichment in the batch
    SELECT subject, day, e, count(*)::integer AS n FROM (
      SELECT h.subject, h.day, min(h.e) AS e FROM fresh f
      JOIN hit h ON h.subject = f.subject AND h.day = f.day AND h.hash = f.visitor_hash AND NOT h.bot
      GROUP BY h.subject, h.day, h.hash) x
    GROUP BY subject, day, e
  ), profiles AS (
    -- a bot hit counts on the profile with every label empty: nothing reads a bot's labels
    INSERT INTO click_profiles (subject, link_id, qr_id, day, bot, country, referrer, social, browser, os, device, language, count, uniques)
    SELECT b.subject, b.link_id, b.qr_id, b.day, e.bot,
      CASE WHEN e.bot THEN '' ELSE coalesce(e.country, '') END, CASE WHEN e.bot THEN '' ELSE coalesce(e.referrer, '') END,
      CASE WHEN e.bot THEN '' ELSE coalesce(e.social, '') END, CASE WHEN e.bot THEN '' ELSE coalesce(e.browser, '') END,
      CASE WHEN e.bot THEN '' ELSE coalesce(e.os, '') END, CASE WHEN e.bot THEN '' ELSE coalesce(e.device, '') END,
      CASE WHEN e.bot THEN '' ELSE coalesce(e.language, '') END,
      sum(b.n)::integer, coalesce(sum(f.n), 0)::integer
    FROM (SELECT subject, link_id, qr_id, day, e, sum(n)::integer AS n FROM hit GROUP BY subject, link_id, qr_id, day, e) b
    JOIN e ON e.i = b.e
    LEFT JOIN firsts f ON f.subject = b.subject AND f.day = b.day AND f.e = b.e
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12
    ON CONFLICT ON CONSTRAINT click_profiles_pkey DO UPDATE SET count = click_profiles.count + excluded.count, uniques = click_profiles.uniques + excluded.uniques
  ), hour_visitors AS (
    -- an hour's unique visitors are its new click_visitor_hours rows
    INSERT INTO click_visitor_hours (subject, link_id, qr_id, hour, visitor_hash)
    SELECT DISTINCT subject, link_id, qr_id, hour, hash FROM hit WHERE NOT bot
    ON CONFLICT DO NOTHING
    RETURNING subject, hour
  ), hourly AS (
    INSERT INTO click_hourly (subject, link_id, qr_id, hour, clicks, unique_clicks, bot_clicks)
    SELECT b.subject, b.link_id, b.qr_id, b.hour, b.clicks, coalesce(u.n, 0), b.bots
    FROM (SELECT subject, link_id, qr_id, hour, coalesce(sum(n) FILTER (WHERE NOT bot), 0)::integer AS clicks, coalesce(sum(n) FILTER (WHERE bot), 0)::integer AS bots
          FROM hit GROUP BY subject, link_id, qr_id, hour) b
    LEFT JOIN (SELECT subject, hour, count(*)::integer AS n FROM hour_visitors GROUP BY subject, hour) u ON u.subject = b.subject AND u.hour = b.hour
    ON CONFLICT (subject, hour) DO UPDATE SET clicks = click_hourly.clicks + excluded.clicks,
      unique_clicks = click_hourly.unique_clicks + excluded.unique_clicks, bot_clicks = click_hourly.bot_clicks + excluded.bot_clicks
  ), counts AS (
    SELECT k.link_id, k.qr_id, k.clicks, k.bots, coalesce(u.n, 0) AS uniques
    FROM (SELECT subject, link_id, qr_id, coalesce(sum(n) FILTER (WHERE NOT bot), 0)::integer AS clicks, coalesce(sum(n) FILTER (WHERE bot), 0)::integer AS bots
          FROM hit GROUP BY subject, link_id, qr_id) k
    LEFT JOIN uniq u ON u.subject = k.subject
  ), link_counts AS (
    UPDATE links AS l SET clicks = l.clicks + v.clicks, unique_clicks = l.unique_clicks + v.uniques,
      bot_clicks = l.bot_clicks + v.bots, last_rotation = coalesce(r.r, l.last_rotation)
    FROM counts v LEFT JOIN jsonb_to_recordset(p_batch->'rotations') AS r(id integer, r integer) ON r.id = v.link_id
    WHERE l.id = v.link_id
  )
  UPDATE qr_codes AS q SET scans = q.scans + v.clicks, unique_scans = q.unique_scans + v.uniques, bot_scans = q.bot_scans + v.bots
  FROM counts v WHERE q.id = v.qr_id;
  RETURN NULL;
END $$;
