import { useState, type FormEvent } from 'react'
import { fetchRaw } from '../api/client'
import { download } from '../qr/download'
import { useAction } from '../ui/hooks'
import { LinkPicker } from '../ui/LinkPicker'
import { ErrorNote, Field, Loading, PageHead } from '../ui/parts'
import { useApiPaths } from '../ui/routes-available'
import { NotYet } from './NotYet'

const FORMATS = [
  ['csv', 'Kurz CSV'],
  ['bitly', 'Bitly'],
  ['yourls', 'YOURLS'],
  ['shlink', 'Shlink'],
  ['kutt', 'Kutt'],
] as const

// export and import go through fetch (the session's CSRF header), not plain links
const send = fetchRaw

export function ImportExportPage() {
  const paths = useApiPaths()
  const canExport = paths.data?.has('/api/urls/export')
  const canImport = paths.data?.has('/api/urls/import')
  const exporting = useAction()
  const importing = useAction()
  const [format, setFormat] = useState('csv')
  const [file, setFile] = useState<File>()
  const [result, setResult] = useState<{ imported: number; skipped: number; errors: { line: number; message: string }[] }>()

  async function onImport(e: FormEvent) {
    e.preventDefault()
    if (!file) return
    await importing.run(async () => {
      const res = await send('POST', `/api/urls/import?format=${format}`, file, file.name.endsWith('.json') ? 'application/json' : 'text/csv')
      setResult(await res.json())
    })
  }

  return (
    <>
      <PageHead title="Import/export" />
      {paths.loading && <Loading />}
      <section className="card">
        <h2>Export your links</h2>
        {paths.data && !canExport && <NotYet what="Exports" />}
        {canExport && (
          <>
            <p className="sub">A CSV of every link with its clicks, campaign and channels.</p>
            <ErrorNote message={exporting.error} />
            <button
              type="button"
              disabled={exporting.busy}
              onClick={() =>
                exporting.run(async () => {
                  const blob = await (await send('GET', '/api/urls/export')).blob()
                  download(URL.createObjectURL(blob), 'kurz-links.csv')
                })
              }
            >
              Download CSV
            </button>
          </>
        )}
      </section>
      {canExport && (
        <section className="card">
          <h2>Export a link's clicks</h2>
          <p className="sub">A CSV of every recorded click of one link: date, country, referrer, browser, OS, device, language, bot.</p>
          <LinkPicker
            action="Download clicks of"
            done="Clicks downloaded"
            onPick={(id) =>
              exporting.run(async () => {
                const blob = await (await send('GET', `/api/url/${id}/clicks/export`)).blob()
                download(URL.createObjectURL(blob), `kurz-clicks-${id}.csv`)
              })
            }
          />
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
              <Field label="File">{(id) => <input id={id} type="file" accept=".csv,.json,text/csv,application/json" onChange={(e) => setFile(e.target.files?.[0])} />}</Field>
            </div>
            <ErrorNote message={importing.error} />
            <button type="submit" disabled={!file || importing.busy}>Import</button>
            {result && (
              <div className="success" role="status">
                {result.imported} imported, {result.skipped} skipped.
                {result.errors.length > 0 && (
                  <ul>
                    {result.errors.slice(0, 50).map((er) => (
                      <li key={er.line}>Line {er.line}: {er.message}</li>
                    ))}
                  </ul>
                )}
              </div>
            )}
          </form>
        )}
      </section>
    </>
  )
}
