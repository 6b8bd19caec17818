import type { TopMap } from '../api/types'
import { formatNumber } from '../ui/format'

const languages = new Intl.DisplayNames(undefined, { type: 'language' })
export function languageName(code: string): string {
  try {
    return /^[a-z]{2,3}(-[A-Za-z]{2})?$/.test(code) ? (languages.of(code) ?? code) : code
  } catch {
    return code
  }
}
export const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1)

/**
 * A top list of the statistics (countries, referrers…): label, count and a bar, most first. The API
 * sends the ten largest; with `total` (the range's human clicks, which every list's labels add up
 * to) the clicks past them are one last row, "All others", so the list accounts for every click.
 */
export function TopTable({ title, map, label = (s: string) => s, total }: { title: string; map: TopMap | undefined; label?: (s: string) => string; total?: number }) {
  const rows = map && typeof map === 'object' ? Object.entries(map).map(([k, v]) => [k, Number(v)] as const) : []
  rows.sort((a, b) => b[1] - a[1])
  const max = rows[0]?.[1] ?? 0
  const others = total === undefined ? 0 : total - rows.reduce((n, [, v]) => n + v, 0)
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
              <TopRow key={k} name={label(k)} count={v} max={max} />
            ))}
            {others > 0 && <TopRow name="All others" count={others} max={max} others />}
          </tbody>
        </table>
      )}
    </section>
  )
}

/**
 * A device type as the API counts it. The user-agent parser names mobiles, tablets, TVs and the
 * like, and gives a desktop browser no type: the API's "Unknown" is mostly desktops, and said so.
 */
export const deviceName = (type: string) => (type === 'Unknown' ? 'Desktop or unknown' : capitalise(type))

/** One row of a top list: its name over a bar as long as its share of the largest count. */
function TopRow({ name, count, max, others }: { name: string; count: number; max: number; others?: boolean }) {
  return (
    <tr className={others ? 'others' : undefined}>
      <td>
        {name}
        <div className="bar" aria-hidden="true">
          <span style={{ width: `${max ? Math.min(100, Math.max(4, (count / max) * 100)) : 0}%` }} />
        </div>
      </td>
      <td>{formatNumber(count)}</td>
    </tr>
  )
}
