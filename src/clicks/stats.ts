import { sql, type Placeholder, type SQL } from 'drizzle-orm'
import type { Db } from '../db/client.js'
import { preparedRows } from '../db/prepared.js'
import { clickProfileRollups, clickRollups, clickTotals, clickTotalsThrough } from '../db/schema/index.js'
import { countryName } from '../lib/targets.js'

export type Top = 0 | Record<string, string>

export interface LinkStats {
  clicks: number
  uniqueClicks: number
  topCountries: Top
  topReferrers: Top
  topBrowsers: Top
  topOs: Top
  socialCount: { facebook: number; twitter: number; google: number }
  botClicks: number
}

export interface QrStats extends Omit<LinkStats, 'socialCount'> {
  socialCount: { facebook: number; twitter: number; instagram: number }
}

/** A country's statistics label: the same English name link targets use ("US" → "United States"). */
export const countryLabel = (code: string): string => countryName(code) ?? 'Unknown'

type Sums = Map<string, Map<string, number>>

/** A row of all-time (or range) sums: a dimension's label and its count. */
export type LabelSum = {
  dimension: string
  label: string
  n: number
}

/** Dimension names (constants of the caller) as SQL literals for `in (...)`. */
export const dimensionList = (dimensions: readonly string[]): SQL => sql.raw(dimensions.map((d) => `'${d}'`).join(', '))

/**
 * All-time sums per dimension and label of a subject: click_totals, which holds the days up to
 * click_totals_through, plus the rollups of the days after it, plus the profiles not folded yet
 * (today's, late clicks, and any day the fold has not reached: clicks/totals.ts). One statement, so
 * a fold committing meanwhile is seen whole or not at all. `dimensions` are constants of the caller;
 * `only` adds a condition on the subject.
 */
export function allTimeSumsSql(subject: string | Placeholder, dimensions?: readonly string[], only?: SQL): SQL {
  const t = clickTotals
  const r = clickRollups
  const p = clickProfileRollups
  const of = (dimension: SQL) => (dimensions ? sql` and ${dimension} in (${dimensionList(dimensions)})` : sql``)
  return sql`select dimension, label, sum(n)::int as n from (
      select ${t.dimension} as dimension, ${t.label} as label, ${t.count} as n from ${t} where ${t.subject} = ${subject}${of(sql`${t.dimension}`)}
      union all
      select ${r.dimension}, ${r.label}, ${r.count} from ${r}
      where ${r.subject} = ${subject} and ${r.day} > (select ${clickTotalsThrough.day} from ${clickTotalsThrough})${of(sql`${r.dimension}`)}
      union all
      select ${p.dimension}, ${p.label}, ${p.count} from ${p} where ${p.subject} = ${subject}${of(sql`${p.dimension}`)}
    ) s${only ? sql` where ${only}` : sql``} group by dimension, label`
}

/** Every dimension's all-time sums of one subject, built once (`preparedRows`). */
const allTimeSums = () => allTimeSumsSql(sql.placeholder('subject'))

async function rollupSums(db: Db, subject: string): Promise<Sums> {
  const rows = await preparedRows<LabelSum>(db, allTimeSums).execute({ subject })
  const sums: Sums = new Map()
  for (const r of rows) {
    let m = sums.get(r.dimension)
    if (!m) sums.set(r.dimension, (m = new Map()))
    m.set(r.label, Number(r.n))
  }
  return sums
}

/** Top 10 labels, counts as strings, `0` when there is nothing (SPEC.md, DECISIONS §6). */
function top(sums: Sums, dimension: string, name: (label: string) => string): Top {
  const merged = new Map<string, number>()
  for (const [label, n] of sums.get(dimension) ?? []) {
    if (n <= 0) continue
    const key = name(label)
    merged.set(key, (merged.get(key) ?? 0) + n)
  }
  if (merged.size === 0) return 0
  const sorted = [...merged].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).slice(0, 10)
  return Object.fromEntries(sorted.map(([k, n]) => [k, String(n)]))
}

const orUnknown = (label: string) => label || 'Unknown'

function common(sums: Sums) {
  return {
    topCountries: top(sums, 'country', countryLabel),
    topReferrers: top(sums, 'referrer', (l) => l || 'Direct'),
    topBrowsers: top(sums, 'browser', orUnknown),
    topOs: top(sums, 'os', orUnknown),
  }
}

const social = (sums: Sums, key: string) => sums.get('social')?.get(key) ?? 0

/** A link row's counters, which the caller has just read with the row. */
export type LinkCounters = { id: number; clicks: number; uniqueClicks: number; botClicks: number }

/** Statistics of a link, as `GET /api/url/:id` and the `/<alias>+` page show them. */
export async function linkStats(db: Db, link: LinkCounters): Promise<LinkStats> {
  const sums = await rollupSums(db, `l${link.id}`)
  return {
    clicks: link.clicks,
    uniqueClicks: link.uniqueClicks,
    ...common(sums),
    socialCount: { facebook: social(sums, 'facebook'), twitter: social(sums, 'twitter'), google: social(sums, 'google') },
    botClicks: link.botClicks,
  }
}

/** A QR code row's counters, which the caller has just read with the row. */
export type QrCounters = { id: number; scans: number; uniqueScans: number; botScans: number }

/** Statistics of a QR code's scans (`GET /api/qr/:id`); `instagram` replaces `google`. */
export async function qrStats(db: Db, qr: QrCounters): Promise<QrStats> {
  const sums = await rollupSums(db, `q${qr.id}`)
  return {
    clicks: qr.scans,
    uniqueClicks: qr.uniqueScans,
    ...common(sums),
    socialCount: { facebook: social(sums, 'facebook'), twitter: social(sums, 'twitter'), instagram: social(sums, 'instagram') },
    botClicks: qr.botScans,
  }
}
