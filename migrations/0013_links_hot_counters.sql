-- Issue 14: a click batch updates each clicked link's counters. With `clicks` indexed, every such
-- update wrote a new entry in each of the table's indexes; without it, and with room left on each
-- page, the update stays on its page (HOT) and touches no index. Listing an account's links by
-- clicks sorts them instead of reading an index (docs/decisions.md, session 16).
DROP INDEX "links_user_clicks_idx";--> statement-breakpoint
-- Pages written from now on keep a fifth free for new versions of their rows. Pages already full
-- get that room back as vacuum removes the versions the updates leave behind.
ALTER TABLE "links" SET (fillfactor = 80);
