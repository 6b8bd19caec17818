import { useSearchParams } from 'react-router'

/*
 * A list's search, filters and page live in the address (?search=…&page=2), so a reload, Back and
 * a shared link show the same list. A value read from the address is cleaned to what the API
 * takes: a typed or stale one (?sort=zzz, ?page=abc) falls back to the default instead of becoming
 * a request the API refuses again at every "Try again".
 */

/** One of `values`, else `fallback`. */
export const oneOf = <T extends string>(value: string | null, values: readonly T[], fallback: T): T => values.find((v) => v === value) ?? fallback

/** The largest id and page the API takes (src/http/fields.ts MAX_ID, pagination's page). */
const MAX_ID = 2 ** 31 - 1
const MAX_PAGE = 1_000_000_000

/** A whole number from 1 to `max` as written in the address, else null. */
function whole(value: string | null, max: number): number | null {
  if (!value || !/^\d{1,10}$/.test(value)) return null
  const n = Number(value)
  return n >= 1 && n <= max ? n : null
}

/** A page number: 1 unless the address holds a usable one. */
export const pageParam = (value: string | null): number => whole(value, MAX_PAGE) ?? 1

/** An object's id (a filter's choice), as the string the select holds: '' (none) unless usable. */
export const idParam = (value: string | null): string => (whole(value, MAX_ID) === null ? '' : String(Number(value)))

/** Free text (a search) up to the API's limit. */
export const textParam = (value: string | null, max: number): string => (value ?? '').slice(0, max)

/**
 * The address's query and a setter of some of its values: an empty value is removed, and any change
 * but the page itself goes back to page 1 (`page`: the page the change resets, for a page with two
 * lists). Each change is a history entry, so Back returns to the list before it; a correction the
 * page makes itself (the pager's page past the end) replaces the entry instead, or Back would
 * return to the page it corrects.
 */
export function useQueryState() {
  const [params, setParams] = useSearchParams()
  const set = (patch: Record<string, string | number>, opts: { page?: string; replace?: boolean } = {}) => {
    const pageKey = opts.page ?? 'page'
    const next = new URLSearchParams(params)
    for (const [k, v] of Object.entries(patch)) (v === '' ? next.delete(k) : next.set(k, String(v)))
    if (!(pageKey in patch)) next.delete(pageKey)
    setParams(next, { replace: opts.replace })
  }
  return { params, set, clear: () => setParams(new URLSearchParams()) }
}
