import type { FastifyInstance } from 'fastify'
import { eq } from 'drizzle-orm'
import type { Db, Tx } from '../../db/client.js'
import { links, PRIVACY } from '../../db/schema/index.js'
import type { AuthUser } from '../../http/auth.js'
import { hashPassword } from '../../lib/passwords.js'
import { ATTEMPTS_PER_LENGTH, randomAlias, RESERVED_ALIASES } from './aliases.js'
import { checkFeatures, checkOwned, featuresUsed, refuseBlockedLink, requireLinkRoom, resolveDomain, resolveType, takenError } from './checks.js'
import { blankToNull, deepLinkOf, derivedTargetType, kindsSent } from './derived.js'
import { guardedInsert, type Guards, type LinkValues } from './insert.js'
import type { LinkInput } from './model.js'
import { writeRelations } from './relations.js'
import type { Link } from './repo.js'
import { destinations, refuseSelfLoops } from './self-loop.js'
import { requireCreateRoom } from './create-limit.js'
import { enqueueLinkEvent, wantsEvent } from '../webhooks/outbox.js'
import { heldByHistory } from './alias-history.js'
import { invalidateRotations } from '../redirect-cache.js'

export type { Link }

/*
 * The link write service: create here, update.ts and delete.ts beside it. Every door validates
 * its body once into a LinkInput and calls these functions, so every rule that needs the database
 * or spans resources lives here once. Field errors carry `field` (a LinkInput key and path); the
 * door names the field as its callers know it.
 */

/** A plain create found a `link.created` subscriber its instance did not know of: it runs again in a transaction. */
class NeedsTransaction extends Error {}

/** Creates a link for `user`; a 4xx leaves nothing behind. */
export async function createLink(app: FastifyInstance, user: AuthUser, input: LinkInput): Promise<Link> {
  const link = await insertNew(app, user, input)
  // a link in a campaign joins its rotator's list (an update or an assignment drops the link itself)
  if (link.campaignId !== null) await invalidateRotations(app)
  return link
}

async function insertNew(app: FastifyInstance, user: AuthUser, input: LinkInput): Promise<Link> {
  await requireCreateRoom(app, user)
  const [passwordHash, privacyPasswordHash] = await Promise.all([
    input.password ? hashPassword(input.password) : null,
    input.privacyPassword ? hashPassword(input.privacyPassword) : null,
  ])
  const hashes = { passwordHash, privacyPasswordHash }
  // A plain link (no targets, pixels or channel items, no link cap to hold) is one INSERT: it needs
  // no transaction and its BEGIN/COMMIT round trips. The checks before it only read.
  const single = (user.admin || !user.plan.maxLinks) && !kindsSent(input).size && !input.pixelIds?.length && !input.channelIds?.length
  // a link.created webhook needs the transaction: its outbox row commits with the link. The
  // instance's copy of the subscriptions decides; the INSERT itself refuses if the copy was behind.
  if (single && !app.webhookSubscriptions.wants(user.id, 'link.created')) {
    try {
      return await insertLink(app, app.db, null, user, input, hashes)
    } catch (err) {
      if (!(err instanceof NeedsTransaction)) throw err
      app.webhookSubscriptions.stale()
    }
  }
  return app.db.transaction((tx) => insertLink(app, tx, tx, user, input, hashes))
}

/**
 * Creates a link inside the caller's transaction: an import writes a chunk of links in one, each
 * in a savepoint of it. Same rules as createLink.
 */
export async function createLinkIn(app: FastifyInstance, tx: Tx, user: AuthUser, input: LinkInput): Promise<Link> {
  const [passwordHash, privacyPasswordHash] = await Promise.all([
    input.password ? hashPassword(input.password) : null,
    input.privacyPassword ? hashPassword(input.privacyPassword) : null,
  ])
  return insertLink(app, tx, tx, user, input, { passwordHash, privacyPasswordHash })
}

/** `tx` is `db` when the create runs in a transaction, null when it is a single INSERT. */
async function insertLink(
  app: FastifyInstance,
  db: Db | Tx,
  tx: Tx | null,
  user: AuthUser,
  input: LinkInput,
  hashes: { passwordHash: string | null; privacyPasswordHash: string | null },
): Promise<Link> {
  const url = input.url!
  const customAlias = typeof input.alias === 'string' ? input.alias : null
  const domainId = (await resolveDomain(app, db, user, input)) ?? null
  const typed = (await resolveType(db, user, input, null)) ?? { type: 'direct' as const, pageId: null }
  checkFeatures(
    user,
    featuresUsed(input, {
      customAlias: customAlias !== null,
      brandedAlias: customAlias !== null && domainId !== null,
      domain: domainId !== null,
      pageType: typed.type,
    }),
  )
  await requireLinkRoom(tx, user)
  await refuseSelfLoops(app, db, input)
  // a plain create holds the blocklist check inside its INSERT (insert.ts)
  if (tx) await refuseBlockedLink(db, input)
  await checkOwned(db, user, input)

  const metaTitle = blankToNull(input.metaTitle) ?? null
  const metaDescription = blankToNull(input.metaDescription) ?? null
  const values: LinkValues = {
    userId: user.id,
    domainId,
    customAlias: customAlias !== null,
    url,
    title: blankToNull(input.title) ?? metaTitle,
    description: blankToNull(input.description) ?? metaDescription,
    type: typed.type,
    pageId: typed.pageId,
    ...hashes,
    expiresAt: input.expiresAt ?? null,
    expirationUrl: input.expirationUrl ?? null,
    expirationClicks: input.expirationClicks ?? null,
    privacy: input.privacy ?? PRIVACY.private,
    disabled: input.disabled ?? false,
    metaTitle,
    metaDescription,
    metaImage: input.metaImage ?? null,
    deepLink: deepLinkOf(input.deepLink, url) ?? null,
    parameters: input.parameters ?? [],
    targetType: input.targetType ?? derivedTargetType(kindsSent(input)),
    campaignId: input.campaignId ?? null,
    redirectStatus: input.redirectStatus ?? null,
    cacheTtl: input.cacheTtl ?? 0,
    fallback: input.fallback ?? null,
  }

  const link = customAlias !== null ? await insertCustom(db, tx, input, values, customAlias) : await insertRandom(db, tx, input, values)
  await writeRelations(db, link.id, input, false)
  if (tx) await enqueueLinkEvent(tx, app.config.publicUrl, 'link.created', link)
  return link
}

/** The guards of this create's INSERT: a plain one (no transaction) holds the blocklist and webhook checks too. */
const guardsOf = (tx: Tx | null, history: boolean): Guards => ({ history, blocklist: !tx, webhook: !tx })

/**
 * A guarded INSERT inserted nothing: a 400 when a blocklist entry matches, NeedsTransaction when
 * the owner has a `link.created` webhook after all; otherwise the alias was taken (or held).
 */
async function explainRefusal(db: Db | Tx, tx: Tx | null, userId: number, input: LinkInput): Promise<void> {
  if (tx) return
  await refuseBlockedLink(db, input)
  if (await wantsEvent(db, userId, 'link.created')) throw new NeedsTransaction()
}

async function insertCustom(db: Db | Tx, tx: Tx | null, input: LinkInput, values: LinkValues, alias: string): Promise<Link> {
  // ON CONFLICT DO NOTHING waits for a concurrent insert of the same alias to settle, so two
  // racing requests end as one row and one 409, never a duplicate or an aborted transaction.
  const link = await guardedInsert(db, values, alias, destinations(input), guardsOf(tx, false))
  if (!link) {
    await explainRefusal(db, tx, values.userId, input)
    throw takenError(alias)
  }
  // an earlier alias of another link holds it (alias history). Checked after the insert, in a
  // statement of its own: a rename moving this alias into history either committed before (seen
  // here) or waits on our row.
  if (await heldByHistory(db, values.domainId ?? null, alias)) {
    if (!tx) await db.delete(links).where(eq(links.id, link.id))
    throw takenError(alias)
  }
  return link
}

/**
 * A random alias: the history check is a guard of the INSERT itself, so an attempt is one
 * statement. (A rename committing between that statement's snapshot and its insert could still
 * put the same alias in history; that takes a rename to a just-drawn random alias at that instant.)
 */
async function insertRandom(db: Db | Tx, tx: Tx | null, input: LinkInput, values: LinkValues): Promise<Link> {
  const urls = destinations(input)
  let explained = false
  for (let attempt = 0; ; attempt++) {
    if (attempt >= 10 * ATTEMPTS_PER_LENGTH) throw new Error('could not find a free random alias')
    const alias = randomAlias(6 + Math.floor(attempt / ATTEMPTS_PER_LENGTH))
    if ((RESERVED_ALIASES as readonly string[]).includes(alias.toLowerCase())) continue
    const link = await guardedInsert(db, values, alias, urls, guardsOf(tx, true))
    if (link) return link
    // a collision is rare: ask once whether a guard refused instead
    if (!explained) await explainRefusal(db, tx, values.userId, input)
    explained = true
  }
}
