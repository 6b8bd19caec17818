import { useState } from 'react'
import { Link, useNavigate, useParams } from 'react-router'
import { api } from '../api/client'
import type { LinkSingle } from '../api/types'
import { LinkQr } from '../links/LinkQr'
import { useConfirm } from '../ui/confirm'
import { formatDateTime } from '../ui/format'
import { useAction, useLoad } from '../ui/hooks'
import { CopyButton, ErrorNote, Loading, Modal, PageHead } from '../ui/parts'
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
    if (yes && (await remove.run(() => api.del(`/api/url/${id}/delete`)))) navigate('/links')
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
      <ErrorNote message={link.error ?? remove.error} onRetry={link.error ? link.reload : undefined} />
      {link.loading && !link.data && <Loading what="Loading the link" />}
      {d && link.data && (
        <>
          <p className="sub">
            → <a href={d.longurl} rel="noreferrer noopener" target="_blank">{d.longurl}</a>
            {d.title ? ` · ${d.title}` : ''} · created {formatDateTime(d.date)}
            {d.expiry ? ` · expires ${formatDateTime(d.expiry)}` : ''}
            {d.password ? ' · password protected' : ''}
          </p>
          <StatsView base={`/api/url/${id}`} summary={link.data.data} noun="Clicks" />
          <Modal title="QR code" open={qr} onClose={() => setQr(false)}>
            <LinkQr url={d.shorturl} name={d.alias ?? 'link'} />
          </Modal>
        </>
      )}
    </>
  )
}
