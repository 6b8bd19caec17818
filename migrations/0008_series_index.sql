-- Issue 14: the daily series of a subject (clicks/series.ts statsSeries) reads its total, unique and
-- bot rows only; through the primary key it read every label of every day of the range. count is
-- not in the index, so the click writer's updates of these rows stay HOT.
CREATE INDEX "click_rollups_series_idx" ON "click_rollups" USING btree ("subject","day") WHERE "click_rollups"."dimension" in ('total', 'unique', 'bot');