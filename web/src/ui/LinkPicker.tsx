import { useState } from 'react'
import { api, qs } from '../api/client'
import type { V1List } from '../api/types'
import { useLoad } from './hooks'
import { ErrorNote, Field, Loading } from './parts'

/** Search your links and act on one (assign to a campaign or channel). */
export function LinkPicker({ action, done: doneLabel, onPick }: { action: string; done: string; onPick: (id: number, short: string) => Promise<boolean> }) {
  const [search, setSearch] = useState('')
  const [done, setDone] = useState<number[]>([])
  const list = useLoad(() => api.get<V1List>(`/api/v1/links${qs({ search: search.trim(), by: 'url', per_page: 10 })}`), [search])
  return (
    <div>
      <Field label="Find a link" hint="Part of its destination URL.">
        {(id, hint) => <input id={id} aria-describedby={hint} type="search" value={search} onChange={(e) => setSearch(e.target.value)} />}
      </Field>
      <ErrorNote message={list.error} />
      {list.loading && !list.data && <Loading />}
      {list.data?.data.length === 0 && <p className="sub">No link matches.</p>}
      <ul className="link-list">
        {list.data?.data.map((l) => (
          <li key={l.id} className="link-item">
            <div>
              <span className="short">{l.short_url}</span>
              <span className="truncate sub">{l.url}</span>
            </div>
            <button
              type="button"
              className="secondary small"
              disabled={done.includes(l.id)}
              aria-label={done.includes(l.id) ? `${doneLabel}: ${l.short_url}` : `${action} ${l.short_url}`}
              onClick={async () => {
                if (await onPick(l.id, l.short_url)) setDone([...done, l.id])
              }}
            >
              {done.includes(l.id) ? doneLabel : action}
            </button>
          </li>
        ))}
      </ul>
    </div>
  )
}
