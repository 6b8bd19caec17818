import { and, asc, eq, ne, sql } from 'drizzle-orm'
import type { Db, Tx } from '../../db/client.js'
import { linkAliases } from '../../db/schema/index.js'

/*
 * Alias history (DECISIONS §10.5): when a link's alias or domain changes, the pair it had goes
 * here; it keeps serving the link (redirect/loader.ts) and stays reserved on its domain until
 * released. An alias is unique per domain across links.alias and this table: the links index
 * guards its side, and the checks here guard this one.
 */

const onDomain = (domainId: number | null, alias: string) =>
  sql`coalesce(${linkAliases.domainId}, 0) = ${domainId ?? 0} and ${linkAliases.alias} = ${alias}`

/** Whether an earlier alias of another link than `linkId` holds `alias` on the domain. */
export async function heldByHistory(db: Db | Tx, domainId: number | null, alias: string, linkId?: number): Promise<boolean> {
  const [row] = await db
    .select({ id: linkAliases.id })
    .from(linkAliases)
    .where(linkId === undefined ? onDomain(domainId, alias) : and(onDomain(domainId, alias), ne(linkAliases.linkId, linkId)))
    .limit(1)
  return Boolean(row)
}

/**
 * After a rename inside its transaction: the pair the link had is kept, and the pair it has now
 * leaves its history (a link taking back one of its own earlier aliases).
 */
export async function keepOldAlias(tx: Tx, linkId: number, before: { domainId: number | null; alias: string }, after: { domainId: number | null; alias: string }) {
  await tx.delete(linkAliases).where(and(eq(linkAliases.linkId, linkId), onDomain(after.domainId, after.alias)))
  await tx.insert(linkAliases).values({ linkId, domainId: before.domainId, alias: before.alias }).onConflictDoNothing()
}

/** `details.aliases`: the link's earlier aliases, oldest first. */
export async function aliasesOf(db: Db | Tx, linkId: number) {
  return db
    .select({ alias: linkAliases.alias, domainId: linkAliases.domainId, date: linkAliases.createdAt })
    .from(linkAliases)
    .where(eq(linkAliases.linkId, linkId))
    .orderBy(asc(linkAliases.createdAt), asc(linkAliases.id))
}

/** Releases an earlier alias of the link (on every domain it was kept on); false when it had none by that name. */
export async function releaseAlias(db: Db | Tx, linkId: number, alias: string): Promise<boolean> {
  const rows = await db
    .delete(linkAliases)
    .where(and(eq(linkAliases.linkId, linkId), eq(linkAliases.alias, alias)))
    .returning({ id: linkAliases.id })
  return rows.length > 0
}
