import { Link, useSearchParams } from 'react-router'
import type { AccountStats } from '../../../src/clicks/account-series.js'
import { formatNumber } from '../ui/format'
import { PageHead } from '../ui/parts'
import { StatsView } from './StatsView'

/**
 * The account overview: every link's clicks together (GET /api/account/stats), with the link page's
 * cards, chart, range picker and top lists, and the links with the most clicks in the range.
 */
export function OverviewPage() {
  return (
    <>
      <PageHead title="Overview" />
      <p className="sub">All your links together. Unique clicks add up each link&apos;s unique visitors, so a visitor of two links counts twice; QR code scans are counted on their own pages.</p>
      <StatsView<AccountStats> base="/api/account" noun="Clicks" extra={(stats) => <TopLinks links={stats.topLinks} />} />
    </>
  )
}

function TopLinks({ links }: { links: AccountStats['topLinks'] }) {
  const max = links[0]?.clicks ?? 0
  // a link opens on the range its count here is of, so the two figures agree
  const [params] = useSearchParams()
  const range = new URLSearchParams([...params].filter(([k]) => ['from', 'to', 'interval', 'range'].includes(k))).toString()
  return (
    <section className="card" aria-labelledby="top-links">
      <h2 id="top-links">Top links</h2>
      {links.length === 0 ? (
        <p className="sub">No clicks in this range</p>
      ) : (
        <table className="top-table">
          <thead className="offscreen">
            <tr>
              <th scope="col">Link</th>
              <th scope="col">Clicks</th>
            </tr>
          </thead>
          <tbody>
            {links.map((l) => (
              <tr key={l.id}>
                <td>
                  <Link className="short" to={{ pathname: `/links/${l.id}`, search: range }}>
                    {l.shorturl}
                  </Link>
                  {l.title && <span className="sub"> {l.title}</span>}
                  <div className="bar" aria-hidden="true">
                    <span style={{ width: `${max ? Math.max(4, (l.clicks / max) * 100) : 0}%` }} />
                  </div>
                </td>
                <td>{formatNumber(l.clicks)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}
