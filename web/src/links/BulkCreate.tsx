import { useState, type FormEvent } from 'react'
import { api } from '../api/client'
import { announce } from '../ui/announce'
import { CopyButton, Field } from '../ui/parts'

interface Result {
  line: string
  short?: string
  error?: string
}

/**
 * One link per pasted line: `URL` or `URL alias`. Each line is its own /api/url/add call, so one
 * refused line (a taken alias, a bad URL) shows the API's message and the others still go through.
 */
export function BulkCreate({ onDone }: { onDone: () => void }) {
  const [text, setText] = useState('')
  const [busy, setBusy] = useState(false)
  const [results, setResults] = useState<Result[]>([])

  async function submit(e: FormEvent) {
    e.preventDefault()
    const lines = text
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .slice(0, 100)
    setBusy(true)
    const out: Result[] = []
    for (const line of lines) {
      const [url, custom] = line.split(/\s+/)
      try {
        const r = await api.post<{ shorturl: string }>('/api/url/add', custom ? { url, custom } : { url })
        out.push({ line, short: r.shorturl })
      } catch (err) {
        out.push({ line, error: (err as Error).message })
      }
      setResults([...out])
    }
    setBusy(false)
    const ok = out.filter((r) => r.short).length
    announce(`${ok} of ${out.length} links created.`)
    onDone()
  }

  return (
    <form onSubmit={submit}>
      <Field label="Links to create" hint="One destination URL per line, optionally followed by a space and an alias. At most 100 lines.">
        {(id, hint) => <textarea id={id} aria-describedby={hint} rows={8} value={text} onChange={(e) => setText(e.target.value)} placeholder={'https://example.com/one\nhttps://example.com/two spring-sale'} />}
      </Field>
      <div className="actions">
        <button type="submit" disabled={busy || !text.trim()}>
          {busy ? 'Creating…' : 'Create links'}
        </button>
      </div>
      {results.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption className="offscreen">Results</caption>
            <thead>
              <tr>
                <th scope="col">Line</th>
                <th scope="col">Result</th>
              </tr>
            </thead>
            <tbody>
              {results.map((r, i) => (
                <tr key={i}>
                  <td className="truncate">{r.line}</td>
                  <td>
                    {r.short ? (
                      <span className="keybox">
                        <strong>{r.short}</strong> <CopyButton value={r.short} />
                      </span>
                    ) : (
                      <span className="error-text">{r.error}</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </form>
  )
}
