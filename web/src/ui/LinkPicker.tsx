import { useState, type ReactNode } from 'react'
import { api, qs } from '../api/client'
import type { V1Link, V1List } from '../api/types'
import { useLoad } from './hooks'
import { ErrorNote, Field, Loading } from './parts'

/**
 * Where a link search looks (v1's `by`): everywhere by default (alias, destination and title at
 * once, as the search box's placeholder promises), or one of them to narrow it. The links page and
 * every link search offer the same four.
 */
const SEARCH_BY = ['any', 'url', 'alias', 'title'] as const
export type SearchBy = (typeof SEARCH_BY)[number]
export const DEFAULT_SEARCH_BY: SearchBy = 'any'

/** A `by` read from an address: an unknown one is the default, not a request the API refuses. */
export const searchBy = (value: string | null): SearchBy => SEARCH_BY.find((b) => b === value) ?? DEFAULT_SEARCH_BY

export function SearchInSelect({ value, onChange }: { value: SearchBy; onChange: (by: SearchBy) => void }) {
  return (
    <Field label="Search in">
      {(id) => (
        <select id={id} value={value} onChange={(e) => onChange(searchBy(e.target.value))}>
          <option value="any">Everywhere</option>
          <option value="url">Destinations</option>
          <option value="alias">Aliases</option>
          <option value="title">Titles</option>
        </select>
      )}
    </Field>
  )
}

/**
 * Search your links, ten at a time, and show each as the page needs: `row` draws a found link's
 * contents (and its button). `error` is the page's own failure, shown where the search's would be.
 */
export function LinkSearch({ label, error, row }: { label?: string; error?: string; row: (link: V1Link) => ReactNode }) {
  const [search, setSearch] = useState('')
  const [by, setBy] = useState<SearchBy>(DEFAULT_SEARCH_BY)
  const list = useLoad(() => api.get<V1List>(`/api/v1/links${qs({ search: search.trim(), by, per_page: 10 })}`), [search, by])
  return (
    <div>
      <div className="row">
        <Field label="Find a link" className="search">
          {(id) => <input id={id} type="search" value={search} onChange={(e) => setSearch(e.target.value)} />}
        </Field>
        <SearchInSelect value={by} onChange={setBy} />
      </div>
      <ErrorNote message={error ?? list.error} onRetry={list.error && !error ? list.reload : undefined} />
      {list.loading && !list.data && <Loading />}
      {list.data?.data.length === 0 && <p className="sub">No link matches.</p>}
      <ul className="link-list" aria-label={label}>
        {list.data?.data.map((l) => (
          <li key={l.id} className="link-item">
            {row(l)}
          </li>
        ))}
      </ul>
    </div>
  )
}

/** Search your links and act on one (assign to a campaign or channel); a link acted on says so. */
export function LinkPicker({ action, done: doneLabel, onPick }: { action: string; done: string; onPick: (id: number, short: string) => Promise<boolean> }) {
  const [done, setDone] = useState<number[]>([])
  return (
    <LinkSearch
      row={(l) => (
        <>
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
              if (await onPick(l.id, l.short_url)) setDone((d) => [...d, l.id])
            }}
          >
            {done.includes(l.id) ? doneLabel : action}
          </button>
        </>
      )}
    />
  )
}
