import type { FastifyInstance } from 'fastify'
import { eq } from 'drizzle-orm'
import type { Tx } from '../../db/client.js'
import { links, PRIVACY, TARGET_KINDS, type Feature } from '../../db/schema/index.js'
import { requireFeature, type AuthUser } from '../../http/auth.js'
import { hasFeature } from '../../accounts/plan-rules.js'
import { notFound } from '../../http/errors.js'
import { hashPassword } from '../../lib/passwords.js'
import { invalidateLinks } from '../redirect-cache.js'
import { aliasTaken, bad, checkOwned, featuresUsed, resolveDomain, resolveType, takenError } from './checks.js'
import { blankToNull, deepLinkOf, derivedTargetType, nextDerived } from './derived.js'
import type { LinkInput } from './model.js'
import { writeRelations } from './relations.js'
import { lockOwnedLink, pixelIdsOf, targetKinds, targetsOfKind, type Link } from './repo.js'
import { refuseSelfLoops } from './self-loop.js'
import { refuseBlockedLink } from './checks.js'
import { enqueueLinkEvent } from '../webhooks/outbox.js'
import { heldByHistory, keepOldAlias } from './alias-history.js'

/**
 * Changes the fields present in `input` (undefined = keep, null = clear) of the caller's link.
 * 404 when the link is not the caller's.
 */
export async function updateLink(app: FastifyInstance, user: AuthUser, id: number, input: LinkInput): Promise<Link> {
  const [passwordHash, privacyPasswordHash] = await Promise.all([
    input.password ? hashPassword(input.password) : input.password === null ? null : undefined,
    input.privacyPassword ? hashPassword(input.privacyPassword) : input.privacyPassword === null ? null : undefined,
  ])

  let alias: string | undefined
  try {
    const link = await app.db.transaction(async (tx) => {
      const current = await lockOwnedLink(tx, user.id, id)
      if (!current) throw notFound('Link not found.')

      const resolved = await resolveDomain(app, tx, user, input)
      const domainId = resolved === undefined ? current.domainId : resolved
      const newAlias = typeof input.alias === 'string' ? input.alias : current.alias
      alias = newAlias
      const aliasChanged = newAlias !== current.alias
      const domainChanged = domainId !== current.domainId
      const customAlias = aliasChanged ? true : current.customAlias
      const typed = await resolveType(tx, user, input, current)
      const uses = featuresUsed(input, {
        customAlias: aliasChanged,
        brandedAlias: customAlias && domainId !== null && (aliasChanged || domainChanged),
        domain: domainChanged && domainId !== null,
        pageType: typed && typed.pageId !== current.pageId ? typed.type : undefined,
      })
      const refused = uses.filter((f) => !hasFeature(user, user.plan, f))
      for (const f of refused) if (!(await unchangedUse(tx, current, f, input))) requireFeature(user, f)
      await refuseSelfLoops(app, tx, input)
      await refuseBlockedLink(tx, input)
      await checkOwned(tx, user, input)

      const url = input.url ?? current.url
      const metaTitle = input.metaTitle === undefined ? current.metaTitle : blankToNull(input.metaTitle)!
      const metaDescription = input.metaDescription === undefined ? current.metaDescription : blankToNull(input.metaDescription)!
      const changes: Partial<typeof links.$inferInsert> = {
        alias: newAlias,
        customAlias,
        domainId,
        url,
        title: nextDerived(input.title, current.title, current.metaTitle, metaTitle),
        description: nextDerived(input.description, current.description, current.metaDescription, metaDescription),
        metaTitle,
        metaDescription,
      }
      if (typed) Object.assign(changes, typed)
      if (passwordHash !== undefined) changes.passwordHash = passwordHash
      if (privacyPasswordHash !== undefined) changes.privacyPasswordHash = privacyPasswordHash
      if (input.expiresAt !== undefined) changes.expiresAt = input.expiresAt
      if (input.expirationUrl !== undefined) changes.expirationUrl = input.expirationUrl
      if (input.expirationClicks !== undefined) changes.expirationClicks = input.expirationClicks
      if (input.privacy !== undefined) changes.privacy = input.privacy
      // the stored password counts, so this needs the row: a door cannot check it alone
      const privacyHash = privacyPasswordHash !== undefined ? privacyPasswordHash : current.privacyPasswordHash
      if ((changes.privacy ?? current.privacy) === PRIVACY.password && !privacyHash) {
        throw bad('privacyPassword', 'is required when the statistics page is password-protected.')
      }
      if (input.disabled !== undefined) changes.disabled = input.disabled
      if (input.metaImage !== undefined) changes.metaImage = input.metaImage
      if (input.deepLink !== undefined) changes.deepLink = deepLinkOf(input.deepLink, url)
      if (input.parameters !== undefined) changes.parameters = input.parameters ?? []
      if (input.campaignId !== undefined) changes.campaignId = input.campaignId
      if (input.redirectStatus !== undefined) changes.redirectStatus = input.redirectStatus
      if (input.cacheTtl !== undefined) changes.cacheTtl = input.cacheTtl ?? 0
      if (input.fallback !== undefined) changes.fallback = input.fallback
      // a new long URL has not been checked: its health starts over and it is due at once
      if (url !== current.url) Object.assign(changes, { healthState: 'unknown', healthStatus: null, healthReason: null, checkedAt: null, nextCheckAt: new Date() })

      const [updated] = await tx.update(links).set(changes).where(eq(links.id, id)).returning()
      if (aliasChanged || domainChanged) {
        // after the update, so a concurrent create of the new alias has either committed (its row
        // made the update fail) or sees our history row; another link's earlier alias refuses it
        if (await heldByHistory(tx, domainId, newAlias, id)) throw takenError(newAlias)
        await keepOldAlias(tx, id, { domainId: current.domainId, alias: current.alias }, { domainId, alias: newAlias })
      }
      await writeRelations(tx, id, input, true)
      if (input.targetType !== undefined) {
        await tx.update(links).set({ targetType: input.targetType }).where(eq(links.id, id))
        updated.targetType = input.targetType
      } else if (TARGET_KINDS.some((kind) => input[kind] !== undefined)) {
        const targetType = derivedTargetType(await targetKinds(tx, id))
        if (targetType !== updated.targetType) {
          await tx.update(links).set({ targetType }).where(eq(links.id, id))
          updated.targetType = targetType
        }
      }
      await enqueueLinkEvent(tx, app.config.publicUrl, 'link.updated', updated)
      return updated
    })
    await invalidateLinks(app, [id])
    return link
  } catch (err) {
    if (aliasTaken(err)) throw takenError(alias ?? '')
    throw err
  }
}

/**
 * Whether an update resends what the link already has for a feature (a client echoing the whole
 * link back after a downgrade): that is not a new use, so a switched-off feature does not refuse it.
 */
async function unchangedUse(tx: Tx, current: Link, feature: Feature, input: LinkInput): Promise<boolean> {
  const sameTargets = async (kind: 'geo' | 'device') => {
    const rows = await targetsOfKind(tx, current.id, kind)
    const sent = input[kind] ?? []
    return rows.length === sent.length && rows.every((r, i) => r.key === sent[i].key && r.url === sent[i].url)
  }
  switch (feature) {
    case 'geo':
      return sameTargets('geo')
    case 'device':
      return sameTargets('device')
    case 'bundle':
      return input.campaignId === current.campaignId
    case 'parameters':
      return JSON.stringify(input.parameters ?? []) === JSON.stringify(current.parameters ?? [])
    case 'pixels': {
      const have = new Set(await pixelIdsOf(tx, current.id))
      const sent = input.pixelIds ?? []
      return have.size === sent.length && sent.every((id) => have.has(id))
    }
    default:
      return false
  }
}
