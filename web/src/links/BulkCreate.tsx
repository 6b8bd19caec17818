import { useState, type FormEvent } from 'react'
import { usePlan } from '../plan'
import { api } from '../api/client'
import { announce } from '../ui/announce'
import { withLabels } from '../ui/field-labels'
import { CopyButton, Field } from '../ui/parts'
import { LABELS } from './refusal'

interface Result {
  line: string
  short?: string
  error?: string
}

/** at most this many lines a run; the rest stay in the box for the next one */
const MAX_LINES = 100

const lines = (n: number) => `${n} ${n === 1 ? 'line' : 'lines'}`

/** What a finished run did, and what it left in the box. */
function summary(created: number, failed: number, waiting: number): string {
  const done = `${created} of ${created + failed} ${created + failed === 1 ? 'link' : 'links'} created.`
  if (failed === 0 && waiting === 0) return `${done} The box is empty, so nothing is sent twice.`
  const left = [failed > 0 && `the ${lines(failed)} that failed`, waiting > 0 && `${lines(waiting)} beyond the first ${MAX_LINES}, not sent yet`].filter(Boolean).join(' and ')
  return `${done} Only ${left} ${failed + waiting === 1 ? 'is' : 'are'} left in the box: press Create links to send ${failed + waiting === 1 ? 'it' : 'them'}.`
}

/**
 * One link per pasted line: `URL` or `URL alias`. Each line is its own /api/url/add call, so one
 * refused line (a taken alias, a bad URL) shows the API's message and the others still go through.
 * After a run the box keeps only the lines that were not created, so pressing Create links again
 * retries those and never makes a second copy of a link already made.
 */
export function BulkCreate({ onDone }: { onDone: () => void }) {
  const [text, setText] = useState('')
  const [busy, setBusy] = useState(false)
  const [results, setResults] = useState<Result[]>([])
  const [outcome, setOutcome] = useState<{ message: string; failed: boolean }>()
  // a plan without custom aliases makes every link with a random one: an alias on a line is refused
  const aliasLock = usePlan().locked('custom')
  const lines = aliasLock ? `One destination URL per line. ${aliasLock} Each link gets a random alias.` : 'One destination URL per line, optionally followed by a space and an alias.'

  async function submit(e: FormEvent) {
    e.preventDefault()
    const all = text
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
    const batch = all.slice(0, MAX_LINES)
    const waiting = all.slice(MAX_LINES)
    setBusy(true)
    setOutcome(undefined)
    const out: Result[] = []
    for (const line of batch) {
      const [url, custom] = line.split(/\s+/)
      try {
        const r = await api.post<{ shorturl: string }>('/api/url/add', custom ? { url, custom } : { url })
        out.push({ line, short: r.shorturl })
      } catch (err) {
        // "url: must be …" said as the New link form says it: "Destination URL: must be …"
        out.push({ line, error: withLabels((err as Error).message, LABELS) })
      }
      setResults([...out])
    }
    const failed = out.filter((r) => r.error).map((r) => r.line)
    setText([...failed, ...waiting].join('\n'))
    setBusy(false)
    const message = summary(out.length - failed.length, failed.length, waiting.length)
    setOutcome({ message, failed: failed.length > 0 })
    // the short form for the status message; the box above the button says the rest
    announce(`${out.length - failed.length} of ${out.length} links created.`)
    onDone()
  }

  return (
    <form onSubmit={submit}>
      <Field label="Links to create" hint={`${lines} At most ${MAX_LINES} lines a run; after it, only the lines that failed stay here.`}>
        {(id, hint) => (
          <textarea
            id={id}
            aria-describedby={hint}
            rows={8}
            value={text}
            readOnly={busy}
            onChange={(e) => setText(e.target.value)}
            placeholder={'https://example.com/one\nhttps://example.com/two spring-sale'}
          />
        )}
      </Field>
      {outcome && <p className={outcome.failed ? 'note' : 'success'}>{outcome.message}</p>}
      <div className="actions">
        <button type="submit" disabled={busy || !text.trim()}>
          {busy ? 'Creating…' : 'Create links'}
        </button>
      </div>
      {results.length > 0 && (
        <>
          {/* wide screens: one table, a row per line with its result beside it */}
          <div className="table-wrap hide-small">
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
                    {/* the cell stays a table cell; its text is what truncates (a block td breaks the columns) */}
                    <td>
                      <span className="truncate" title={r.line}>
                        {r.line}
                      </span>
                    </td>
                    <td>
                      <Outcome result={r} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {/* small screens: the same rows as cards, the line above its result */}
          <ul className="link-list show-small" aria-label="Results">
            {results.map((r, i) => (
              <li key={i} className="link-item">
                <div>
                  <span className="truncate sub" title={r.line}>
                    {r.line}
                  </span>
                  <Outcome result={r} />
                </div>
              </li>
            ))}
          </ul>
        </>
      )}
    </form>
  )
}

function Outcome({ result: r }: { result: Result }) {
  if (r.short) {
    return (
      <span className="keybox">
        <span className="offscreen">Created: </span>
        <strong className="short">{r.short}</strong> <CopyButton value={r.short} />
      </span>
    )
  }
  return (
    <div className="error-note">
      <p>Not created: {r.error}</p>
    </div>
  )
}
