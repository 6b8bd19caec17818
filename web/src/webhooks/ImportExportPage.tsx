import { useEffect, useRef, useState, type FormEvent } from 'react'
import { cancelled, fetchRaw, readBody } from '../api/client'
import { PlanNote, usePlan } from '../plan'
import { download } from '../qr/download'
import { LABELS } from '../links/refusal'
import { announce } from '../ui/announce'
import { withLabels } from '../ui/field-labels'
import { formatNumber } from '../ui/format'
import { ErrorNote, Field, Loading, PageHead } from '../ui/parts'
import { LinkSearch } from '../ui/LinkPicker'
import { useApiPaths } from '../ui/routes-available'
import { CancelNotice, Running, useCancellable } from './cancellable'
import { NotYet } from './NotYet'
import './webhooks.css'

const FORMATS = [
  ['csv', 'Kurz CSV'],
  ['bitly', 'Bitly'],
  ['yourls', 'YOURLS'],
  ['shlink', 'Shlink'],
  ['kutt', 'Kutt'],
] as const

// export and import go through fetch (the session's CSRF header), not plain links
const send = fetchRaw

/*
 * What a Cancel leaves, said truly: an import is written a chunk of rows per transaction
 * (src/resources/transfer/import.ts) and nothing is undone; the server stops after the chunk it is
 * writing when the page goes away. An export cancelled saves no file.
 */
const IMPORT_CANCELLED = 'Import cancelled: rows Kurz had already imported stay, and it imports no more. Check your links before you import the file again.'
const EXPORT_CANCELLED = 'Export cancelled: no file was saved.'

export function ImportExportPage() {
  const paths = useApiPaths()
  const { locked } = usePlan()
  const offered = paths.data?.has('/api/urls/export')
  // both exports need the plan's `export`; the import does not (src/resources/transfer/index.ts)
  const canExport = offered && !locked('export')
  const canImport = paths.data?.has('/api/urls/import')
  const exporting = useCancellable(EXPORT_CANCELLED)
  const importing = useCancellable(IMPORT_CANCELLED)
  const [format, setFormat] = useState('csv')
  const [file, setFile] = useState<File>()
  const [result, setResult] = useState<ImportResult>()

  async function onImport(e: FormEvent) {
    e.preventDefault()
    if (!file || importing.busy) return
    setResult(undefined)
    await importing.run(async (signal) => {
      const res = await send('POST', `/api/urls/import?format=${format}`, file, file.name.endsWith('.json') ? 'application/json' : 'text/csv', signal)
      setResult(labelled(await readBody(res, (r) => r.json() as Promise<ImportResult>, signal)))
    })
  }

  return (
    <>
      <PageHead title="Import/export" />
      {paths.loading && <Loading />}
      <section className="card">
        <h2>Export your links</h2>
        {paths.data && !offered && <NotYet what="Exports" />}
        {offered && <PlanNote feature="export" />}
        {canExport && (
          <>
            <p className="sub">A CSV of every link with its clicks, campaign and channels.</p>
            <ErrorNote message={exporting.error} />
            <CancelNotice t={exporting} />
            <div className="row transfer">
              <button
                type="button"
                ref={exporting.start}
                aria-disabled={exporting.busy || undefined}
                onClick={() =>
                  exporting.run(async (signal) => {
                    const blob = await readBody(await send('GET', '/api/urls/export', undefined, undefined, signal), (r) => r.blob(), signal)
                    download(URL.createObjectURL(blob), 'kurz-links.csv')
                  })
                }
              >
                Download CSV
              </button>
              <Running what="Exporting" cancelLabel="Cancel export" t={exporting} />
            </div>
          </>
        )}
      </section>
      {canExport && (
        <section className="card">
          <h2>Export a link's clicks</h2>
          <p className="sub">A CSV of every recorded click of one link: date, country, referrer, browser, OS, device, language, bot.</p>
          <ClickExport />
        </section>
      )}
      <section className="card">
        <h2>Import links</h2>
        {paths.data && !canImport && <NotYet what="Imports" />}
        {canImport && (
          <form onSubmit={onImport}>
            <div className="row">
              <Field label="Format">
                {(id) => (
                  <select id={id} value={format} onChange={(e) => setFormat(e.target.value)}>
                    {FORMATS.map(([v, l]) => (
                      <option key={v} value={v}>{l}</option>
                    ))}
                  </select>
                )}
              </Field>
              <Field label="File" className="file">{(id) => <input id={id} type="file" accept=".csv,.json,text/csv,application/json" onChange={(e) => setFile(e.target.files?.[0])} />}</Field>
            </div>
            <ErrorNote message={importing.error} />
            <CancelNotice t={importing} />
            <div className="row transfer">
              <button type="submit" ref={importing.start} disabled={!file} aria-disabled={importing.busy || undefined}>
                Import
              </button>
              <Running what="Importing" cancelLabel="Cancel import" t={importing} />
            </div>
            {result && <ImportOutcome result={result} />}
          </form>
        )}
      </section>
    </>
  )
}

type ImportResult = { imported: number; skipped: number; errors: { line: number; message: string }[] }

/**
 * Each line's message with the field it names said as the New link form says it ("custom: … is
 * already taken" becomes "Alias: … is already taken"): every format's rows become that form's
 * fields, whatever their columns are called in the file.
 */
const labelled = (r: ImportResult): ImportResult => ({ ...r, errors: r.errors.map((e) => ({ ...e, message: withLabels(e.message, LABELS) ?? e.message })) })

/** shown per list; the API lists up to 1,000 and says how many more */
const SHOWN = 50

/**
 * The import's answer: what was imported in a success box, then the lines that were not, apart
 * from it: taken aliases (the API's message ends in "Skipped.") as warnings, refused rows as errors.
 */
function ImportOutcome({ result }: { result: ImportResult }) {
  const listed = result.errors.filter((e) => e.line > 0)
  const more = result.errors.filter((e) => e.line <= 0)
  const skipped = listed.filter((e) => /Skipped\.$/.test(e.message))
  const refused = listed.filter((e) => !/Skipped\.$/.test(e.message))
  const notImported = result.errors.length > 0
  return (
    <>
      <p className={result.imported > 0 ? 'success' : 'note'} role="status">
        {formatNumber(result.imported)} {result.imported === 1 ? 'link' : 'links'} imported, {formatNumber(result.skipped)} skipped
        {refused.length > 0 || more.length > 0 ? ', some lines refused' : ''}.{notImported ? ' The lines not imported are listed below.' : ''}
      </p>
      {skipped.length > 0 && (
        <div className="note">
          <p>
            <strong>Skipped</strong> (alias already taken):
          </p>
          <LineList items={skipped} />
        </div>
      )}
      {(refused.length > 0 || more.length > 0) && (
        <div className="error-note">
          <div>
            <p>Not imported:</p>
            <LineList items={refused} />
            {more.map((e, i) => (
              <p key={i}>{e.message}</p>
            ))}
          </div>
        </div>
      )}
    </>
  )
}

function LineList({ items }: { items: { line: number; message: string }[] }) {
  if (items.length === 0) return null
  return (
    <ul>
      {items.slice(0, SHOWN).map((e) => (
        <li key={e.line}>
          Line {e.line}: {e.message}
        </li>
      ))}
      {items.length > SHOWN && <li>…and {formatNumber(items.length - SHOWN)} more.</li>}
    </ul>
  )
}

/**
 * One link's clicks as CSV: search, then a button per link whose visible label names the link. A
 * button stays usable after its download (the same file may be wanted again, later, with newer
 * clicks); a short "Downloaded" beside it confirms each one. A link with a million clicks takes a
 * while: a download running has its own Cancel, and leaving the page stops it.
 */
function ClickExport() {
  const [busy, setBusy] = useState<number[]>([])
  const [done, setDone] = useState<number[]>([])
  const [error, setError] = useState<string>()
  const timers = useRef(new Map<number, ReturnType<typeof setTimeout>>())
  const running = useRef(new Map<number, AbortController>())
  const starts = useRef(new Map<number, HTMLButtonElement>())
  useEffect(
    () => () => {
      timers.current.forEach(clearTimeout)
      running.current.forEach((c) => c.abort())
    },
    [],
  )

  async function downloadClicks(id: number, name: string, file: string) {
    // not disabled while it runs: a disabled button would drop the keyboard focus
    if (busy.includes(id)) return
    const control = new AbortController()
    running.current.set(id, control)
    setBusy((b) => [...b, id])
    setError(undefined)
    try {
      const blob = await readBody(await send('GET', `/api/url/${id}/clicks/export`, undefined, undefined, control.signal), (r) => r.blob(), control.signal)
      download(URL.createObjectURL(blob), `kurz-clicks-${file}.csv`)
      setDone((d) => (d.includes(id) ? d : [...d, id]))
      clearTimeout(timers.current.get(id))
      timers.current.set(
        id,
        setTimeout(() => setDone((d) => d.filter((x) => x !== id)), 4000),
      )
      announce(`Clicks of ${name} downloaded.`)
    } catch (err) {
      if (cancelled(err, control.signal)) announce(`Download of ${name}'s clicks cancelled: no file was saved.`)
      else setError((err as Error).message)
    } finally {
      running.current.delete(id)
      // this download's Cancel goes with it: focus on it returns to the link's download button
      if (document.activeElement?.getAttribute('data-cancel') === String(id) || document.activeElement === document.body) starts.current.get(id)?.focus()
      setBusy((b) => b.filter((x) => x !== id))
    }
  }

  return (
    <LinkSearch
      label="Links to export"
      error={error}
      row={(l) => {
        // the short URL without its scheme: the button's visible label, and so its accessible name
        const name = l.short_url.replace(/^https?:\/\//, '')
        return (
          <>
            <div>
              <span className="truncate">{l.title || l.url}</span>
              {l.title && <span className="truncate sub">{l.url}</span>}
              {/* beside the link, not the button: the button stays where it was for the next click */}
              {busy.includes(l.id) ? <span className="badge">Downloading…</span> : done.includes(l.id) && <span className="badge good">Downloaded</span>}
            </div>
            <span className="clicks">
              {formatNumber(l.clicks)}
              <small>{l.clicks === 1 ? 'click' : 'clicks'}</small>
            </span>
            <div className="cell-actions">
              <button
                type="button"
                className="secondary small"
                aria-busy={busy.includes(l.id)}
                ref={(b) => void (b ? starts.current.set(l.id, b) : starts.current.delete(l.id))}
                onClick={() => downloadClicks(l.id, name, l.alias ?? String(l.id))}
              >
                Download clicks of {name}
              </button>
              {busy.includes(l.id) && (
                <button type="button" className="ghost small" data-cancel={l.id} onClick={() => running.current.get(l.id)?.abort()}>
                  Cancel download of {name}
                </button>
              )}
            </div>
          </>
        )
      }}
    />
  )
}
