import { Link, useParams } from 'react-router'
import { api } from '../api/client'
import type { LinkStatsSummary, Qr } from '../api/types'
import { StatsView } from '../analytics/StatsView'
import { formatDateTime, localPath } from '../ui/format'
import { useLoad } from '../ui/hooks'
import { ErrorNote, Loading, PageHead } from '../ui/parts'

export function QrDetailPage() {
  const { id } = useParams()
  const qr = useLoad(() => api.get<{ details: Qr; data: LinkStatsSummary }>(`/api/qr/${id}`), [id])
  const d = qr.data?.details
  const path = d ? localPath(d.link) : ''
  return (
    <>
      <p className="crumbs">
        <Link to="/qr">QR code list</Link> / Scans
      </p>
      <PageHead title={d?.name ?? 'QR code'}>
        {d && (
          <>
            <a className="button secondary small" href={`${path}?format=png&size=800`} download={`${d.name}.png`}>
              Download PNG
            </a>
            <a className="button secondary small" href={`${path}?format=svg`} download={`${d.name}.svg`}>
              Download SVG
            </a>
          </>
        )}
      </PageHead>
      <ErrorNote message={qr.error} onRetry={qr.reload} />
      {qr.loading && !qr.data && <Loading />}
      {d && qr.data && (
        <>
          <div className="card row">
            <img className="qr-large" src={`${path}?size=320`} width={160} height={160} alt={`QR code ${d.name}`} />
            <p className="sub">
              Created {formatDateTime(d.date)} · image at <code>{d.link}</code>
            </p>
          </div>
          <StatsView base={`/api/qr/${id}`} summary={qr.data.data} noun="Scans" />
        </>
      )}
    </>
  )
}
