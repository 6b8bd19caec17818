import { z } from 'zod'

const MAX_LIMIT = 1000

/** A blank query parameter (`?limit=`, sent by clients that fill every field) is an absent one. */
const blankAbsent = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), schema)

/** `limit` (default 15, larger than 1000 clamped) and `page` (default 1) of every list (DECISIONS §2). */
export const pageQuery = z.object({
  limit: blankAbsent(
    z.coerce
      .number({ message: 'limit must be a whole number.' })
      .int('limit must be a whole number.')
      .min(1, 'limit must be at least 1.')
      .max(Number.MAX_SAFE_INTEGER, 'limit is too large.')
      .default(15)
      .transform((n) => Math.min(n, MAX_LIMIT)),
  ),
  page: blankAbsent(
    z.coerce
      .number({ message: 'page must be a whole number.' })
      .int('page must be a whole number.')
      .min(1, 'page must be at least 1.')
      .max(1_000_000_000, 'page is too large.')
      .default(1),
  ),
})
export type PageQuery = z.output<typeof pageQuery>

export const offsetOf = (q: PageQuery) => (q.page - 1) * q.limit

/**
 * A page of a list, and the list's total. The total is counted only when the page cannot tell it:
 * a page neither full nor empty past the first is the list's last one, so the total is what comes
 * before it plus what it holds. Short lists and most searches then cost one query instead of two
 * (a search's count scans as many rows as its page, on PGlite in the one connection everything
 * waits for). Drizzle runs a query when it is awaited, so a count not needed never runs.
 */
export async function withTotal<T>(q: PageQuery, rows: PromiseLike<T[]>, count: PromiseLike<{ total: number }[]>): Promise<{ rows: T[]; total: number }> {
  const page = await rows
  const before = offsetOf(q)
  if (page.length > 0 ? page.length < q.limit : before === 0) return { rows: page, total: before + page.length }
  const [{ total }] = await count
  return { rows: page, total }
}

export function pageData(total: number, q: PageQuery) {
  const maxpage = Math.max(1, Math.ceil(total / q.limit))
  return {
    result: total,
    perpage: q.limit,
    currentpage: q.page,
    nextpage: q.page < maxpage ? q.page + 1 : maxpage,
    maxpage,
  }
}

/** The paginated envelope of every management list; lists carry the string "0" (SPEC.md). */
export function listResponse<K extends string, T>(key: K, items: T[], total: number, q: PageQuery) {
  return { error: '0' as const, data: { ...pageData(total, q), [key]: items } as ReturnType<typeof pageData> & Record<K, T[]> }
}
