import { sql } from 'drizzle-orm'
import { bigint, bigserial, boolean, check, date, index, integer, pgTable, pgView, primaryKey, text, timestamp } from 'drizzle-orm/pg-core'
import { createdAt } from './columns.js'

/*
 * No foreign keys on the click tables (migration 0007): each click paid a key check on links or
 * qr_codes in every table it touches. Deleting a link or a QR code deletes its rows through a
 * statement trigger on links and qr_codes (every cascade path included), and write_click_batch()
 * locks the batch's links and QR codes `for key share`, so a concurrent delete leaves no rows.
 */

/**
 * One row per visit (human or bot) of a link or scan of a QR code. Raw IPs are never stored:
 * visitorHash = HMAC(secret, day + IP + user agent).
 */
export const clicks = pgTable(
  'clicks',
  {
    // no primary key index (migration 0010): nothing seeks a click by id, and each insert paid for
    // it. The sequence keeps ids unique; the export breaks ties on it, retention deletes by ctid
    id: bigserial({ mode: 'number' }),
    linkId: integer(),
    qrId: integer(),
    /** link | rotator | qr */
    source: text().notNull().default('link'),
    createdAt: createdAt(),
    country: text(),
    referrer: text(),
    browser: text(),
    os: text(),
    device: text(),
    language: text(),
    bot: boolean().notNull().default(false),
    visitorHash: text().notNull(),
  },
  // partial: a row belongs to a link or to a QR code, so each insert maintains one of the two. The
  // export and the delete trigger seek them. Retention finds old rows by the BRIN index (a few
  // pages, and next to nothing per insert: rows arrive in time order)
  (t) => [
    index('clicks_link_created_idx').on(t.linkId, t.createdAt).where(sql`${t.linkId} is not null`),
    index('clicks_qr_created_idx').on(t.qrId, t.createdAt).where(sql`${t.qrId} is not null`),
    index('clicks_created_brin').using('brin', t.createdAt),
  ],
)

/** The columns of a rollup row: click_rollups, and click_profile_rollups below, which reads as one. */
const rollupColumns = () => ({
  subject: text().notNull(),
  linkId: integer(),
  qrId: integer(),
  day: date({ mode: 'string' }).notNull(),
  dimension: text().notNull(),
  label: text().notNull(),
  count: integer().notNull().default(0),
})

/**
 * Daily pre-aggregates that statistics read, so a link with millions of clicks answers from a few
 * hundred rows; the fold writes a finished day's from its click_profiles (clicks/totals.ts).
 * `subject` is 'l<linkId>' or 'q<qrId>'; dimension is total | unique | bot | country | referrer |
 * browser | os | social. Totals are kept when detail is purged. Rollups, totals and hourly buckets
 * have fillfactor 70 (migration 0007), so a batch's count update stays on its page (HOT).
 */
export const clickRollups = pgTable(
  'click_rollups',
  rollupColumns(),
  (t) => [
    primaryKey({ columns: [t.subject, t.day, t.dimension, t.label] }),
    // the daily series (clicks/series.ts) reads these three of a subject's dozens of rows a day;
    // count is left out so a batch's update of them stays HOT
    index('click_rollups_series_idx').on(t.subject, t.day).where(sql`${t.dimension} in ('total', 'unique', 'bot')`),
    // the daily fold into click_totals (clicks/totals.ts) reads one day of every subject; a day's rows
    // sit together in the table, and a BRIN index costs an insert next to nothing (migration 0011)
    index('click_rollups_day_brin').using('brin', t.day),
  ],
)

/**
 * The days not yet folded (clicks/totals.ts), as one row per subject, day and visitor profile: the
 * labels of every dimension together, so a click writes one row here where it wrote one rollup row
 * per dimension (migration 0012). A bot hit's profile has every label empty. `uniques` counts the
 * day's new visitors, each on the profile of its first click. The fold moves these rows into
 * click_rollups (and click_totals) once their day is over; readers add the two
 * (`click_profile_rollups`, the same rows as rollups, is the one place that spells out how).
 */
export const clickProfiles = pgTable(
  'click_profiles',
  {
    subject: text().notNull(),
    linkId: integer(),
    qrId: integer(),
    day: date({ mode: 'string' }).notNull(),
    bot: boolean().notNull(),
    country: text().notNull(),
    referrer: text().notNull(),
    social: text().notNull(),
    browser: text().notNull(),
    os: text().notNull(),
    device: text().notNull(),
    language: text().notNull(),
    count: integer().notNull().default(0),
    uniques: integer().notNull().default(0),
  },
  (t) => [
    primaryKey({ name: 'click_profiles_pkey', columns: [t.subject, t.day, t.bot, t.country, t.referrer, t.social, t.browser, t.os, t.device, t.language] }),
    // the fold finds the finished days' rows (clicks/totals.ts)
    index('click_profiles_day_brin').using('brin', t.day),
  ],
)

/**
 * click_profiles as the rollup rows they stand for (a view, migration 0012): what readers add to
 * click_rollups for the days not folded yet, and what the fold writes into it.
 */
export const clickProfileRollups = pgView('click_profile_rollups', rollupColumns()).existing()

/**
 * An account's link rollups summed per day (migration 0017), so its overview (clicks/account-series.ts)
 * reads a few dozen rows a day instead of one per link, day and label. Only link subjects: a QR code's
 * scans are its own. Triggers keep it: every insert or update of click_rollups (the daily fold) adds
 * to it, and a deleted link takes its share away. Besides the rollup dimensions (social left out) it
 * holds `link`: each link's clicks of the day, label the link id, for the top links.
 */
export const clickAccountRollups = pgTable(
  'click_account_rollups',
  {
    userId: integer().notNull(),
    dimension: text().notNull(),
    day: date({ mode: 'string' }).notNull(),
    label: text().notNull(),
    count: integer().notNull().default(0),
  },
  // dimension before day: each read takes a few dimensions over a range of days, one index range each
  (t) => [primaryKey({ columns: [t.userId, t.dimension, t.day, t.label] })],
)

/**
 * All-time sums of the same dimensions, one row per (subject, dimension, label), of the rollups up
 * to click_totals_through's day: all-time statistics read these plus the few rollup rows after that
 * day, so answering for a link with a million clicks over years touches a few dozen rows. Only the
 * daily fold writes them.
 */
export const clickTotals = pgTable(
  'click_totals',
  {
    subject: text().notNull(),
    linkId: integer(),
    qrId: integer(),
    dimension: text().notNull(),
    label: text().notNull(),
    count: integer().notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.subject, t.dimension, t.label] })],
)

/**
 * The last day (UTC) whose rollups click_totals holds: one row. The click writer, the fold that moves
 * it and the delete trigger agree through an advisory lock (migration 0011, clicks/totals.ts).
 */
export const clickTotalsThrough = pgTable('click_totals_through', { one: boolean().primaryKey().default(true), day: date({ mode: 'string' }).notNull() }, (t) => [
  check('click_totals_through_one_row', sql`${t.one}`),
])

/**
 * Visitors seen per subject and day, so unique counts are exact without scanning clicks. Retention
 * finds old days by the BRIN index, as it does old clicks.
 */
export const clickVisitors = pgTable(
  'click_visitors',
  {
    subject: text().notNull(),
    linkId: integer(),
    qrId: integer(),
    day: date({ mode: 'string' }).notNull(),
    visitorHash: text().notNull(),
  },
  (t) => [primaryKey({ columns: [t.subject, t.day, t.visitorHash] }), index('click_visitors_day_brin').using('brin', t.day)],
)

/** Detailed clicks recorded per user and calendar month, for the plan's `clicks` quota. */
export const clickQuota = pgTable(
  'click_quota',
  {
    userId: integer().notNull(),
    month: text().notNull(),
    count: integer().notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.userId, t.month] })],
)

/**
 * Clicks per subject and UTC hour, for `interval=hour` series (DECISIONS §10.2): written by the same
 * batch transaction as the day's profiles, so the two never disagree. `unique_clicks` counts distinct
 * visitor hashes within the hour (click_visitor_hours), so it is not additive into days.
 */
export const clickHourly = pgTable(
  'click_hourly',
  {
    subject: text().notNull(),
    linkId: integer(),
    qrId: integer(),
    hour: timestamp({ withTimezone: true, mode: 'string' }).notNull(),
    clicks: integer().notNull().default(0),
    uniqueClicks: integer().notNull().default(0),
    botClicks: integer().notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.subject, t.hour] }),
    // the account's hourly overview reads a range of hours across its links: rows arrive in hour
    // order, so a block-range index finds the range from a few pages. Its cost to the click writer
    // was within noise in an alternated A/B on PGlite (docs/decisions.md, session 35)
    index('click_hourly_hour_brin').using('brin', t.hour),
  ],
)

/**
 * Visitors seen per subject and hour: only what dedups the hourly unique count. An hour's count is
 * final once it is over, so rows older than a week are purged whatever the plan (retention.ts); the
 * week covers clicks replayed late from the spool after an outage.
 */
export const clickVisitorHours = pgTable(
  'click_visitor_hours',
  {
    subject: text().notNull(),
    linkId: integer(),
    qrId: integer(),
    hour: timestamp({ withTimezone: true, mode: 'string' }).notNull(),
    visitorHash: text().notNull(),
  },
  (t) => [primaryKey({ columns: [t.subject, t.hour, t.visitorHash] }), index('click_visitor_hours_hour_idx').on(t.hour)],
)

/**
 * The highest spool sequence each instance has committed (clicks/spool.ts), written in the same
 * transaction as the clicks: a record at or below it is never written twice when the spool is
 * replayed after a crash.
 */
export const clickSpoolMarks = pgTable('click_spool_marks', {
  instance: text().primaryKey(),
  seq: bigint({ mode: 'number' }).notNull(),
})
