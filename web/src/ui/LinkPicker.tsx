import { useState, type ReactNode } from 'react'
import { api, qs } from '../api/client'
import type { V1Link, V1List } from '../api/types'
import { useLoad, useSettled } from './hooks'
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

const PER_PAGE = 10
const SETTLE_MS = 250

/**
 * Search your links, ten at a time, and show each as the page needs: `row` draws a found link's
 * contents (and its button), told whether it is a `member`. `error` is the page's own failure, shown where the search's would be.
 * `member`: the v1 filter that finds the links already in what they are picked for ({ campaign: 3 },
 * { space: 5 }); the same search with it, ten again, holds every shown link that is a member (the
 * filtered list is a part of the same list in the same order), so each row says whether it is one.
 */
export function LinkSearch({ label, error, row, member }: { label?: string; error?: string; row: (link: V1Link, member: boolean) => ReactNode; member?: Record<string, number> }) {
  const [search, setSearch] = useState('')
  const [by, setBy] = useState<SearchBy>(DEFAULT_SEARCH_BY)
  // each search counts its matches on the server: ask once the typing pauses, not per letter
  const words = useSettled(search.trim(), SETTLE_MS)
  const query = { search: words, by, per_page: PER_PAGE }
  const list = useLoad(
    async () => {
      const [all, members] = await Promise.all([
        api.get<V1List>(`/api/v1/links${qs(query)}`),
        member ? api.get<V1List>(`/api/v1/links${qs({ ...query, ...member })}`) : undefined,
      ])
      const ids = new Set(members?.data.map((l) => l.id))
      return { words, found: all.data.map((link) => ({ link, member: ids.has(link.id) })) }
    },
    [words, by, JSON.stringify(member)],
  )
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
      {/* nothing found for no words at all is an account without links, not a search that missed */}
      {list.data?.found.length === 0 && <p className="sub">{list.data.words ? 'No link matches.' : 'You have no links yet: create them on the Links page.'}</p>}
      <ul className="link-list" aria-label={label}>
        {list.data?.found.map((found) => (
          <li key={found.link.id} className="link-item">
            {row(found.link, found.member)}
          </li>
        ))}
      </ul>
    </div>
  )
}

/**
 * Search your links and act on one (assign to a campaign or channel). A link acted on, or already in
 * it (`member`, as LinkSearch), says so; its button stays focusable (aria-disabled), so focus stays
 * on it instead of dropping to <body>, and the page announces what it did.
 */
export function LinkPicker({ action, done: doneLabel, onPick, member }: { action: string; done: string; onPick: (id: number, short: string) => Promise<boolean>; member?: Record<string, number> }) {
  const [done, setDone] = useState<number[]>([])
  return (
    <LinkSearch
      member={member}
      row={(l, already) => {
        const isDone = already || done.includes(l.id)
        return (
          <>
            <div>
              <span className="short">{l.short_url}</span>
              <span className="truncate sub">{l.url}</span>
            </div>
            <button
              type="button"
              className="secondary small"
              aria-disabled={isDone || undefined}
              aria-label={isDone ? `${doneLabel}: ${l.short_url}` : `${action} ${l.short_url}`}
              onClick={async () => {
                if (!isDone && (await onPick(l.id, l.short_url))) setDone((d) => [...d, l.id])
              }}
            >
              {isDone ? doneLabel : action}
            </button>
          </>
        )
      }}
    />
  )
}
