import { and, count, desc, eq, getTableColumns, sql } from 'drizzle-orm'
import { customAlphabet } from 'nanoid'
import type { Db, Tx } from '../../db/client.js'
import { channelItems, domains, links, qrCodes, type QrType } from '../../db/schema/index.js'
import { offsetOf, type PageQuery, withTotal } from '../../http/pagination.js'

export type QrRow = typeof qrCodes.$inferSelect
/** A QR code without its logo bytes (everything but the image renderer needs only this). */
export type QrMeta = Omit<QrRow, 'logo'>

const { logo: _logo, ...metaColumns } = getTableColumns(qrCodes)
void _logo

const ALPHANUMERIC = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const aliasOf = (length: number) => customAlphabet(ALPHANUMERIC, length)()

export async function listQrs(db: Db, userId: number, q: PageQuery) {
  const where = eq(qrCodes.userId, userId)
  return withTotal(
    q,
    db
      .select({ id: qrCodes.id, alias: qrCodes.alias, name: qrCodes.name, scans: qrCodes.scans, createdAt: qrCodes.createdAt })
      .from(qrCodes)
      .where(where)
      .orderBy(desc(qrCodes.createdAt), desc(qrCodes.id))
      .limit(q.limit)
      .offset(offsetOf(q)),
    db.select({ total: count() }).from(qrCodes).where(where),
  )
}

/** The caller's QR code (never another account's: ownership is in the WHERE clause). */
export async function findOwnedQr(db: Db | Tx, userId: number, id: number): Promise<QrMeta | undefined> {
  const [row] = await db.select(metaColumns).from(qrCodes).where(and(eq(qrCodes.id, id), eq(qrCodes.userId, userId)))
  return row
}

export interface NewQr {
  userId: number
  type: QrType
  data: unknown
  /** null: no scan target (text, wifi) */
  target: string | null
  name: string
  background: string
  foreground: string
  logo: string | null
  logoHash: string | null
  createdAt: Date
}

/**
 * Inserts with a fresh random alias (6 alphanumeric characters from a CSPRNG, one more after each
 * collision). `contentFor` builds what the image encodes, which for tracked types names the alias.
 */
export async function insertQr(db: Db | Tx, values: NewQr, contentFor: (alias: string) => string): Promise<{ id: number; alias: string }> {
  for (let attempt = 0; attempt < 8; attempt++) {
    const alias = aliasOf(6 + attempt)
    const [row] = await db
      .insert(qrCodes)
      .values({ ...values, target: values.target ?? '', alias, content: contentFor(alias) })
      .onConflictDoNothing({ target: qrCodes.alias })
      .returning({ id: qrCodes.id, alias: qrCodes.alias })
    if (row) return row
  }
  throw new Error('could not find a free QR alias')
}

export type QrChanges = Partial<Pick<QrRow, 'type' | 'data' | 'content' | 'name' | 'background' | 'foreground' | 'logo' | 'logoHash'>> & {
  target?: string | null
}

export async function updateQr(db: Db | Tx, userId: number, id: number, changes: QrChanges): Promise<boolean> {
  const { target, ...rest } = changes
  const [row] = await db
    .update(qrCodes)
    .set({ ...rest, ...(target !== undefined ? { target: target ?? '' } : {}) })
    .where(and(eq(qrCodes.id, id), eq(qrCodes.userId, userId)))
    .returning({ id: qrCodes.id })
  return row !== undefined
}

/** Deletes the QR code and its channel items together (items have no FK: they are polymorphic). */
export async function deleteQr(db: Db, userId: number, id: number): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .delete(qrCodes)
      .where(and(eq(qrCodes.id, id), eq(qrCodes.userId, userId)))
      .returning({ id: qrCodes.id })
    if (!row) return false
    await tx.delete(channelItems).where(and(eq(channelItems.itemType, 'qr'), eq(channelItems.itemId, id)))
    return true
  })
}

// ---------------------------------------------------------------------------------------------
// Public paths

export interface PublicQr {
  id: number
  userId: number
  alias: string
  type: QrType
  name: string
  /** '' when the type has no scan target */
  target: string
  content: string
  background: string
  foreground: string
  logoHash: string | null
}

export async function findQrByAlias(db: Db, alias: string): Promise<PublicQr | undefined> {
  const [row] = await db
    .select({
      id: qrCodes.id,
      userId: qrCodes.userId,
      alias: qrCodes.alias,
      type: qrCodes.type,
      name: qrCodes.name,
      target: qrCodes.target,
      content: qrCodes.content,
      background: qrCodes.background,
      foreground: qrCodes.foreground,
      logoHash: qrCodes.logoHash,
    })
    .from(qrCodes)
    .where(eq(qrCodes.alias, alias))
  return row
}

export async function qrLogo(db: Db, id: number): Promise<string | null> {
  const [row] = await db.select({ logo: qrCodes.logo }).from(qrCodes).where(eq(qrCodes.id, id))
  return row?.logo ?? null
}

/**
 * A link by alias on the request host, as the redirect resolves it: a branded domain from
 * `domains` when the host is one, else the default domain (domain_id null). Returns the origin to
 * build its short URL from (null: PUBLIC_URL).
 */
export async function findLinkOnHost(db: Db, host: string, defaultHost: string, alias: string) {
  const [domain] =
    host === defaultHost ? [] : await db.select({ id: domains.id, origin: domains.domain }).from(domains).where(eq(domains.host, host))
  const [row] = await db
    .select({ id: links.id, alias: links.alias, disabled: links.disabled })
    .from(links)
    .where(sql`coalesce(${links.domainId}, 0) = ${domain?.id ?? 0} and ${links.alias} = ${alias}`)
  return row ? { ...row, origin: domain?.origin ?? null } : undefined
}
