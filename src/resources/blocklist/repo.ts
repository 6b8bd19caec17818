import { and, count, desc, eq, inArray, or, sql, type Placeholder } from 'drizzle-orm'
import type { Db, Tx } from '../../db/client.js'
import { blocklistEntries, type BlocklistType } from '../../db/schema/index.js'
import { offsetOf, type PageQuery, withTotal } from '../../http/pagination.js'
import { domainCandidates, keywordHaystacks, Matcher, type Entry } from './match.js'

export type BlocklistEntry = typeof blocklistEntries.$inferSelect

export async function listEntries(db: Db, q: PageQuery & { type?: BlocklistType }) {
  const where = q.type ? eq(blocklistEntries.type, q.type) : undefined
  return withTotal(
    q,
    db.select().from(blocklistEntries).where(where).orderBy(desc(blocklistEntries.createdAt), desc(blocklistEntries.id)).limit(q.limit).offset(offsetOf(q)),
    db.select({ total: count() }).from(blocklistEntries).where(where),
  )
}

/** Inserts entries, skipping those already listed; returns the new ones. */
export async function insertEntries(db: Db | Tx, entries: (Entry & { reason?: string | null; createdBy?: number | null })[]): Promise<BlocklistEntry[]> {
  if (!entries.length) return []
  return db
    .insert(blocklistEntries)
    .values(entries.map((e) => ({ type: e.type, value: e.value, reason: e.reason ?? null, createdBy: e.createdBy ?? null })))
    .onConflictDoNothing()
    .returning()
}

export async function deleteEntry(db: Db, id: number): Promise<boolean> {
  return (await db.delete(blocklistEntries).where(eq(blocklistEntries.id, id)).returning({ id: blocklistEntries.id })).length > 0
}

/** What an entry is matched on: the hosts' domain suffixes (exact) and the URLs' texts (keywords). */
export function blockInputs(urls: { url: string }[]): { suffixes: string[]; haystack: string } {
  return { suffixes: [...new Set(urls.flatMap((u) => domainCandidates(u.url)))], haystack: urls.flatMap((u) => keywordHaystacks(u.url)).join('\n') }
}

/**
 * SQL true when a listed entry matches: domain entries by the exact suffixes of the hosts (the
 * unique index), keywords by position in the URLs' texts (few of them, so a scan of that type is
 * cheap). The link create holds it inside its INSERT, so a plain create needs no query of its own;
 * placeholders of a prepared statement: `suffixes` a text array, `haystack` text.
 */
export const blockedSql = (suffixes: Placeholder, haystack: Placeholder) => sql`exists (select 1 from ${blocklistEntries} b
  where (b.type = 'domain' and b.value = any(${suffixes}::text[])) or (b.type = 'keyword' and strpos(${haystack}::text, b.value) > 0))`

/** The first of `urls` a listed entry matches, with that entry; null when none does. One query. */
export async function findBlocked<T extends { url: string }>(db: Db | Tx, urls: T[]): Promise<{ item: T; entry: Entry } | null> {
  if (!urls.length) return null
  const { suffixes, haystack } = blockInputs(urls)
  const rows = await db
    .select({ type: blocklistEntries.type, value: blocklistEntries.value })
    .from(blocklistEntries)
    .where(
      or(
        suffixes.length ? and(eq(blocklistEntries.type, 'domain'), inArray(blocklistEntries.value, suffixes)) : undefined,
        and(eq(blocklistEntries.type, 'keyword'), sql`strpos(${haystack}, ${blocklistEntries.value}) > 0`),
      ),
    )
    .limit(20)
  if (!rows.length) return null
  const matcher = new Matcher(rows)
  for (const item of urls) {
    const entry = matcher.match(item.url)
    if (entry) return { item, entry }
  }
  return null
}
