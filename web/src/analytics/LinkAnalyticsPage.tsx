import { useState } from 'react'
import { Link, useNavigate, useParams } from 'react-router'
import { api } from '../api/client'
import type { LinkSingle } from '../api/types'
import { LinkQr } from '../links/LinkQr'
import { QuarantineNote } from '../links/quarantine'
import { announce } from '../ui/announce'
import { useConfirm } from '../ui/confirm'
import { formatDateTime } from '../ui/format'
import { useAction, useLoad } from '../ui/hooks'
import { CopyButton, ErrorNote, Loading, LongText, Modal, PageHead } from '../ui/parts'
import { StatsView } from './StatsView'

export function LinkAnalyticsPage() {
  const { id } = useParams()
  const navigate = useNavigate()
  const confirm = useConfirm()
  const link = useLoad(() => api.get<LinkSingle>(`/api/url/${id}?full=1`), [id])
  const [qr, setQr] = useState(false)
  const remove = useAction()
  const d = link.data?.details

  async function onDelete() {
    if (!d) return
    const yes = await confirm({ title: 'Delete this link?', message: <p><strong>{d.shorturl}</strong> will stop working and its statistics are deleted. This cannot be undone.</p>, confirm: 'Delete link' })
    if (yes && (await remove.run(() => api.del(`/api/url/${id}/delete`)))) {
      // the same word as a delete on the list: the page it was on is gone, so say what happened
      announce(`Link ${d.shorturl} deleted.`)
      navigate('/links')
    }
  }

  return (
    <>
      <p className="crumbs">
        <Link to="/links">Link list</Link> / Analytics
      </p>
      <PageHead title={d ? d.shorturl : 'Link analytics'}>
        {d && (
          <>
            <CopyButton value={d.shorturl} label="Copy short URL" what="Short URL copied" />
            <button type="button" className="secondary small" onClick={() => setQr(true)}>
              QR code
            </button>
            <Link className="button secondary small" to={`/links/${id}/edit`}>
              Edit
            </Link>
            <button type="button" className="secondary small" onClick={onDelete}>
              Delete
            </button>
          </>
        )}
      </PageHead>
      {/* a missing link (or another account's) stays missing: no "Try again" for a 404 */}
      <ErrorNote message={link.error ?? remove.error} onRetry={link.error && link.status !== 404 ? link.reload : undefined} />
      {link.loading && !link.data && <Loading what="Loading the link" />}
      {d && link.data && (
        <>
          {d.quarantined && <QuarantineNote />}
          {/* a title and a destination may be long words (255 and 2,000 characters): a few lines each, the rest on request */}
          <div className="link-facts">
            {d.title && (
              <LongText what="the title" className="facts-title">
                {d.title}
              </LongText>
            )}
            <LongText what="the destination" className="sub">
              <span aria-hidden="true">→ </span>
              <span className="offscreen">Destination: </span>
              <a href={d.longurl} rel="noreferrer noopener" target="_blank">
                {d.longurl}
              </a>
            </LongText>
            <p className="sub">
              Created {formatDateTime(d.date)}
              {d.expiry ? ` · expires ${formatDateTime(d.expiry)}` : ''}
              {d.password ? ' · password protected' : ''}
            </p>
          </div>
          <StatsView base={`/api/url/${id}`} summary={link.data.data} noun="Clicks" />
          <Modal title="QR code" open={qr} onClose={() => setQr(false)}>
            <LinkQr url={d.shorturl} name={d.alias ?? 'link'} />
          </Modal>
        </>
      )}
    </>
  )
}
