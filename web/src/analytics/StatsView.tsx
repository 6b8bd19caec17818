import { useEffect, useId, useMemo, useState, type ReactNode } from 'react'
import { useSearchParams } from 'react-router'
import { ApiError, api, qs } from '../api/client'
import type { LinkStatsSummary, Stats, StatsSeriesPoint } from '../api/types'
import { LineChart, type Series } from '../ui/Chart'
import { countryName, formatNumber, isoDay, parseApiDate } from '../ui/format'
import { useLoad } from '../ui/hooks'
import { ErrorNote, Field, Loading } from '../ui/parts'
import { readHour, timeAxis } from './time-axis'
import { TopTable, deviceName, languageName } from './TopTable'

type Preset = '24h' | 7 | 30 | 90 | 365
type Interval = 'day' | 'hour'

const PRESETS: { id: Preset; label: string }[] = [
  { id: '24h', label: '24 hours' },
  { id: 7, label: '7 days' },
  { id: 30, label: '30 days' },
  { id: 90, label: '90 days' },
  { id: 365, label: '1 year' },
]

/** the stats API's limits (DECISIONS 10.2) */
const MAX_SPAN_DAYS = 400
const MAX_HOUR_DAYS = 7
const DAY_MS = 86_400_000

const fullDay = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' })

/** The range a date input holds, as the API's UTC days; `until` ends the 24-hour preset's window. */
interface Range {
  from: string
  to: string
  preset: Preset | null
  /** the last hourly bucket shown (`YYYY-MM-DD HH:00:00`, UTC), for the 24-hour preset only */
  until?: string
}

/** The hourly bucket the current time falls in, as the API names buckets. */
const hourBucket = (d: Date) => `${d.toISOString().slice(0, 13).replace('T', ' ')}:00:00`

function rangeOf(preset: Preset, now = new Date()): Range {
  // the last 24 hours span yesterday and today (UTC days, the API's unit); the view keeps 24 buckets
  if (preset === '24h') return { from: isoDay(new Date(now.getTime() - DAY_MS)), to: isoDay(now), preset, until: hourBucket(now) }
  return { from: isoDay(new Date(now.getTime() - (preset - 1) * DAY_MS)), to: isoDay(now), preset }
}

const daysOf = (from: string, to: string) => Math.round((Date.parse(to) - Date.parse(from)) / DAY_MS) + 1
/** A `YYYY-MM-DD` that is a real day (not 2026-02-30). */
const isDay = (v: string | null): v is string => !!v && /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(v)) && isoDay(new Date(v)) === v
const readDay = (day: string) => fullDay.format(new Date(`${day}T00:00:00Z`))

/** What is wrong with a typed range, in words, or undefined when the API would take it. */
function rangeProblem(from: string, to: string): string | undefined {
  if (!from) return 'Enter a From date.'
  if (!to) return 'Enter a To date.'
  if (from > to) return `From (${readDay(from)}) is after To (${readDay(to)}): choose a From date on or before the To date.`
  if (daysOf(from, to) - 1 > MAX_SPAN_DAYS) return `From and To are ${daysOf(from, to) - 1} days apart; the most is ${MAX_SPAN_DAYS}.`
  return undefined
}

/**
 * The range and interval the address names (`from`, `to`, `interval`, and `range=24h` for the last
 * 24 hours), so a reload or a shared address shows the same figures. A value the API would refuse
 * falls back to the default: 30 days, daily.
 */
function readRange(params: URLSearchParams, now = new Date()): { range: Range; interval: Interval } {
  const from = params.get('from')
  const to = params.get('to')
  const fallback = { range: rangeOf(30, now), interval: 'day' as const }
  if (!isDay(from) || !isDay(to) || rangeProblem(from, to)) return fallback
  // the last 24 hours, while those are still the same two days; later the two days as they are
  const last24 = rangeOf('24h', now)
  if (params.get('range') === '24h' && from === last24.from && to === last24.to) return { range: last24, interval: 'hour' }
  const preset = PRESETS.find((p) => p.id !== '24h' && rangeOf(p.id, now).from === from && rangeOf(p.id, now).to === to)?.id ?? null
  const interval = params.get('interval') === 'hour' && daysOf(from, to) <= MAX_HOUR_DAYS ? 'hour' : 'day'
  return { range: { from, to, preset }, interval }
}

type Loaded<S> = { kind: 'stats'; stats: S } | { kind: 'fallback' }
type Totals = { clicks: number; uniqueClicks: number; botClicks?: number }

const sum = (points: StatsSeriesPoint[]): Required<Totals> =>
  points.reduce((t, p) => ({ clicks: t.clicks + p.clicks, uniqueClicks: t.uniqueClicks + p.uniqueClicks, botClicks: t.botClicks + p.botClicks }), { clicks: 0, uniqueClicks: 0, botClicks: 0 })

/**
 * Analytics of a link or QR code: GET /api/{url,qr}/:id/stats (DECISIONS §10.2). Until that route
 * exists on a server (404 while the object itself exists), the all-time totals are shown instead.
 * The date inputs are checked here: a range the API would refuse is named beside them and never
 * sent, and the cards keep describing the range they were loaded for. The range shown lives in
 * the address, as the links page keeps its filters there. Without a `summary` (the account overview)
 * a 404 is an error like any other; `extra` shows more of the loaded answer below the chart.
 */
export function StatsView<S extends Stats = Stats>({ base, summary, noun, extra }: { base: string; summary?: LinkStatsSummary; noun: 'Clicks' | 'Scans'; extra?: (stats: S) => ReactNode }) {
  const [params, setParams] = useSearchParams()
  const named = ['from', 'to', 'interval', 'range'].map((k) => params.get(k)).join(' ')
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const { range, interval } = useMemo(() => readRange(params), [named])
  // what the inputs show; it becomes the range once it is one the API takes
  const [draft, setDraft] = useState({ from: range.from, to: range.to })
  // a range from elsewhere (a preset, the address) replaces what the inputs held
  useEffect(() => setDraft({ from: range.from, to: range.to }), [range.from, range.to])
  const problemId = useId()
  const spanDays = daysOf(range.from, range.to)
  const hourly = interval === 'hour' && spanDays <= MAX_HOUR_DAYS
  const problem = rangeProblem(draft.from, draft.to)
  const lower = noun.toLowerCase()
  /** "1 click", "2 clicks" */
  const counted = (n: number) => `${n} ${n === 1 ? lower.replace(/s$/, '') : lower}`

  const loaded = useLoad<Loaded<S>>(async () => {
    try {
      const r = await api.get<{ data: S }>(`${base}/stats${qs({ from: range.from, to: range.to, interval: hourly ? 'hour' : 'day' })}`)
      return { kind: 'stats', stats: r.data }
    } catch (err) {
      if (summary && err instanceof ApiError && err.status === 404) return { kind: 'fallback' }
      throw err
    }
  }, [base, range.from, range.to, hourly])

  /** Show `r` by `step`: into the address, replacing its entry (a typed date is no page of its own for Back). */
  function showRange(r: Range, step: Interval) {
    const next = new URLSearchParams(params)
    next.set('from', r.from)
    next.set('to', r.to)
    next.set('interval', step)
    if (r.preset === '24h') next.set('range', '24h')
    else next.delete('range')
    setParams(next, { replace: true })
  }
  function choose(preset: Preset) {
    showRange(rangeOf(preset), preset === '24h' || preset <= MAX_HOUR_DAYS ? 'hour' : 'day')
  }
  function type(next: { from: string; to: string }) {
    setDraft(next)
    if (!rangeProblem(next.from, next.to)) showRange({ from: next.from, to: next.to, preset: null }, interval)
  }

  const stats = loaded.data?.kind === 'stats' ? loaded.data.stats : undefined
  // the 24-hour preset: the 24 hourly buckets up to the current hour, out of the two days loaded
  const last24 = stats && stats.interval === 'hour' && range.preset === '24h' && range.until && stats.from === range.from && stats.to === range.to
  const points = useMemo(() => {
    if (!stats) return undefined
    if (!last24) return stats.series
    const end = stats.series.findIndex((p) => p.date === range.until)
    const stop = end === -1 ? stats.series.length : end + 1
    return stats.series.slice(Math.max(0, stop - 24), stop)
  }, [stats, last24, range.until])

  const chart = useMemo(() => {
    if (!stats || !points) return undefined
    const { labels, ticks } = timeAxis(points.map((p) => p.date), stats.interval)
    const series: Series[] = [
      { label: noun, values: points.map((p) => p.clicks), colorVar: '--accent', fill: true },
      { label: `Unique ${lower}`, values: points.map((p) => p.uniqueClicks), colorVar: '--good' },
      // the cards' words: "Bot clicks", not "Bots"
      { label: `Bot ${lower}`, values: points.map((p) => p.botClicks), colorVar: '--warn' },
    ]
    return { labels, ticks, series }
  }, [stats, points, noun, lower])

  // cards show the loaded range's figures; the link's all-time ones, labelled "All time", where the
  // server has no stats route and until the first answer; nothing after an error (an error is never
  // shown beside the totals of another range)
  const allTime = !!summary && (loaded.data?.kind === 'fallback' || (!loaded.data && !loaded.error))
  const totals: Totals | undefined = stats && points ? (last24 ? sum(points) : stats.totals) : allTime && summary ? { clicks: summary.clicks, uniqueClicks: summary.uniqueClicks } : undefined
  const tops = stats ?? (allTime ? summary : undefined)
  const windowFrom = last24 && points?.length ? parseApiDate(points[0].date) : null
  const windowTo = last24 && points?.length ? parseApiDate(points[points.length - 1].date) : null
  const described = last24 && windowFrom && windowTo ? `the last 24 hours, ${readHour(windowFrom)} to ${readHour(new Date(windowTo.getTime() + 3_600_000))}` : stats ? `${readDay(stats.from)} to ${readDay(stats.to)}` : ''
  // the span of the figures shown: while another range loads they are still the last range's
  const shownDays = stats ? daysOf(stats.from, stats.to) : 0
  const rangeCard = last24 ? '24 hours' : stats ? `${shownDays} ${shownDays === 1 ? 'day' : 'days'}` : allTime ? 'All time' : '—'
  const asked = range.preset === '24h' ? 'the last 24 hours' : `${readDay(range.from)} to ${readDay(range.to)}`
  // a range without a single click draws no flat line on a 0 to 1 axis: it says so instead
  const quiet = !!points && points.every((p) => !p.clicks && !p.uniqueClicks && !p.botClicks)
  const chartName =
    stats && quiet
      ? `${noun} over time, ${described}: no ${lower} in this range`
      : stats && totals
        ? `${noun} over time, ${described}: ${counted(totals.clicks)}, ${totals.uniqueClicks} unique, ${totals.botClicks} from bots`
        : summary
          ? `${noun} over time: ${counted(summary.clicks)} in total`
          : `${noun} over time`
  const show = (n: number | undefined) => (n === undefined ? '—' : formatNumber(n))
  /** a card's figure; eight digits and more are sized to the card, or they push past it at phone width */
  const figure = (n: number | undefined) => <dd className={show(n).length > 9 ? 'long' : undefined}>{show(n)}</dd>
  const apiTotals = stats?.totals
  // what the top lists add up to: the loaded range's clicks without bots' (the API's UTC days, the
  // 24-hour preset's two included); the all-time fallback's lists have no such total
  const listed = apiTotals?.clicks
  const differs = last24 && totals && apiTotals && (apiTotals.clicks !== totals.clicks || apiTotals.uniqueClicks !== totals.uniqueClicks || apiTotals.botClicks !== totals.botClicks)

  return (
    <>
      <dl className="grid four stats" aria-busy={loaded.loading}>
        <div className="stat">
          <dt>{noun === 'Clicks' ? 'Clicks' : 'Scans'}</dt>
          {figure(totals?.clicks)}
        </div>
        <div className="stat">
          <dt>{noun === 'Clicks' ? 'Unique clicks' : 'Unique scans'}</dt>
          {figure(totals?.uniqueClicks)}
        </div>
        <div className="stat">
          <dt>Bot {lower}</dt>
          {figure(totals?.botClicks)}
        </div>
        <div className="stat">
          <dt>Range</dt>
          <dd className="range-dd">{rangeCard}</dd>
        </div>
      </dl>

      <section className="card" aria-labelledby="over-time">
        <div className="page-head">
          <h2 id="over-time">{noun} over time</h2>
          {loaded.data?.kind !== 'fallback' && <div className="range">
            <div className="seg" role="group" aria-label="Range">
              {PRESETS.map((p) => (
                <button key={p.id} type="button" aria-pressed={range.preset === p.id} onClick={() => choose(p.id)}>
                  {p.label}
                </button>
              ))}
            </div>
            <Field label="From">
              {(id) => (
                <input
                  id={id}
                  type="date"
                  value={draft.from}
                  max={draft.to || undefined}
                  aria-invalid={problem ? true : undefined}
                  aria-describedby={problem ? problemId : undefined}
                  onChange={(e) => type({ ...draft, from: e.target.value })}
                />
              )}
            </Field>
            <Field label="To">
              {(id) => (
                <input
                  id={id}
                  type="date"
                  value={draft.to}
                  min={draft.from || undefined}
                  aria-invalid={problem ? true : undefined}
                  aria-describedby={problem ? problemId : undefined}
                  onChange={(e) => type({ ...draft, to: e.target.value })}
                />
              )}
            </Field>
            <Field label="Interval">
              {(id) => (
                <select
                  id={id}
                  value={hourly ? 'hour' : 'day'}
                  onChange={(e) => {
                    // daily figures of the 24-hour preset are its two UTC days: no longer that preset
                    showRange({ ...range, preset: range.preset === '24h' ? null : range.preset }, e.target.value === 'hour' ? 'hour' : 'day')
                  }}
                >
                  <option value="day">Daily</option>
                  <option value="hour" disabled={spanDays > MAX_HOUR_DAYS}>
                    Hourly (up to 7 days)
                  </option>
                </select>
              )}
            </Field>
          </div>}
        </div>
        {problem && loaded.data?.kind !== 'fallback' && (
          <div className="error-note" role="alert" id={problemId}>
            <p>
              {problem} Nothing was loaded for these dates{stats ? `; the figures are still those of ${described}` : ''}.
            </p>
          </div>
        )}
        {stats && loaded.loading ? (
          <Loading what={`Loading the figures for ${asked}`} className="sub" />
        ) : stats && (
          <p className="sub">
            {last24
              ? `Figures for ${described}. The totals add up these 24 hourly figures (unique ${lower} counted hour by hour)${
                  differs
                    ? `; all of ${readDay(stats.from)} and ${readDay(stats.to)} (UTC days) have ${formatNumber(stats.totals.clicks)} ${lower}, ${formatNumber(stats.totals.uniqueClicks)} unique and ${formatNumber(stats.totals.botClicks)} from bots`
                    : ''
                }. The top lists below cover both UTC days.`
              : `Figures for ${described} (UTC days).`}
          </p>
        )}
        <ErrorNote message={loaded.error} onRetry={loaded.reload} />
        {loaded.loading && !loaded.data && <Loading what="Loading statistics" />}
        {loaded.data?.kind === 'fallback' && (
          <p className="note">Daily figures are not available on this server yet; the totals are all-time.</p>
        )}
        {chart && quiet ? (
          <div className="chart-box quiet" role="img" aria-label={chartName}>
            <p>No {lower} in this range</p>
          </div>
        ) : chart ? (
          <LineChart labels={chart.labels} ticks={chart.ticks} series={chart.series} name={chartName} />
        ) : (
          loaded.data && <LineChart labels={[]} series={[]} name={chartName} small />
        )}
        {stats && points && (
          <details>
            <summary>Show the numbers as a table</summary>
            <div className="table-wrap">
              <table>
                <thead>
                  <tr>
                    {/* the chart's own names of the buckets: UTC days, hours in the viewer's time */}
                    <th scope="col">{stats.interval === 'hour' ? 'Hour' : 'Day (UTC)'}</th>
                    <th scope="col" className="num">
                      {noun}
                    </th>
                    <th scope="col" className="num">
                      Unique {lower}
                    </th>
                    <th scope="col" className="num">
                      Bot {lower}
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {points.map((p, i) => (
                    <tr key={p.date}>
                      <td>{chart?.labels[i] ?? p.date}</td>
                      <td className="num">{formatNumber(p.clicks)}</td>
                      <td className="num">{formatNumber(p.uniqueClicks)}</td>
                      <td className="num">{formatNumber(p.botClicks)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </details>
        )}
      </section>

      {stats && extra?.(stats)}

      {tops && (
        <div className="grid three">
          <TopTable title="Countries" map={tops.topCountries} label={countryName} total={listed} />
          <TopTable title="Referrers" map={tops.topReferrers} total={listed} />
          <TopTable title="Browsers" map={tops.topBrowsers} total={listed} />
          <TopTable title="Operating systems" map={tops.topOs} total={listed} />
          {stats && <TopTable title="Devices" map={stats.topDevices} label={deviceName} total={listed} />}
          {stats && <TopTable title="Languages" map={stats.topLanguages} label={languageName} total={listed} />}
        </div>
      )}
    </>
  )
}
