import type { FastifyInstance } from 'fastify'
import type { Db, Tx } from '../../db/client.js'
import type { Feature, LinkType } from '../../db/schema/index.js'
import { requireFeature, type AuthUser } from '../../http/auth.js'
import { fieldError, forbidden, isUniqueViolation } from '../../http/errors.js'
import { lockOwner } from '../../db/lock.js'
import { findOwnedCampaign } from '../campaigns/repo.js'
import { findOwnedChannelIds } from '../channels/repo.js'
import { findOwnedDomain, findOwnedDomainByHost } from '../domains/repo.js'
import { findOwnedPageOfAnyKind } from '../pages/repo.js'
import { findOwnedPixelIds } from '../pixels/repo.js'
import type { LinkField, LinkInput } from './model.js'
import { countLinks, type Link } from './repo.js'
import { destinations } from './self-loop.js'
import { blockedPage, blockedReason } from '../blocklist/check.js'
import { findBlocked } from '../blocklist/repo.js'

/*
 * The link write service's rules that need the database: what the caller owns, what their plan
 * allows, what is taken. Everything else was checked by the door the input came through.
 */

/** A 400 about one field of the input; each door names the field its own way. */
export const bad = (key: LinkField['key'], message: string, path?: LinkField['path']) => fieldError(400, { key, path }, message)

/** `go.example.com`, `https://go.example.com/` → host[:port] lower-case; null when it is not a bare origin. */
function hostOfDomainName(name: string): string | null {
  let v = name.trim()
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(v)) v = `http://${v}`
  try {
    const u = new URL(v)
    if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.username || u.password || u.search || u.hash) return null
    if (u.pathname !== '/' && u.pathname !== '') return null
    return u.host.toLowerCase().replace(/\.(?=$|:)/, '')
  } catch {
    return null
  }
}

/** The domain of the input: undefined = keep/default, null = the default domain, else an owned domain id. */
export async function resolveDomain(app: FastifyInstance, db: Db | Tx, user: AuthUser, input: LinkInput): Promise<number | null | undefined> {
  if (input.domainId !== undefined && input.domainId !== null) {
    const domain = await findOwnedDomain(db, user.id, input.domainId)
    if (!domain) throw bad('domainId', `${input.domainId} is not one of your branded domains.`)
    return domain.id
  }
  if (typeof input.domainName === 'string') {
    const host = hostOfDomainName(input.domainName)
    if (host && host === app.config.defaultHost) return null
    const domain = host ? await findOwnedDomainByHost(db, user.id, host) : undefined
    if (!domain) throw bad('domainName', `"${input.domainName.slice(0, 200)}" is not one of your branded domains.`)
    return domain.id
  }
  if (input.domainId === null || input.domainName === null) return null
  return undefined
}

/**
 * The link's type and page after this write. A bare page id is unambiguous (splash pages and
 * overlays share one id sequence), so its kind decides the type.
 */
export async function resolveType(
  db: Db | Tx,
  user: AuthUser,
  input: LinkInput,
  current: Pick<Link, 'type' | 'pageId'> | null,
): Promise<{ type: LinkType; pageId: number | null } | undefined> {
  const wantsPage = input.type === 'splash-page' || input.type === 'overlay'
  if (input.pageId !== undefined && input.pageId !== null) {
    const page = await findOwnedPageOfAnyKind(db, user.id, input.pageId)
    if (!page) throw bad('pageId', `${input.pageId} is not one of your splash pages or overlays.`)
    const type: LinkType = page.kind === 'splash' ? 'splash-page' : 'overlay'
    if (wantsPage && input.type !== type) {
      throw bad('pageId', `${input.pageId} is ${page.kind === 'splash' ? 'a splash page' : 'an overlay'}, not ${input.type === 'overlay' ? 'an overlay' : 'a splash page'}.`)
    }
    if (input.type !== undefined && !wantsPage) throw bad('type', `${input.type} takes no page id.`)
    // a page made before a blocklist entry still holds the listed URL: it cannot be attached again
    const why = await blockedPage(db, page)
    if (why) throw bad('pageId', `${input.pageId} is refused: ${why}`)
    return { type, pageId: page.id }
  }
  if (input.type === undefined) return input.pageId === null ? { type: 'direct', pageId: null } : undefined
  if (wantsPage) {
    if (current && current.type === input.type && current.pageId !== null) return { type: input.type, pageId: current.pageId }
    throw bad('type', `${input.type} needs the id of one of your ${input.type === 'overlay' ? 'overlays' : 'splash pages'}.`)
  }
  return { type: input.type, pageId: null }
}

/** Pixels, channels and the campaign the input attaches must be the caller's. */
export async function checkOwned(db: Db | Tx, user: AuthUser, input: LinkInput): Promise<void> {
  if (input.pixelIds?.length) {
    const owned = await findOwnedPixelIds(db, user.id, input.pixelIds)
    const missing = input.pixelIds.find((id) => !owned.has(id))
    if (missing !== undefined) throw bad('pixelIds', `${missing} is not one of your pixels.`)
  }
  if (input.channelIds?.length) {
    const owned = await findOwnedChannelIds(db, user.id, input.channelIds)
    const missing = input.channelIds.find((id) => !owned.has(id))
    if (missing !== undefined) throw bad('channelIds', `${missing} is not one of your channels.`)
  }
  if (input.campaignId !== undefined && input.campaignId !== null) {
    if (!(await findOwnedCampaign(db, user.id, input.campaignId))) throw bad('campaignId', `${input.campaignId} is not one of your campaigns.`)
  }
}

export interface FeatureContext {
  /** a custom alias is set or changed */
  customAlias: boolean
  /** the link ends on a branded domain and its alias is custom, and either of them changes */
  brandedAlias: boolean
  /** a branded domain is set or changed */
  domain: boolean
  /** a custom splash page or overlay is set or changed */
  pageType?: LinkType
}

/** Features the input uses (DECISIONS §3): switched-off ones are refused; clearing a feature never is. */
export function featuresUsed(input: LinkInput, ctx: FeatureContext): Feature[] {
  const uses: Feature[] = []
  if (ctx.customAlias) uses.push('custom')
  if (ctx.brandedAlias) uses.push('alias')
  if (ctx.domain) uses.push('domain')
  if (ctx.pageType === 'splash-page') uses.push('splash')
  if (ctx.pageType === 'overlay') uses.push('overlay')
  if (input.geo?.length) uses.push('geo')
  if (input.device?.length) uses.push('device')
  if (input.pixelIds?.length) uses.push('pixels')
  if (input.campaignId) uses.push('bundle')
  if (input.parameters?.length) uses.push('parameters')
  return uses
}

export function checkFeatures(user: AuthUser, uses: Feature[]): void {
  for (const f of new Set(uses)) requireFeature(user, f)
}

/**
 * The plan's `links` cap (0 = unlimited; admins are never limited). A capped create runs in a
 * transaction, so the owner lock holds until its insert commits.
 */
export async function requireLinkRoom(tx: Tx | null, user: AuthUser): Promise<void> {
  const max = user.plan.maxLinks
  if (user.admin || !max) return
  if (!tx) throw new Error('a capped link create must run in a transaction')
  await lockOwner(tx, user.id)
  const n = await countLinks(tx, user.id)
  if (n >= max) throw forbidden(`Your plan allows ${max} links (the "links" limit); delete some or upgrade.`)
}

/** A unique violation on (domain, alias): the alias is taken. */
export function aliasTaken(err: unknown): boolean {
  const e = err as { constraint?: string; cause?: { constraint?: string } }
  const c = e?.constraint ?? e?.cause?.constraint ?? ''
  return isUniqueViolation(err) && (c === '' || c.includes('links_domain_alias'))
}

export const takenError = (alias: string) => fieldError(409, { key: 'alias' }, `"${alias}" is already taken on that domain; choose another alias.`)

/** A link write (any door): the first URL field of the input that a blocklist entry matches is a 400 naming it. */
export async function refuseBlockedLink(db: Db | Tx, input: LinkInput): Promise<void> {
  const hit = await findBlocked(db, destinations(input))
  if (hit) throw bad(hit.item.field.key, blockedReason(hit.entry), hit.item.field.path)
}
