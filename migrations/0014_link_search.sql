-- Issue 14: link search (GET /api/urls?q=, v1 ?search=) is an ILIKE '%text%', which no btree index
-- serves, so every search read all of an account's links: 75 ms a column on PGlite at 100,000
-- links, in the one connection redirects' cache misses wait for. pg_trgm's GIN indexes answer it
-- from the text's trigrams. The extension ships with Postgres (contrib) and is trusted since 13, so
-- the database's owner can create it; PGlite loads it in its worker. Where it cannot be created
-- (no contrib package, no CREATE right), the migration goes on without the indexes and search keeps
-- reading every link: correct, only slower.
DO $$
BEGIN
  CREATE EXTENSION IF NOT EXISTS pg_trgm;
EXCEPTION WHEN OTHERS THEN
  RAISE NOTICE 'pg_trgm could not be created (%): link search reads every link of an account', SQLERRM;
END $$;--> statement-breakpoint
-- its operator class is named by the extension's schema, which need not be on the search path. New
-- entries wait in a pending list of 256 kB, not the default 4 MB: merging 4 MB into the index took
-- one link create 170 ms on PGlite, during which every other statement waited
DO $$
DECLARE
  s text := (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm');
  c text;
BEGIN
  IF s IS NULL THEN
    RETURN;
  END IF;
  FOREACH c IN ARRAY ARRAY['alias', 'url', 'title', 'description'] LOOP
    EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON links USING gin (%I %I.gin_trgm_ops) WITH (gin_pending_list_limit = 256)', 'links_' || c || '_trgm_idx', c, s);
  END LOOP;
END $$;
