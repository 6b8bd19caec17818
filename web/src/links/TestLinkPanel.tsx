import { useState, type FormEvent } from 'react'
import { api } from '../api/client'
import { useAction } from '../ui/hooks'
import { ErrorNote, Field } from '../ui/parts'

interface DryRun {
  status: number
  location: string | null
  page: string
  matched: { kind: string; key: string | null } | null
  steps: string[]
}

const AGENTS: Record<string, string> = {
  '': 'Any browser',
  iphone: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  android: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36',
  windows: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  mac: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
  facebook: 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
}
const AGENT_NAMES: Record<string, string> = { '': 'Any browser', iphone: 'iPhone', android: 'Android phone', windows: 'Windows PC', mac: 'Mac', facebook: 'Facebook link preview' }

/**
 * "Test this link": asks POST /api/url/:id/resolve what a visitor described here would get. The
 * server answers with the redirect's own rules and records no click, so testing is free.
 */
export function TestLinkPanel({ id }: { id: string | number }) {
  const [agent, setAgent] = useState('')
  const [country, setCountry] = useState('')
  const [language, setLanguage] = useState('')
  const [query, setQuery] = useState('')
  const [answer, setAnswer] = useState<DryRun>()
  const run = useAction()

  async function submit(e: FormEvent) {
    e.preventDefault()
    const body: Record<string, string> = {}
    if (agent) body.useragent = AGENTS[agent]
    if (country.trim()) body.country = country.trim()
    if (language.trim()) body.language = language.trim()
    if (query.trim()) body.query = query.trim().replace(/^\?/, '')
    await run.run(async () => setAnswer((await api.post<{ data: DryRun }>(`/api/url/${id}/resolve`, body)).data))
  }

  return (
    <section className="card" aria-labelledby="test-link-title">
      <h2 id="test-link-title">Test this link</h2>
      <p className="sub">Describe a visitor to see where they would go. Nothing is counted.</p>
      <form onSubmit={submit} noValidate>
        <div className="row">
          <Field label="Device">
            {(fid) => (
              <select id={fid} value={agent} onChange={(e) => setAgent(e.target.value)}>
                {Object.keys(AGENTS).map((k) => (
                  <option key={k} value={k}>
                    {AGENT_NAMES[k]}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Country" hint="A two-letter code such as FR.">
            {(fid, hint) => <input id={fid} aria-describedby={hint} value={country} onChange={(e) => setCountry(e.target.value)} maxLength={64} />}
          </Field>
          <Field label="Language" hint="Such as fr or de-AT.">
            {(fid, hint) => <input id={fid} aria-describedby={hint} value={language} onChange={(e) => setLanguage(e.target.value)} maxLength={64} />}
          </Field>
          <Field label="Query" hint="Such as utm_source=mail.">
            {(fid, hint) => <input id={fid} aria-describedby={hint} value={query} onChange={(e) => setQuery(e.target.value)} />}
          </Field>
        </div>
        <ErrorNote message={run.error} />
        <div className="actions">
          <button type="submit" disabled={run.busy}>
            Test
          </button>
        </div>
      </form>
      {answer && (
        <div role="status">
          <p>
            <strong>{answer.status}</strong> {answer.page === 'direct' ? 'redirect' : `${answer.page} page`}
            {answer.location && (
              <>
                {' to '}
                <span className="truncate">{answer.location}</span>
              </>
            )}
          </p>
          <ol>
            {answer.steps.map((s, i) => (
              <li key={i}>{s}</li>
            ))}
          </ol>
        </div>
      )}
    </section>
  )
}
