import { and, count, desc, eq, isNull, or, sql } from 'drizzle-orm'
import type { Db, Tx } from '../../db/client.js'
import { domains, links } from '../../db/schema/index.js'
import { conflict, isUniqueViolation } from '../../http/errors.js'
import { offsetOf, type PageQuery, withTotal } from '../../http/pagination.js'

export type Domain = typeof domains.$inferSelect

export async function listDomains(db: Db, ownerId: number, q: PageQuery) {
  const where = eq(domains.userId, ownerId)
  return withTotal(
    q,
    db.select().from(domains).where(where).orderBy(desc(domains.createdAt), desc(domains.id)).limit(q.limit).offset(offsetOf(q)),
    db.select({ total: count() }).from(domains).where(where),
  )
}

export async function countDomains(db: Db | Tx, ownerId: number): Promise<number> {
  const [{ n }] = await db.select({ n: count() }).from(domains).where(eq(domains.userId, ownerId))
  return n
}

export interface NewDomain {
  domain: string
  host: string
  redirectRoot: string | null
  redirect404: string | null
}

/** Inserts inside the caller's transaction; a host taken anywhere in the service is a 409. */
export async function insertDomain(tx: Tx, ownerId: number, input: NewDomain): Promise<Domain> {
  const [taken] = await tx.select({ id: domains.id }).from(domains).where(eq(domains.host, input.host))
  if (taken) throw conflict('That domain has already been added.', 'domain')
  try {
    const [row] = await tx.insert(domains).values({ userId: ownerId, ...input }).returning()
    return row
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict('That domain has already been added.', 'domain')
    throw err
  }
}

export async function findOwnedDomain(db: Db | Tx, ownerId: number, id: number): Promise<Domain | undefined> {
  const [row] = await db.select().from(domains).where(and(eq(domains.id, id), eq(domains.userId, ownerId)))
  return row
}

/** The caller's domain answering on `host` (host[:port] as stored: lower-case, no trailing dot). */
export async function findOwnedDomainByHost(db: Db | Tx, ownerId: number, host: string): Promise<Domain | undefined> {
  const [row] = await db.select().from(domains).where(and(eq(domains.host, host), eq(domains.userId, ownerId)))
  return row
}

export async function updateDomain(
  db: Db,
  ownerId: number,
  id: number,
  changes: { redirectRoot?: string | null; redirect404?: string | null },
): Promise<Domain | undefined> {
  if (Object.keys(changes).length === 0) return findOwnedDomain(db, ownerId, id)
  const [row] = await db
    .update(domains)
    .set(changes)
    .where(and(eq(domains.id, id), eq(domains.userId, ownerId)))
    .returning()
  return row
}

const MAX_ALIAS = 64

/**
 * First free `<alias>-<n>` that is taken neither on the default domain nor on the domain being
 * deleted (whose links are about to join the default domain too).
 */
async function freeAlias(tx: Tx, domainId: number, alias: string): Promise<string> {
  for (let n = 2; n < 10_000; n++) {
    const suffix = `-${n}`
    const candidate = alias.slice(0, MAX_ALIAS - suffix.length) + suffix
    const [used] = await tx
      .select({ id: links.id })
      .from(links)
      .where(and(eq(links.alias, candidate), or(isNull(links.domainId), eq(links.domainId, domainId))))
      .limit(1)
    if (!used) return candidate
  }
  throw new Error(`no free alias for ${alias}`)
}

export interface DeletedDomain {
  /** every link that moved to the default domain */
  movedLinkIds: number[]
  /** links whose alias was already taken on the default domain: [id, old alias, new alias] */
  renamed: { id: number; from: string; to: string }[]
}

/**
 * Deletes the domain and moves its links to the default domain (DECISIONS §7). Aliases are unique
 * per domain, so a moving link whose alias is already used on the default domain gets the first
 * free `<alias>-<n>`; its old short URL died with the domain anyway, and no link is lost.
 * Returns null when the domain is not the caller's.
 */
export async function deleteDomain(db: Db, ownerId: number, id: number): Promise<DeletedDomain | null> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(async (tx) => {
        const [domain] = await tx
          .select({ id: domains.id })
          .from(domains)
          .where(and(eq(domains.id, id), eq(domains.userId, ownerId)))
          .for('update')
        if (!domain) return null
        const clashing = await tx
          .select({ id: links.id, alias: links.alias })
          .from(links)
          .where(
            and(
              eq(links.domainId, id),
              sql`exists (select 1 from ${links} as d where d.domain_id is null and d.alias = ${links.alias})`,
            ),
          )
          .orderBy(links.id)
        const renamed: DeletedDomain['renamed'] = []
        for (const link of clashing) {
          const to = await freeAlias(tx, id, link.alias)
          await tx.update(links).set({ alias: to }).where(eq(links.id, link.id))
          renamed.push({ id: link.id, from: link.alias, to })
        }
        const moved = await tx.update(links).set({ domainId: null }).where(eq(links.domainId, id)).returning({ id: links.id })
        await tx.delete(domains).where(eq(domains.id, id))
        return { movedLinkIds: moved.map((l) => l.id), renamed }
      })
    } catch (err) {
      // someone took one of the chosen aliases on the default domain meanwhile: choose again
      if (isUniqueViolation(err) && attempt < 3) continue
      throw err
    }
  }
}
