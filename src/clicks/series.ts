import { and, eq, sql, type Placeholder, type SQL } from 'drizzle-orm'
import { z } from 'zod'
import type { Db } from '../db/client.js'
import { preparedRows } from '../db/prepared.js'
import { clickHourly, clickProfileRollups, clickProfiles, clickRollups } from '../db/schema/index.js'
import { badRequest } from '../http/errors.js'
import { toDay } from '../http/format.js'
import { allTimeSumsSql, countryLabel, dimensionList, type LabelSum, type Top } from './stats.js'

/** DECISIONS §10.2: statistics over time of a link or a QR code, read from rollups only. */

export type Interval = 'day' | 'hour'

export interface StatsRange {
  from: string
  to: string
  interval: Interval
}

export interface Point {
  date: string
  clicks: number
  uniqueClicks: number
  botClicks: number
}

export interface StatsSeries extends StatsRange {
  series: Point[]
  totals: { clicks: number; uniqueClicks: number; botClicks: number }
  topCountries: Top
  topReferrers: Top
  topBrowsers: Top
  topOs: Top
  topDevices: Top
  topLanguages: Top
}

/** The query of the stats routes; parseRange checks the values, so its errors name the field. */
export const statsQuery = z.object({
  from: z.string().optional().meta({ description: 'first day, YYYY-MM-DD (UTC); default 29 days before `to`' }),
  to: z.string().optional().meta({ description: 'last day, YYYY-MM-DD (UTC); default today' }),
  interval: z.string().optional().meta({ description: '`day` (default) or `hour` (ranges up to 7 days)' }),
})

const DAY_MS = 86_400_000
/** `to` − `from` at most this many days (day interval) */
export const MAX_SPAN_DAYS = 400
/** an hourly series covers at most this many calendar days (168 buckets) */
export const MAX_HOUR_DAYS = 7
const DEFAULT_DAYS = 30

function parseDay(field: 'from' | 'to', value: unknown): number | undefined {
  if (value === undefined || value === '') return undefined
  const m = typeof value === 'string' ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(value.trim()) : null
  const t = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : NaN
  // Date.UTC rolls 2025-02-30 over into March: a real date prints back the same
  if (!m || Number.isNaN(t) || toDay(new Date(t)) !== m[0]) {
    throw badRequest(`${field} must be a date as YYYY-MM-DD.`, field)
  }
  return t
}

/**
 * The range a query asks for: `to` defaults to today (UTC), `from` to 29 days before `to` (30
 * buckets). Errors name the field: a malformed date its own, an inverted or too long range `to`,
 * an hourly series over more than 7 days `interval`.
 */
export function parseRange(query: { from?: unknown; to?: unknown; interval?: unknown }, now = new Date()): StatsRange {
  const interval = query.interval === undefined || query.interval === '' ? 'day' : query.interval
  if (interval !== 'day' && interval !== 'hour') throw badRequest('interval must be day or hour.', 'interval')
  const fromT = parseDay('from', query.from)
  let toT = parseDay('to', query.to)
  if (toT === undefined) {
    const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())
    toT = fromT === undefined ? today : Math.max(fromT, Math.min(today, fromT + (DEFAULT_DAYS - 1) * DAY_MS))
  }
  const from = fromT ?? toT - (DEFAULT_DAYS - 1) * DAY_MS
  if (toT < from) throw badRequest('to must be the same day as from or later.', 'to')
  const span = (toT - from) / DAY_MS
  if (span > MAX_SPAN_DAYS) throw badRequest(`from and to must be at most ${MAX_SPAN_DAYS} days apart.`, 'to')
  if (interval === 'hour' && span + 1 > MAX_HOUR_DAYS) {
    throw badRequest(`interval=hour covers at most ${MAX_HOUR_DAYS} days; use interval=day for longer ranges.`, 'interval')
  }
  return { from: toDay(new Date(from)), to: toDay(new Date(toT)), interval }
}

const pad = (n: number) => String(n).padStart(2, '0')
const hourLabel = (t: number) => {
  const d = new Date(t)
  return `${toDay(d)} ${pad(d.getUTCHours())}:00:00`
}

/** Every bucket of the range, zeros included, in order. */
function buckets(range: StatsRange): Map<string, Point> {
  const out = new Map<string, Point>()
  const start = Date.parse(`${range.from}T00:00:00Z`)
  const end = Date.parse(`${range.to}T00:00:00Z`) + DAY_MS
  const step = range.interval === 'day' ? DAY_MS : DAY_MS / 24
  for (let t = start; t < end; t += step) {
    const date = range.interval === 'day' ? toDay(new Date(t)) : hourLabel(t)
    out.set(date, { date, clicks: 0, uniqueClicks: 0, botClicks: 0 })
  }
  return out
}

/** A day of the daily series: its date (YYYY-MM-DD) and counts. */
export type DayCounts = {
  day: string
  clicks: number
  uniques: number
  bots: number
}

/** A value of the statements below: given, or a placeholder of their prepared form. */
type Value = string | Placeholder

/**
 * The daily total, unique and bot counts of a range, one row a day. The three dimensions are
 * literals, not bind parameters, so the planner can prove the partial index
 * click_rollups_series_idx (migration 0008) holds the rows, which it cannot for parameters in a
 * generic plan. A raw statement, one row a day rather than one a day and dimension: drizzle's
 * mapping of a year's 1,100 rows, field by field, was a fifth of the request's CPU.
 */
export function dailyCountsSql(subject: Value, range: { from: Value; to: Value }): SQL {
  const r = clickRollups
  const p = clickProfiles
  const of = (dimension: string) => sql`coalesce(sum(${r.count}) filter (where ${r.dimension} = ${sql.raw(`'${dimension}'`)}), 0)::int`
  // plus the days not folded yet, whose clicks are profiles (migration 0012): a few rows a day
  return sql`select day::text as day, sum(clicks)::int as clicks, sum(uniques)::int as uniques, sum(bots)::int as bots from (
      select ${r.day} as day, ${of('total')} as clicks, ${of('unique')} as uniques, ${of('bot')} as bots
      from ${r}
      where ${r.subject} = ${subject} and ${r.day} between ${range.from} and ${range.to} and ${r.dimension} in ('total', 'unique', 'bot')
      group by ${r.day}
      union all
      select ${p.day}, coalesce(sum(${p.count}) filter (where not ${p.bot}), 0), sum(${p.uniques}), coalesce(sum(${p.count}) filter (where ${p.bot}), 0)
      from ${p}
      where ${p.subject} = ${subject} and ${p.day} between ${range.from} and ${range.to}
      group by ${p.day}
    ) d group by day`
}

/** the placeholders of the prepared statements below */
const param = { subject: sql.placeholder('subject'), from: sql.placeholder('from'), to: sql.placeholder('to') }

const daily = () => dailyCountsSql(param.subject, param)

async function dailyCounts(db: Db, subject: string, range: StatsRange): Promise<DayCounts[]> {
  return preparedRows<DayCounts>(db, daily).execute({ subject, from: range.from, to: range.to })
}

/** Top 10 of one dimension, counts as strings, `0` when empty (DECISIONS §6). */
function topOf(rows: { dimension: string; label: string; n: number }[], dimension: string, name: (label: string) => string): Top {
  const merged = new Map<string, number>()
  for (const r of rows) {
    if (r.dimension !== dimension || r.n <= 0) continue
    const key = name(r.label)
    merged.set(key, (merged.get(key) ?? 0) + r.n)
  }
  if (merged.size === 0) return 0
  const sorted = [...merged].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).slice(0, 10)
  return Object.fromEntries(sorted.map(([k, n]) => [k, String(n)]))
}

const orUnknown = (label: string) => label || 'Unknown'

/** The dimensions of the top lists. */
export const TOP_DIMENSIONS: readonly string[] = ['country', 'referrer', 'browser', 'os', 'device', 'language']

/** The all-time sums of the top lists' dimensions, or none when the subject has clicks outside the range. */
const wholeTops = () => {
  const outside = sql`not exists (select 1 from ${clickRollups} r where r.subject = ${param.subject} and (r.day < ${param.from} or r.day > ${param.to}))
    and not exists (select 1 from ${clickProfiles} p where p.subject = ${param.subject} and (p.day < ${param.from} or p.day > ${param.to}))`
  return allTimeSumsSql(param.subject, TOP_DIMENSIONS, outside)
}

/** The top lists' dimensions summed over the range's days. */
const rangeTops = () => {
  const r = clickRollups
  const p = clickProfileRollups
  const dimensions = dimensionList(TOP_DIMENSIONS)
  return sql`select dimension, label, sum(n)::int as n from (
      select ${r.dimension} as dimension, ${r.label} as label, ${r.count} as n from ${r}
      where ${r.subject} = ${param.subject} and ${r.day} between ${param.from} and ${param.to} and ${r.dimension} in (${dimensions})
      union all
      select ${p.dimension}, ${p.label}, ${p.count} from ${p}
      where ${p.subject} = ${param.subject} and ${p.day} between ${param.from} and ${param.to} and ${p.dimension} in (${dimensions})
    ) s group by dimension, label`
}

/**
 * The top lists' rows of a range. A range that holds every day the subject has clicks on (the
 * dashboard's year of a younger link) reads the all-time sums, a few dozen rows, instead of summing
 * a rollup row per day and label (18,000 for a year of a busy link): rollups are never purged, and
 * the totals are their sums (migration 0011).
 */
async function topRows(db: Db, subject: string, range: StatsRange): Promise<LabelSum[]> {
  const values = { subject, from: range.from, to: range.to }
  const whole = await preparedRows<LabelSum>(db, wholeTops).execute(values)
  // nothing: no clicks at all, or some outside the range
  if (whole.length > 0) return whole
  return preparedRows<LabelSum>(db, rangeTops).execute(values)
}

/**
 * The series, range totals and top lists of a subject ('l<id>' or 'q<id>'). Daily buckets, totals
 * and top lists come from click_rollups, hourly buckets from click_hourly: at most a few hundred
 * rows a day of range, never the raw clicks. Totals sum the days of the range (a visitor hash is
 * per day, so `uniqueClicks` is the sum of daily unique visitors, as the link's counter is).
 */
export async function statsSeries(db: Db, subject: string, range: StatsRange): Promise<StatsSeries> {
  const [daily, tops, hourly] = await Promise.all([
    dailyCounts(db, subject, range),
    topRows(db, subject, range),
    range.interval === 'hour'
      ? db
          .select({
            hour: sql<string>`to_char(${clickHourly.hour} at time zone 'UTC', 'YYYY-MM-DD HH24:00:00')`,
            clicks: clickHourly.clicks,
            unique: clickHourly.uniqueClicks,
            bots: clickHourly.botClicks,
          })
          .from(clickHourly)
          .where(and(eq(clickHourly.subject, subject), sql`${clickHourly.hour} >= ${`${range.from}T00:00:00Z`}::timestamptz`, sql`${clickHourly.hour} < ${`${range.to}T00:00:00Z`}::timestamptz + interval '1 day'`))
      : Promise.resolve([]),
  ])
  return seriesOf(range, daily, hourly, tops)
}

/** An hour of the hourly series: its bucket (`YYYY-MM-DD HH:00:00`) and counts. */
export type HourCounts = { hour: string; clicks: number; unique: number; bots: number }

/**
 * The answer of a stats route from its rows: every bucket of the range (daily ones from `daily`,
 * hourly ones from `hourly`), totals summed over the days, and the top lists of `tops`. Shared by
 * a subject's series and an account's (account-series.ts).
 */
export function seriesOf(range: StatsRange, daily: DayCounts[], hourly: HourCounts[], tops: LabelSum[]): StatsSeries {
  const totals = { clicks: 0, uniqueClicks: 0, botClicks: 0 }
  const points = buckets(range)
  for (const r of daily) {
    const clicks = Number(r.clicks)
    const uniques = Number(r.uniques)
    const bots = Number(r.bots)
    totals.clicks += clicks
    totals.uniqueClicks += uniques
    totals.botClicks += bots
    const p = range.interval === 'day' ? points.get(r.day) : undefined
    if (p) {
      p.clicks += clicks
      p.uniqueClicks += uniques
      p.botClicks += bots
    }
  }
  for (const r of hourly) {
    const p = points.get(r.hour)
    if (!p) continue
    p.clicks += Number(r.clicks)
    p.uniqueClicks += Number(r.unique)
    p.botClicks += Number(r.bots)
  }
  const labelled = tops.map((r) => ({ dimension: r.dimension, label: r.label, n: Number(r.n) }))
  return {
    ...range,
    series: [...points.values()],
    totals,
    topCountries: topOf(labelled, 'country', countryLabel),
    topReferrers: topOf(labelled, 'referrer', (l) => l || 'Direct'),
    topBrowsers: topOf(labelled, 'browser', orUnknown),
    topOs: topOf(labelled, 'os', orUnknown),
    topDevices: topOf(labelled, 'device', orUnknown),
    topLanguages: topOf(labelled, 'language', orUnknown),
  }
}
