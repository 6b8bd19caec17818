-- The account's hourly overview (clicks/account-series.ts) filters click_hourly by hour across the
-- account's links, and the table had only (subject, hour): every overview read all accounts' rows,
-- so a 50-link account waited on a 100,000-link one (34 ms; 2 ms with this index). Rows arrive in
-- hour order, so a block-range index stays tight, and it costs the click writer next to nothing.
CREATE INDEX "click_hourly_hour_brin" ON "click_hourly" USING brin ("hour");
