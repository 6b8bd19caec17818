-- count is carried in the primary key (INCLUDE, written here by hand: drizzle-kit cannot say it), so
-- every read of the overview is an index-only scan; only the daily fold updates these rows
CREATE TABLE "click_account_rollups" (
	"user_id" integer NOT NULL,
	"dimension" text NOT NULL,
	"day" date NOT NULL,
	"label" text NOT NULL,
	"count" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "click_account_rollups_user_id_dimension_day_label_pk" PRIMARY KEY("user_id","dimension","day","label") INCLUDE ("count")
);
--> statement-breakpoint
CREATE INDEX "links_user_id_idx" ON "links" USING btree ("user_id","id");
--> statement-breakpoint
-- The account overview (GET /api/account/stats) summed every link's rollups of its range: seconds for
-- an account of 100,000 links. These sums per account and day are kept by triggers, so neither the
-- click writer nor the fold (clicks/totals.ts) changed: the fold's insert or update of rollups adds
-- its rows' counts here (an update adds what it added), a deleted link subtracts its rollups before
-- links_delete_click_rows deletes them (triggers fire in name order), and the days not folded yet
-- are read from click_profiles. `link` rows count each link's clicks of a day, for the top links.
CREATE FUNCTION "add_account_rollups"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO click_account_rollups (user_id, dimension, day, label, count)
    SELECT l.user_id, v.dimension, a.day, v.label, sum(a.count)::integer
    FROM added a JOIN links l ON l.id = a.link_id
    CROSS JOIN LATERAL (VALUES (a.dimension, a.label), (CASE WHEN a.dimension = 'total' THEN 'link' END, a.link_id::text)) AS v(dimension, label)
    WHERE a.dimension <> 'social' AND v.dimension IS NOT NULL
    GROUP BY 1, 2, 3, 4
    ON CONFLICT (user_id, dimension, day, label) DO UPDATE SET count = click_account_rollups.count + excluded.count;
  ELSE
    INSERT INTO click_account_rollups (user_id, dimension, day, label, count)
    SELECT l.user_id, v.dimension, n.day, v.label, sum(n.count - o.count)::integer
    FROM added n JOIN removed o ON o.subject = n.subject AND o.day = n.day AND o.dimension = n.dimension AND o.label = n.label
    JOIN links l ON l.id = n.link_id
    CROSS JOIN LATERAL (VALUES (n.dimension, n.label), (CASE WHEN n.dimension = 'total' THEN 'link' END, n.link_id::text)) AS v(dimension, label)
    WHERE n.dimension <> 'social' AND v.dimension IS NOT NULL AND n.count <> o.count
    GROUP BY 1, 2, 3, 4
    ON CONFLICT (user_id, dimension, day, label) DO UPDATE SET count = click_account_rollups.count + excluded.count;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "click_rollups_account_insert" AFTER INSERT ON "click_rollups" REFERENCING NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION "add_account_rollups"();
--> statement-breakpoint
CREATE TRIGGER "click_rollups_account_update" AFTER UPDATE ON "click_rollups" REFERENCING OLD TABLE AS removed NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION "add_account_rollups"();
--> statement-breakpoint
CREATE FUNCTION "subtract_account_rollups"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- as delete_click_rows: a fold under way finishes first
  PERFORM pg_advisory_xact_lock_shared(72801312);
  INSERT INTO click_account_rollups (user_id, dimension, day, label, count)
  SELECT g.user_id, v.dimension, r.day, v.label, -sum(r.count)::integer
  FROM gone g JOIN click_rollups r ON r.subject = 'l' || g.id
  CROSS JOIN LATERAL (VALUES (r.dimension, r.label), (CASE WHEN r.dimension = 'total' THEN 'link' END, g.id::text)) AS v(dimension, label)
  WHERE r.dimension <> 'social' AND v.dimension IS NOT NULL
  GROUP BY 1, 2, 3, 4
  ON CONFLICT (user_id, dimension, day, label) DO UPDATE SET count = click_account_rollups.count + excluded.count;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "links_account_rollups" AFTER DELETE ON "links" REFERENCING OLD TABLE AS gone
  FOR EACH STATEMENT EXECUTE FUNCTION "subtract_account_rollups"();
--> statement-breakpoint
-- the rollups written before this migration
INSERT INTO click_account_rollups (user_id, dimension, day, label, count)
SELECT l.user_id, v.dimension, r.day, v.label, sum(r.count)::integer
FROM click_rollups r JOIN links l ON l.id = r.link_id
CROSS JOIN LATERAL (VALUES (r.dimension, r.label), (CASE WHEN r.dimension = 'total' THEN 'link' END, r.link_id::text)) AS v(dimension, label)
WHERE r.link_id IS NOT NULL AND r.dimension <> 'social' AND v.dimension IS NOT NULL
GROUP BY 1, 2, 3, 4;
