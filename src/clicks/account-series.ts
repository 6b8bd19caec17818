import { sql } from 'drizzle-orm'
import type { Db } from '../db/client.js'
import { preparedRows } from '../db/prepared.js'
import { clickAccountRollups, clickHourly, clickProfileRollups, clickProfiles, domains, links } from '../db/schema/index.js'
import { shortUrlOf } from '../lib/short-url.js'
import { dimensionList, type LabelSum } from './stats.js'
import { seriesOf, TOP_DIMENSIONS, type DayCounts, type HourCounts, type StatsRange, type StatsSeries } from './series.js'

/**
 * The overview of an account: the statistics over time of all its links together (GET
 * /api/account/stats). It reads click_account_rollups (migration 0017: the account's link rollups
 * summed per day, a few dozen rows a day whatever the number of links) plus the profiles of the
 * days not folded yet, joined to the account's links. Only link subjects count: a QR code's own
 * scans are not a link's clicks (a link's QR code encodes its short URL, so its scans are).
 * `uniqueClicks` is the sum of each link's unique visitors per bucket: one person visiting two
 * links counts twice.
 */

export interface TopLink {
  id: number
  alias: string
  shorturl: string
  title: string
  clicks: number
}

export interface AccountStats extends StatsSeries {
  topLinks: TopLink[]
}

const TOP_LINKS = 10

const param = { user: sql.placeholder('user'), from: sql.placeholder('from'), to: sql.placeholder('to') }
const a = clickAccountRollups
const p = clickProfiles

/** The account's profiles in the range: the days the fold has not reached (a day or two). */
const ownProfiles = sql`${p.linkId} is not null and ${p.day} between ${param.from} and ${param.to}
  and exists (select 1 from ${links} l where l.id = ${p.linkId} and l.user_id = ${param.user})`

/** The daily total, unique and bot counts of the account's links, one row a day. */
const dailyAccount = () => {
  const of = (dimension: string) => sql`coalesce(sum(${a.count}) filter (where ${a.dimension} = ${sql.raw(`'${dimension}'`)}), 0)::int`
  return sql`select day::text as day, sum(clicks)::int as clicks, sum(uniques)::int as uniques, sum(bots)::int as bots from (
      select ${a.day} as day, ${of('total')} as clicks, ${of('unique')} as uniques, ${of('bot')} as bots
      from ${a}
      where ${a.userId} = ${param.user} and ${a.dimension} in ('total', 'unique', 'bot') and ${a.day} between ${param.from} and ${param.to}
      group by ${a.day}
      union all
      select ${p.day}, coalesce(sum(${p.count}) filter (where not ${p.bot}), 0), sum(${p.uniques}), coalesce(sum(${p.count}) filter (where ${p.bot}), 0)
      from ${p} where ${ownProfiles}
      group by ${p.day}
    ) d group by day`
}

/** The top lists' dimensions summed over the range. */
const accountTops = () => {
  const v = clickProfileRollups
  const dimensions = dimensionList(TOP_DIMENSIONS)
  return sql`select dimension, label, sum(n)::int as n from (
      select ${a.dimension} as dimension, ${a.label} as label, ${a.count} as n from ${a}
      where ${a.userId} = ${param.user} and ${a.dimension} in (${dimensions}) and ${a.day} between ${param.from} and ${param.to}
      union all
      select ${v.dimension}, ${v.label}, ${v.count} from ${v}
      where ${v.linkId} is not null and ${v.day} between ${param.from} and ${param.to} and ${v.dimension} in (${dimensions})
        and exists (select 1 from ${links} l where l.id = ${v.linkId} and l.user_id = ${param.user})
    ) s group by dimension, label`
}

/** The account's links with the most clicks in the range, ties by id, with what a list shows of them. */
const topLinks = () =>
  sql`select t.id, t.clicks, l.alias, l.title, d.domain from (
      select id, sum(n)::int as clicks from (
        select ${a.label}::int as id, ${a.count} as n from ${a}
        where ${a.userId} = ${param.user} and ${a.dimension} = 'link' and ${a.day} between ${param.from} and ${param.to}
        union all
        select ${p.linkId}, ${p.count} from ${p} where not ${p.bot} and ${ownProfiles}
      ) s group by id having sum(n) > 0 order by clicks desc, id limit ${sql.raw(String(TOP_LINKS))}
    ) t join ${links} l on l.id = t.id and l.user_id = ${param.user} left join ${domains} d on d.id = l.domain_id
    order by t.clicks desc, t.id`

/** The hourly buckets of the account's links (interval=hour: at most 7 days). */
const hourlyAccount = () => {
  const h = clickHourly
  return sql`select to_char(${h.hour} at time zone 'UTC', 'YYYY-MM-DD HH24:00:00') as hour, sum(${h.clicks})::int as clicks,
      sum(${h.uniqueClicks})::int as "unique", sum(${h.botClicks})::int as bots
    from ${h} join ${links} l on l.id = ${h.linkId}
    where l.user_id = ${param.user} and ${h.hour} >= ${param.from}::date::timestamp at time zone 'UTC'
      and ${h.hour} < (${param.to}::date + 1)::timestamp at time zone 'UTC'
    group by 1`
}

type TopLinkRow = { id: number; clicks: number; alias: string; title: string | null; domain: string | null }

/** The statistics over time of every link of `userId` (DECISIONS §10.2's shape, plus `topLinks`). */
export async function accountSeries(db: Db, config: { publicUrl: string }, userId: number, range: StatsRange): Promise<AccountStats> {
  const values = { user: userId, from: range.from, to: range.to }
  const [daily, tops, top, hourly] = await Promise.all([
    preparedRows<DayCounts>(db, dailyAccount).execute(values),
    preparedRows<LabelSum>(db, accountTops).execute(values),
    preparedRows<TopLinkRow>(db, topLinks).execute(values),
    range.interval === 'hour' ? preparedRows<HourCounts>(db, hourlyAccount).execute(values) : Promise.resolve([]),
  ])
  return {
    ...seriesOf(range, daily, hourly, tops),
    topLinks: top.map((r) => ({
      id: Number(r.id),
      alias: r.alias,
      shorturl: shortUrlOf(config, r, r.domain ? { domain: r.domain } : null),
      title: r.title ?? '',
      clicks: Number(r.clicks),
    })),
  }
}
