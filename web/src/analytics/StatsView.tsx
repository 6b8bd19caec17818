import { useMemo, useState } from 'react'
import { ApiError, api, qs } from '../api/client'
import type { LinkStatsSummary, Stats, TopMap } from '../api/types'
import { LineChart, type Series } from '../ui/Chart'
import { countryName, formatNumber, isoDay, parseApiDate } from '../ui/format'
import { useLoad } from '../ui/hooks'
import { ErrorNote, Field, Loading } from '../ui/parts'

const PRESETS = [
  { days: 1, label: '24 hours' },
  { days: 7, label: '7 days' },
  { days: 30, label: '30 days' },
  { days: 90, label: '90 days' },
  { days: 365, label: '1 year' },
]

const dayLabel = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' })
const hourLabel = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: 'numeric', timeZone: 'UTC' })

function rangeOf(days: number) {
  const to = new Date()
  const from = new Date(to.getTime() - (days - 1) * 86_400_000)
  return { from: isoDay(from), to: isoDay(to) }
}

type Loaded = { kind: 'stats'; stats: Stats } | { kind: 'fallback' }

/**
 * Analytics of a link or QR code: GET /api/{url,qr}/:id/stats (DECISIONS §10.2). Until that route
 * exists on a server (404 while the object itself exists), the all-time totals are shown instead.
 */
export function StatsView({ base, summary, noun }: { base: string; summary: LinkStatsSummary; noun: 'Clicks' | 'Scans' }) {
  const [range, setRange] = useState(() => ({ ...rangeOf(30), preset: 30 as number | null }))
  const [interval, setStep] = useState<'day' | 'hour'>('day')
  const spanDays = Math.round((Date.parse(range.to) - Date.parse(range.from)) / 86_400_000) + 1
  const hourly = interval === 'hour' && spanDays <= 7
  const loaded = useLoad<Loaded>(async () => {
    try {
      const r = await api.get<{ data: Stats }>(`${base}/stats${qs({ from: range.from, to: range.to, interval: hourly ? 'hour' : 'day' })}`)
      return { kind: 'stats', stats: r.data }
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return { kind: 'fallback' }
      throw err
    }
  }, [base, range.from, range.to, hourly])

  const stats = loaded.data?.kind === 'stats' ? loaded.data.stats : undefined
  const chart = useMemo(() => {
    if (!stats) return undefined
    const labels = stats.series.map((p) => {
      const d = parseApiDate(p.date)
      return d ? (stats.interval === 'hour' ? hourLabel : dayLabel).format(d) : p.date
    })
    const series: Series[] = [
      { label: noun, values: stats.series.map((p) => p.clicks), colorVar: '--accent', fill: true },
      { label: `Unique ${noun.toLowerCase()}`, values: stats.series.map((p) => p.uniqueClicks), colorVar: '--good' },
      { label: 'Bots', values: stats.series.map((p) => p.botClicks), colorVar: '--warn' },
    ]
    return { labels, series }
  }, [stats, noun])

  const totals = stats?.totals ?? { clicks: summary.clicks, uniqueClicks: summary.uniqueClicks, botClicks: undefined }
  const tops = stats ?? summary
  const chartName = stats
    ? `${noun} over time, ${stats.from} to ${stats.to}: ${stats.totals.clicks} ${noun.toLowerCase()}, ${stats.totals.uniqueClicks} unique, ${stats.totals.botClicks} from bots`
    : `${noun} over time: ${summary.clicks} ${noun.toLowerCase()} in total`

  return (
    <>
      <dl className="grid four stats">
        <div className="stat">
          <dt>{noun === 'Clicks' ? 'Clicks' : 'Scans'}</dt>
          <dd>{formatNumber(totals.clicks)}</dd>
        </div>
        <div className="stat">
          <dt>{noun === 'Clicks' ? 'Unique clicks' : 'Unique scans'}</dt>
          <dd>{formatNumber(totals.uniqueClicks)}</dd>
        </div>
        <div className="stat">
          <dt>Bot {noun.toLowerCase()}</dt>
          <dd>{totals.botClicks === undefined ? '—' : formatNumber(totals.botClicks)}</dd>
        </div>
        <div className="stat">
          <dt>Range</dt>
          <dd className="range-dd">{stats ? `${spanDays} ${spanDays === 1 ? 'day' : 'days'}` : 'All time'}</dd>
        </div>
      </dl>

      <section className="card" aria-labelledby="over-time">
        <div className="page-head">
          <h2 id="over-time">{noun} over time</h2>
          {loaded.data?.kind !== 'fallback' && <div className="range">
            <div className="seg" role="group" aria-label="Range">
              {PRESETS.map((p) => (
                <button
                  key={p.days}
                  type="button"
                  aria-pressed={range.preset === p.days}
                  onClick={() => {
                    setRange({ ...rangeOf(p.days), preset: p.days })
                    setStep(p.days <= 7 ? 'hour' : 'day')
                  }}
                >
                  {p.label}
                </button>
              ))}
            </div>
            <Field label="From">{(id) => <input id={id} type="date" value={range.from} max={range.to} onChange={(e) => e.target.value && setRange({ ...range, from: e.target.value, preset: null })} />}</Field>
            <Field label="To">{(id) => <input id={id} type="date" value={range.to} min={range.from} onChange={(e) => e.target.value && setRange({ ...range, to: e.target.value, preset: null })} />}</Field>
            <Field label="Interval">
              {(id) => (
                <select id={id} value={hourly ? 'hour' : 'day'} onChange={(e) => setStep(e.target.value as 'day' | 'hour')}>
                  <option value="day">Daily</option>
                  <option value="hour" disabled={spanDays > 7}>
                    Hourly (up to 7 days)
                  </option>
                </select>
              )}
            </Field>
          </div>}
        </div>
        <ErrorNote message={loaded.error} onRetry={loaded.reload} />
        {loaded.loading && !loaded.data && <Loading what="Loading statistics" />}
        {loaded.data?.kind === 'fallback' && (
          <p className="note">Daily figures are not available on this server yet; the totals are all-time.</p>
        )}
        {chart ? (
          <LineChart labels={chart.labels} series={chart.series} name={chartName} />
        ) : (
          loaded.data && <LineChart labels={[]} series={[]} name={chartName} small />
        )}
        {stats && (
          <details>
            <summary>Show the numbers as a table</summary>
            <div className="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">{stats.interval === 'hour' ? 'Hour (UTC)' : 'Day'}</th>
                    <th scope="col" className="num">
                      {noun}
                    </th>
                    <th scope="col" className="num">
                      Unique
                    </th>
                    <th scope="col" className="num">
                      Bots
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {stats.series.map((p) => (
                    <tr key={p.date}>
                      <td>{p.date}</td>
                      <td className="num">{p.clicks}</td>
                      <td className="num">{p.uniqueClicks}</td>
                      <td className="num">{p.botClicks}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </details>
        )}
      </section>

      <div className="grid three">
        <TopTable title="Countries" map={tops.topCountries} label={countryName} />
        <TopTable title="Referrers" map={tops.topReferrers} />
        <TopTable title="Browsers" map={tops.topBrowsers} />
        <TopTable title="Operating systems" map={tops.topOs} />
        {stats && <TopTable title="Devices" map={stats.topDevices} label={capitalise} />}
        {stats && <TopTable title="Languages" map={stats.topLanguages} label={languageName} />}
      </div>
    </>
  )
}

const languages = new Intl.DisplayNames(undefined, { type: 'language' })
function languageName(code: string): string {
  try {
    return /^[a-z]{2,3}(-[A-Za-z]{2})?$/.test(code) ? (languages.of(code) ?? code) : code
  } catch {
    return code
  }
}
const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1)

function TopTable({ title, map, label = (s: string) => s }: { title: string; map: TopMap | undefined; label?: (s: string) => string }) {
  const rows = map && typeof map === 'object' ? Object.entries(map).map(([k, v]) => [k, Number(v)] as const) : []
  rows.sort((a, b) => b[1] - a[1])
  const max = rows[0]?.[1] ?? 0
  return (
    <section className="card">
      <h2>{title}</h2>
      {rows.length === 0 ? (
        <p className="sub">No data for this range yet.</p>
      ) : (
        <table className="top-table">
          <thead className="offscreen">
            <tr>
              <th scope="col">{title}</th>
              <th scope="col">Count</th>
            </tr>
          </thead>
          <tbody>
            {rows.map(([k, v]) => (
              <tr key={k}>
                <td>
                  {label(k)}
                  <div className="bar" aria-hidden="true">
                    <span style={{ width: `${max ? Math.max(4, (v / max) * 100) : 0}%` }} />
                  </div>
                </td>
                <td>{formatNumber(v)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}
