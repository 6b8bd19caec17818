import { Fragment, useState } from 'react'
import { Link, useParams } from 'react-router'
import { api } from '../api/client'
import type { LinkStatsSummary, Qr } from '../api/types'
import { StatsView } from '../analytics/StatsView'
import { formatDateTime } from '../ui/format'
import { useLoad } from '../ui/hooks'
import { CopyButton, ErrorNote, Loading, PageHead } from '../ui/parts'
import { QrDesignDialog } from './QrDesignDialog'
import { FIELDS, QR_TYPES, type QrDesign, type QrType } from './QrDesigner'
import { pngHref, previewSrc, svgHref } from './image'
import './qr.css'

export function QrDetailPage() {
  const { id } = useParams()
  const qr = useLoad(() => api.get<{ details: Qr; data: LinkStatsSummary }>(`/api/qr/${id}`), [id])
  const design = useLoad(() => api.get<{ data: QrDesign }>(`/api/qr/${id}/design`), [id])
  const [editing, setEditing] = useState(false)
  // bumped by each edit: the edited code's images are fetched again, not taken from the cache
  const [version, setVersion] = useState(0)
  const d = qr.data?.details
  const made = design.data?.data

  function onSaved() {
    setEditing(false)
    setVersion((n) => n + 1)
    qr.reload()
    design.reload()
  }

  return (
    <>
      <p className="crumbs">
        <Link to="/qr">QR code list</Link> / Scans
      </p>
      <PageHead title={d?.name ?? 'QR code'}>
        {d && (
          <>
            {made && (
              <button type="button" className="secondary small" onClick={() => setEditing(true)} aria-label={`Edit ${d.name}`}>
                Edit
              </button>
            )}
            <a className="button secondary small" href={pngHref(d.link, version)} download={`${d.name}.png`}>
              Download PNG
            </a>
            <a className="button secondary small" href={svgHref(d.link, version)} download={`${d.name}.svg`}>
              Download SVG
            </a>
          </>
        )}
      </PageHead>
      <ErrorNote message={qr.error ?? design.error} onRetry={qr.error ? qr.reload : design.error ? design.reload : undefined} />
      {qr.loading && !qr.data && <Loading />}
      {d && qr.data && (
        <>
          <section className="card qr-about" aria-labelledby="qr-content-head">
            <img className="qr-large" src={previewSrc(d.link, 320, version)} width={160} height={160} alt={`QR code ${d.name}`} />
            <div>
              <h2 id="qr-content-head">What it encodes</h2>
              {made && <Content link={d.link} design={made} />}
              <p className="sub">
                Created {formatDateTime(d.date)} · image at <code>{d.link}</code>
              </p>
            </div>
          </section>
          <StatsView base={`/api/qr/${id}`} summary={qr.data.data} noun="Scans" />
        </>
      )}
      {d && made && <QrDesignDialog open={editing} editing={{ qr: d, design: made }} onClose={() => setEditing(false)} onSaved={onSaved} />}
    </>
  )
}

/** Types whose image holds the tracked scan address (/q/<alias>); text and Wi-Fi codes hold their content. */
const SCANNED: readonly QrType[] = ['link', 'email', 'phone', 'sms', 'vcard']
const UNCOUNTED: Partial<Record<QrType, string>> = {
  text: 'None: the code holds its text itself, so its scans are not counted.',
  wifi: "None: the code holds the network's details itself, so its scans are not counted.",
}
const SECURITY: Record<string, string> = { WPA: 'WPA/WPA2', WEP: 'WEP', nopass: 'None' }

/** The tracked scan address beside a code's image address (…/qr/<alias> → …/q/<alias>, as the API builds both). */
const scanAddress = (link: string) => link.replace(/\/qr\/([^/?#]+)$/, '/q/$1')

/** A saved code's `data` as label and value pairs, labelled as the designer labels its fields. */
function contentRows(type: QrType, data: unknown): [string, string][] {
  const fields = FIELDS[type]
  // content sent as one finished string (a WIFI: or vCard text, a mailto: URL) is shown as it is
  if (typeof data === 'string') return [[fields.length === 1 ? fields[0][1] : 'Content', data]]
  if (!data || typeof data !== 'object') return []
  const labels: Record<string, string> = { ...Object.fromEntries(fields.map(([key, label]) => [key, label])), encryption: 'Security', hidden: 'Hidden network' }
  return Object.entries(data)
    .filter(([, v]) => v !== '' && v !== null && v !== undefined && v !== false)
    .map(([k, v]) => [labels[k] ?? k, k === 'encryption' ? (SECURITY[String(v)] ?? String(v)) : v === true ? 'Yes' : String(v)])
}

/** What the code holds: its scan address (copyable) and where a scan leads, or the content itself. */
function Content({ link, design }: { link: string; design: QrDesign }) {
  const scanned = SCANNED.includes(design.type)
  const scan = scanAddress(link)
  return (
    <>
      <dl className="kv qr-content">
        <dt>Type</dt>
        <dd>{QR_TYPES.find(([t]) => t === design.type)?.[1] ?? design.type}</dd>
        <dt>Scan address</dt>
        {scanned ? (
          <dd className="keybox">
            <code>{scan}</code> <CopyButton value={scan} what="Scan address copied" />
          </dd>
        ) : (
          <dd>{UNCOUNTED[design.type]}</dd>
        )}
        {contentRows(design.type, design.data).map(([label, value]) => (
          <Fragment key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </Fragment>
        ))}
      </dl>
      {scanned && <p className="sub">The image holds the scan address, which counts each scan and then opens the content above: Edit changes what it opens, and printed copies follow.</p>}
    </>
  )
}
