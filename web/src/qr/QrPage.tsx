import { useState } from 'react'
import { Link, useSearchParams } from 'react-router'
import { api, qs } from '../api/client'
import type { ListOf, Qr } from '../api/types'
import { announce } from '../ui/announce'
import { useConfirm } from '../ui/confirm'
import { formatDate, formatNumber } from '../ui/format'
import { useAction, useLoad } from '../ui/hooks'
import { EmptyState, ErrorNote, Loading, PageHead, Pager } from '../ui/parts'
import { QrDesignDialog, type QrEditing } from './QrDesignDialog'
import type { QrDesign } from './QrDesigner'
import { pngHref, previewSrc, svgHref } from './image'

export function QrPage() {
  const [params, setParams] = useSearchParams()
  const page = Number(params.get('page') ?? '1') || 1
  const list = useLoad(() => api.get<ListOf<'qrs', Qr>>(`/api/qr${qs({ page, limit: 24 })}`), [page])
  const [designing, setDesigning] = useState<{ editing?: QrEditing } | null>(null)
  // bumped by each edit: an edited code's images are fetched again, not taken from the cache
  const [saved, setSaved] = useState(0)
  const open = useAction()
  const remove = useAction()
  const confirm = useConfirm()

  function onSaved() {
    if (designing?.editing) setSaved((n) => n + 1)
    setDesigning(null)
    list.reload()
  }

  /** Edits start from what the code was made from (GET /api/qr/:id/design). */
  async function onEdit(qr: Qr) {
    await open.run(async () => {
      const { data } = await api.get<{ data: QrDesign }>(`/api/qr/${qr.id}/design`)
      setDesigning({ editing: { qr, design: data } })
    })
  }

  async function onDelete(qr: Qr) {
    if (!(await confirm({ title: 'Delete this QR code?', message: <p>Printed copies of <strong>{qr.name}</strong> will stop working and its scans are deleted.</p>, confirm: 'Delete QR code' }))) return
    if (await remove.run(() => api.del(`/api/qr/${qr.id}/delete`))) {
      announce(`QR code ${qr.name} deleted.`)
      list.reload()
    }
  }

  const rows = list.data?.data.qrs
  return (
    <>
      <PageHead title="QR codes">
        <button type="button" onClick={() => setDesigning({})}>
          New QR code
        </button>
      </PageHead>
      <ErrorNote message={list.error ?? remove.error ?? open.error} onRetry={list.error ? list.reload : undefined} />
      {list.loading && !rows && <Loading what="Loading your QR codes" />}
      {rows && rows.length === 0 && (
        <EmptyState title="No QR codes yet" action={<button type="button" onClick={() => setDesigning({})}>Design a QR code</button>}>
          Design a code for a link, a Wi-Fi network or a contact card, download it as PNG or SVG and count its scans.
        </EmptyState>
      )}
      {rows && rows.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption className="offscreen">Your QR codes</caption>
            <thead>
              <tr>
                <th scope="col">Code</th>
                <th scope="col">Name</th>
                <th scope="col" className="num">
                  Scans
                </th>
                <th scope="col" className="hide-small">
                  Created
                </th>
                <th scope="col">
                  <span className="offscreen">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((qr) => (
                <tr key={qr.id}>
                  <td>
                    <img className="qr-thumb" src={previewSrc(qr.link, 112, saved)} width={56} height={56} alt="" />
                  </td>
                  <td>
                    <Link to={`/qr/${qr.id}`}>{qr.name}</Link>
                  </td>
                  <td className="num">{formatNumber(qr.scans)}</td>
                  <td className="hide-small">{formatDate(qr.date)}</td>
                  <td>
                    <div className="cell-actions">
                      <a className="button secondary small" href={pngHref(qr.link, saved)} download={`${qr.name}.png`} aria-label={`Download ${qr.name} as PNG`}>
                        PNG
                      </a>
                      <a className="button secondary small" href={svgHref(qr.link, saved)} download={`${qr.name}.svg`} aria-label={`Download ${qr.name} as SVG`}>
                        SVG
                      </a>
                      <button type="button" className="secondary small" onClick={() => onEdit(qr)} disabled={open.busy} aria-label={`Edit ${qr.name}`}>
                        Edit
                      </button>
                      <button type="button" className="secondary small" onClick={() => onDelete(qr)} aria-label={`Delete ${qr.name}`}>
                        Delete
                      </button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list.data && <Pager page={list.data.data.currentpage} maxPage={list.data.data.maxpage} total={list.data.data.result} noun="QR codes" onPage={(p) => setParams({ page: String(p) })} />}
      <QrDesignDialog open={!!designing} editing={designing?.editing} onClose={() => setDesigning(null)} onSaved={onSaved} />
    </>
  )
}
