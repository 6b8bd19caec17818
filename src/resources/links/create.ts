import type { FastifyInstance } from 'fastify'
import { and, count, eq, inArray } from 'drizzle-orm'
import type { Db, Tx } from '../../db/client.js'
import {
  campaigns,
  channelItems,
  channels,
  domains,
  LINK_TYPES,
  linkPixels,
  links,
  linkTargets,
  pages,
  pixels,
  PRIVACY,
  users,
  type DeepLink,
  type Feature,
  type LinkType,
  type TargetKind,
} from '../../db/schema/index.js'
import { requireFeature, type AuthUser } from '../../http/auth.js'
import { badRequest, conflict, forbidden, isUniqueViolation, notFound } from '../../http/errors.js'
import { toTimestamp } from '../../http/format.js'
import { hashPassword } from '../../lib/passwords.js'
import { normalizeCountry, normalizeDevice, normalizeLanguage } from '../../lib/targets.js'
import { checkUrl, comparableHost } from '../../lib/url.js'
import { aliasProblem, ATTEMPTS_PER_LENGTH, randomAlias, RESERVED_ALIASES } from './aliases.js'
import { deriveDeepLink } from './deeplinks.js'
import type { LinkInput, TargetInput } from './model.js'
import { deleteChannelItemsOf, targetKinds, type Link } from './repo.js'

export type { Link }

/*
 * The link write service (interfaces.md item 1). Both interfaces translate their bodies into
 * LinkInput and call these functions, so every rule that needs the database or spans resources
 * lives here once. Every error message starts with the management-interface field name it is
 * about (`url: …`, `geotarget …`) and carries that name in ApiError.fields, so v1 can map both.
 */

const MAX_TITLE = 255
const MAX_DESCRIPTION = 2000
const MAX_PASSWORD = 1024
const MAX_TARGETS = 100
const MAX_PARAMETERS = 100
const MAX_PIXELS = 100
const MAX_ID = 2 ** 31 - 1
const IMAGE_PATH = /\.(?:jpe?g|png)$/i

const TARGET_FIELD: Record<TargetKind, string> = {
  geo: 'geotarget',
  device: 'devicetarget',
  language: 'languagetarget',
  rotation: 'rotation',
}

/** 400 whose message starts with the field (or a path inside it) and whose `fields` names the field. */
const bad = (field: string, message: string, path = field) => badRequest(`${path}: ${message}`, field)

// ---------------------------------------------------------------- pure checks

interface PreparedTarget {
  key: string | null
  match: string | null
  url: string
}

/** A destination URL and the field it came from, for the self-loop check. */
interface Destination {
  field: string
  url: string
}

interface Prepared {
  destinations: Destination[]
  targets: Partial<Record<TargetKind, PreparedTarget[]>>
  pixelIds?: number[] | null
  channelIds?: number[] | null
}

function checkUrlField(field: string, value: string, opts: { httpOnly?: boolean; path?: string } = {}): string {
  if (typeof value !== 'string') throw bad(field, 'must be a string.', opts.path)
  const r = checkUrl(value, opts)
  if (!r.ok) throw bad(field, r.message, opts.path)
  return r.url
}

function checkText(field: string, value: string | null | undefined, max: number): void {
  if (value === undefined || value === null) return
  if (typeof value !== 'string') throw bad(field, 'must be a string.')
  if (value.length > max) throw bad(field, `must be at most ${max} characters.`)
}

function checkIds(field: string, ids: number[] | null | undefined, max: number): number[] | null | undefined {
  if (ids === undefined || ids === null) return ids
  if (!Array.isArray(ids)) throw bad(field, 'must be a list of ids.')
  if (ids.length > max) throw bad(field, `must list at most ${max} ids.`)
  for (const id of ids) {
    if (!Number.isInteger(id) || id < 1 || id > MAX_ID) throw bad(field, 'must be a list of positive integer ids.')
  }
  return [...new Set(ids)]
}

function prepareTargets(kind: TargetKind, list: TargetInput[]): PreparedTarget[] {
  const field = TARGET_FIELD[kind]
  if (!Array.isArray(list)) throw bad(field, 'must be a list.')
  if (list.length > MAX_TARGETS) throw bad(field, `must have at most ${MAX_TARGETS} entries.`)
  const seen = new Set<string>()
  return list.map((t, i) => {
    const url = checkUrlField(field, t.url, { path: `${field}.${i}.link` })
    if (kind === 'rotation') return { key: null, match: null, url }
    const key = typeof t.key === 'string' ? t.key.trim() : ''
    if (!key) throw bad(field, `every entry needs a ${kind === 'geo' ? 'location' : kind}.`, `${field}.${i}`)
    const match =
      kind === 'geo' ? normalizeCountry(key) : kind === 'device' ? normalizeDevice(key) : normalizeLanguage(key)
    if (!match) {
      const hint =
        kind === 'geo'
          ? 'is not a known country: use an ISO 3166-1 alpha-2 code such as US, or an English country name.'
          : kind === 'device'
            ? 'is not a known device: use one of iPhone, iPad, Android, Windows Phone, Windows, Mac, Linux, Chrome OS, BlackBerry.'
            : 'is not a known language: use an ISO 639-1 code such as en or fr.'
      throw bad(field, `"${key.slice(0, 100)}" ${hint}`, `${field}.${i}`)
    }
    if (seen.has(match)) throw bad(field, `"${key.slice(0, 100)}" is listed twice.`, `${field}.${i}`)
    seen.add(match)
    return { key, match, url }
  })
}

/** Checks everything that needs no database, and normalises targets and id lists. */
function prepare(input: LinkInput, mode: 'create' | 'update'): Prepared {
  const destinations: Destination[] = []
  if (input.url === undefined || input.url === null) {
    if (mode === 'create') throw bad('url', 'a long URL is required.')
  } else {
    input.url = checkUrlField('url', input.url)
    destinations.push({ field: 'url', url: input.url })
  }
  if (typeof input.alias === 'string') {
    const problem = aliasProblem(input.alias)
    if (problem) throw badRequest(problem, 'custom')
  }
  if (input.type !== undefined && !LINK_TYPES.includes(input.type)) {
    throw bad('type', 'must be direct, frame, splash, or the id of one of your splash pages or overlays.')
  }
  if (input.pageId !== undefined && input.pageId !== null && (!Number.isInteger(input.pageId) || input.pageId < 1 || input.pageId > MAX_ID)) {
    throw bad('type', 'is not the id of one of your splash pages or overlays.')
  }
  for (const [field, value] of [['password', input.password], ['privacy_password', input.privacyPassword]] as const) {
    if (value === undefined || value === null) continue
    if (typeof value !== 'string' || value.length === 0) throw bad(field, 'must be a non-empty string.')
    if (value.length > MAX_PASSWORD) throw bad(field, `must be at most ${MAX_PASSWORD} characters.`)
  }
  if (input.expiresAt) {
    if (!(input.expiresAt instanceof Date) || Number.isNaN(input.expiresAt.getTime())) {
      throw bad('expiry', 'must be a date like 2030-12-31 23:59:59 (UTC).')
    }
    if (mode === 'create' && input.expiresAt.getTime() <= Date.now()) {
      throw bad('expiry', `must be in the future (it is now ${toTimestamp(new Date())} UTC).`)
    }
  }
  if (input.expirationUrl) {
    input.expirationUrl = checkUrlField('expiration_url', input.expirationUrl)
    destinations.push({ field: 'expiration_url', url: input.expirationUrl })
  }
  if (input.expirationClicks !== undefined && input.expirationClicks !== null) {
    if (!Number.isInteger(input.expirationClicks) || input.expirationClicks < 0 || input.expirationClicks > MAX_ID) {
      throw bad('expiration_clicks', 'must be a whole number of clicks.')
    }
  }
  if (input.privacy !== undefined && ![0, 1, 2].includes(input.privacy)) throw bad('privacy', 'must be 0, 1 or 2.')
  checkText('title', input.title, MAX_TITLE)
  checkText('description', input.description, MAX_DESCRIPTION)
  checkText('metatitle', input.metaTitle, MAX_TITLE)
  checkText('metadescription', input.metaDescription, MAX_DESCRIPTION)
  if (input.metaImage) {
    input.metaImage = checkUrlField('metaimage', input.metaImage, { httpOnly: true })
    if (!IMAGE_PATH.test(new URL(input.metaImage).pathname)) throw bad('metaimage', 'must be the URL of a .jpg, .jpeg or .png image.')
  }
  if (input.deepLink) {
    const d = input.deepLink
    if (d.apple) d.apple = checkUrlField('deeplink', d.apple, { path: 'deeplink.apple' })
    if (d.google) d.google = checkUrlField('deeplink', d.google, { path: 'deeplink.google' })
    for (const [f, v] of [['deeplink.apple', d.apple], ['deeplink.google', d.google]] as const) if (v) destinations.push({ field: f, url: v })
  }
  if (input.parameters) {
    if (!Array.isArray(input.parameters)) throw bad('parameters', 'must be a list of {name, value} objects.')
    if (input.parameters.length > MAX_PARAMETERS) throw bad('parameters', `must have at most ${MAX_PARAMETERS} entries.`)
    input.parameters.forEach((p, i) => {
      if (typeof p?.name !== 'string' || !p.name.trim()) throw bad('parameters', 'must be a non-empty string.', `parameters.${i}.name`)
      if (p.name.length > MAX_TITLE) throw bad('parameters', `must be at most ${MAX_TITLE} characters.`, `parameters.${i}.name`)
      if (typeof p.value !== 'string') throw bad('parameters', 'must be a string.', `parameters.${i}.value`)
      if (p.value.length > MAX_DESCRIPTION) throw bad('parameters', `must be at most ${MAX_DESCRIPTION} characters.`, `parameters.${i}.value`)
    })
  }
  const targets: Prepared['targets'] = {}
  for (const kind of ['geo', 'device', 'language', 'rotation'] as const) {
    const list = input[kind]
    if (list === undefined) continue
    targets[kind] = list === null ? [] : prepareTargets(kind, list)
    for (const [i, t] of targets[kind]!.entries()) destinations.push({ field: `${TARGET_FIELD[kind]}.${i}.link`, url: t.url })
  }
  if (input.targetType !== undefined && (!Number.isInteger(input.targetType) || input.targetType < 0 || input.targetType > 4)) {
    throw bad('target_type', 'must be 0, 1, 2, 3 or 4.')
  }
  return {
    destinations,
    targets,
    pixelIds: checkIds('pixels', input.pixelIds, MAX_PIXELS),
    channelIds: checkIds('channel', input.channelIds, MAX_PIXELS),
  }
}

/** Plan feature switches (DECISIONS §3): using a feature is refused, clearing it never is. */
function checkFeatures(user: AuthUser, uses: Feature[]) {
  for (const f of new Set(uses)) requireFeature(user, f)
}

// ---------------------------------------------------------------- database checks

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

/** Resolves the domain of the input: undefined = keep/default, null = the default domain, else an owned domain id. */
async function resolveDomain(app: FastifyInstance, tx: Tx, user: AuthUser, input: LinkInput): Promise<number | null | undefined> {
  if (input.domainId !== undefined && input.domainId !== null) {
    const [row] = await tx
      .select({ id: domains.id })
      .from(domains)
      .where(and(eq(domains.id, input.domainId), eq(domains.userId, user.id)))
    if (!row) throw bad('domain', 'is not one of your branded domains.')
    return row.id
  }
  if (typeof input.domainName === 'string') {
    const host = hostOfDomainName(input.domainName)
    if (host && host === app.config.defaultHost) return null
    const [row] = host
      ? await tx
          .select({ id: domains.id })
          .from(domains)
          .where(and(eq(domains.host, host), eq(domains.userId, user.id)))
      : []
    if (!row) throw bad('domain', `"${input.domainName.slice(0, 200)}" is not one of your branded domains.`)
    return row.id
  }
  if (input.domainId === null || input.domainName === null) return null
  return undefined
}

/**
 * A destination on this service's own hosts (PUBLIC_URL or any branded domain, whoever owns it)
 * would send visitors round in circles: refused, whatever the case, trailing dot or `www.`.
 */
async function refuseSelfLoops(app: FastifyInstance, db: Db | Tx, destinations: Destination[]) {
  const byHost = new Map<string, string>()
  for (const d of destinations) {
    const r = checkUrl(d.url)
    if (!r.ok || !r.parsed) continue
    const host = comparableHost(r.parsed.hostname)
    if (!byHost.has(host)) byHost.set(host, d.field)
  }
  if (!byHost.size) return
  const own = comparableHost(new URL(app.config.publicUrl).hostname)
  const loop = (field: string) => bad(field, 'points at a short link of this service; use the destination URL itself.')
  if (byHost.has(own)) throw loop(byHost.get(own)!)
  // every domain write invalidates this set (locally and, with REDIS_URL, on every instance)
  const branded = await app.linkCache.brandedHosts(async () => (await db.select({ host: domains.host }).from(domains)).map((d) => d.host), comparableDomainHost)
  for (const [host, field] of byHost) if (branded.has(host)) throw loop(field)
}

/** A stored `domains.host` (host[:port]) as refuseSelfLoops compares it: no port, case, trailing dot or `www.`. */
function comparableDomainHost(host: string): string {
  return comparableHost(host.toLowerCase().split(':')[0])
}

async function checkOwned(tx: Tx, user: AuthUser, prepared: Prepared, input: LinkInput) {
  if (prepared.pixelIds?.length) {
    const rows = await tx
      .select({ id: pixels.id })
      .from(pixels)
      .where(and(eq(pixels.userId, user.id), inArray(pixels.id, prepared.pixelIds)))
    const owned = new Set(rows.map((r) => r.id))
    const missing = prepared.pixelIds.find((id) => !owned.has(id))
    if (missing !== undefined) throw bad('pixels', `${missing} is not one of your pixels.`)
  }
  if (prepared.channelIds?.length) {
    const rows = await tx
      .select({ id: channels.id })
      .from(channels)
      .where(and(eq(channels.userId, user.id), inArray(channels.id, prepared.channelIds)))
    const owned = new Set(rows.map((r) => r.id))
    const missing = prepared.channelIds.find((id) => !owned.has(id))
    if (missing !== undefined) throw bad('channel', `${missing} is not one of your channels.`)
  }
  if (input.campaignId !== undefined && input.campaignId !== null) {
    if (!Number.isInteger(input.campaignId) || input.campaignId < 1 || input.campaignId > MAX_ID) throw bad('campaign', 'must be a campaign id.')
    const [row] = await tx
      .select({ id: campaigns.id })
      .from(campaigns)
      .where(and(eq(campaigns.id, input.campaignId), eq(campaigns.userId, user.id)))
    if (!row) throw bad('campaign', `${input.campaignId} is not one of your campaigns.`)
  }
}

/**
 * The link's type and page after this write. A bare page id is unambiguous (splash pages and
 * overlays share one id sequence), so its kind decides the type.
 */
async function resolveType(
  tx: Tx,
  user: AuthUser,
  input: LinkInput,
  current: Pick<Link, 'type' | 'pageId'> | null,
): Promise<{ type: LinkType; pageId: number | null } | undefined> {
  const wantsPage = input.type === 'splash-page' || input.type === 'overlay'
  if (input.pageId !== undefined && input.pageId !== null) {
    const [page] = await tx
      .select({ id: pages.id, kind: pages.kind })
      .from(pages)
      .where(and(eq(pages.id, input.pageId), eq(pages.userId, user.id)))
    if (!page) throw bad('type', `${input.pageId} is not one of your splash pages or overlays.`)
    const type: LinkType = page.kind === 'splash' ? 'splash-page' : 'overlay'
    if (wantsPage && input.type !== type) {
      throw bad('type', `${input.pageId} is ${page.kind === 'splash' ? 'a splash page' : 'an overlay'}, not ${input.type === 'overlay' ? 'an overlay' : 'a splash page'}.`)
    }
    if (input.type !== undefined && !wantsPage) throw bad('type', `${input.type} takes no page id.`)
    return { type, pageId: page.id }
  }
  if (input.type === undefined) return input.pageId === null ? { type: 'direct', pageId: null } : undefined
  if (wantsPage) {
    if (current && current.type === input.type && current.pageId !== null) return { type: input.type, pageId: current.pageId }
    throw bad('type', `${input.type} needs the id of one of your ${input.type === 'overlay' ? 'overlays' : 'splash pages'}.`)
  }
  return { type: input.type, pageId: null }
}

/** v1 `target_type` from the kinds a link has: geo, then device, language, rotation. */
function derivedTargetType(kinds: Set<TargetKind>): number {
  if (kinds.has('geo')) return 1
  if (kinds.has('device')) return 2
  if (kinds.has('language')) return 3
  if (kinds.has('rotation')) return 4
  return 0
}

async function writeTargets(tx: Tx, linkId: number, targets: Prepared['targets'], replace: boolean) {
  for (const [kind, list] of Object.entries(targets) as [TargetKind, PreparedTarget[]][]) {
    if (replace) await tx.delete(linkTargets).where(and(eq(linkTargets.linkId, linkId), eq(linkTargets.kind, kind)))
    if (list.length) {
      await tx.insert(linkTargets).values(list.map((t, position) => ({ linkId, kind, key: t.key, match: t.match, url: t.url, position })))
    }
  }
}

async function writeRelations(tx: Tx, linkId: number, prepared: Prepared, replace: boolean) {
  await writeTargets(tx, linkId, prepared.targets, replace)
  if (prepared.pixelIds !== undefined) {
    if (replace) await tx.delete(linkPixels).where(eq(linkPixels.linkId, linkId))
    if (prepared.pixelIds?.length) await tx.insert(linkPixels).values(prepared.pixelIds.map((pixelId) => ({ linkId, pixelId })))
  }
  if (prepared.channelIds !== undefined) {
    if (replace) await deleteChannelItemsOf(tx, [linkId])
    if (prepared.channelIds?.length) {
      await tx.insert(channelItems).values(prepared.channelIds.map((channelId) => ({ channelId, itemType: 'links' as const, itemId: linkId })))
    }
  }
}

interface FeatureContext {
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
function featuresUsed(input: LinkInput, prepared: Prepared, ctx: FeatureContext): Feature[] {
  const uses: Feature[] = []
  if (ctx.customAlias) uses.push('custom')
  if (ctx.brandedAlias) uses.push('alias')
  if (ctx.domain) uses.push('domain')
  if (ctx.pageType === 'splash-page') uses.push('splash')
  if (ctx.pageType === 'overlay') uses.push('overlay')
  if (prepared.targets.geo?.length) uses.push('geo')
  if (prepared.targets.device?.length) uses.push('device')
  if (prepared.pixelIds?.length) uses.push('pixels')
  if (input.campaignId) uses.push('bundle')
  if (input.parameters?.length) uses.push('parameters')
  return uses
}

/**
 * Whether an update resends what the link already has for a feature (a client echoing the whole
 * link back after a downgrade): that is not a new use, so a switched-off feature does not refuse it.
 */
async function unchangedUse(tx: Tx, current: Link, feature: Feature, input: LinkInput, prepared: Prepared): Promise<boolean> {
  const sameTargets = async (kind: TargetKind) => {
    const rows = await tx
      .select({ key: linkTargets.key, url: linkTargets.url })
      .from(linkTargets)
      .where(and(eq(linkTargets.linkId, current.id), eq(linkTargets.kind, kind)))
      .orderBy(linkTargets.position)
    const sent = prepared.targets[kind] ?? []
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
      const rows = await tx.select({ id: linkPixels.pixelId }).from(linkPixels).where(eq(linkPixels.linkId, current.id))
      const have = new Set(rows.map((r) => r.id))
      const sent = prepared.pixelIds ?? []
      return have.size === sent.length && sent.every((id) => have.has(id))
    }
    default:
      return false
  }
}

function deepLinkOf(input: DeepLink | null | undefined, url: string): DeepLink | null | undefined {
  if (!input) return input
  const derived = input.auto ? deriveDeepLink(url) : { apple: null, google: null }
  return { auto: Boolean(input.auto), apple: input.apple || derived.apple || null, google: input.google || derived.google || null }
}

const blankToNull = (v: string | null | undefined) => (v === undefined ? undefined : v === null || v.trim() === '' ? null : v)

function aliasTaken(err: unknown): boolean {
  const e = err as { constraint?: string; cause?: { constraint?: string } }
  const c = e?.constraint ?? e?.cause?.constraint ?? ''
  return isUniqueViolation(err) && (c === '' || c.includes('links_domain_alias'))
}

const takenError = (alias: string) => conflict(`custom: "${alias}" is already taken on that domain; choose another alias.`, 'custom')

async function invalidate(app: FastifyInstance, linkId: number) {
  // the write has committed; a failed broadcast must not turn it into an error (entries expire anyway)
  await app.linkCache.invalidate(linkId).catch((err: unknown) => app.log.warn({ err, linkId }, 'link cache invalidation failed'))
}

// ---------------------------------------------------------------- the service

/** Creates a link for `user` in one transaction; a 4xx leaves nothing behind. */
export async function createLink(app: FastifyInstance, user: AuthUser, rawInput: LinkInput): Promise<Link> {
  const input: LinkInput = { ...rawInput, deepLink: rawInput.deepLink ? { ...rawInput.deepLink } : rawInput.deepLink }
  const prepared = prepare(input, 'create')
  const customAlias = typeof input.alias === 'string' ? input.alias : null
  const [passwordHash, privacyPasswordHash] = await Promise.all([
    input.password ? hashPassword(input.password) : null,
    input.privacyPassword ? hashPassword(input.privacyPassword) : null,
  ])
  if (input.privacy === PRIVACY.password && !privacyPasswordHash) throw bad('privacy_password', 'is required when the statistics page is password-protected.')

  // A plain link (no targets, pixels or channel items, no link cap to hold) is one INSERT: it needs
  // no transaction and its BEGIN/COMMIT round trips. The checks before it only read.
  const single =
    (user.admin || !user.plan.maxLinks) &&
    !Object.values(prepared.targets).some((list) => list.length) &&
    !prepared.pixelIds?.length &&
    !prepared.channelIds?.length
  const write = (tx: Tx) => createIn(app, tx, user, input, prepared, customAlias, passwordHash, privacyPasswordHash)
  return single ? write(app.db as unknown as Tx) : app.db.transaction(write)
}

async function createIn(
  app: FastifyInstance,
  tx: Tx,
  user: AuthUser,
  input: LinkInput,
  prepared: Prepared,
  customAlias: string | null,
  passwordHash: string | null,
  privacyPasswordHash: string | null,
): Promise<Link> {
  const url = input.url!
  const domainId = (await resolveDomain(app, tx, user, input)) ?? null
  const typed = (await resolveType(tx, user, input, null)) ?? { type: 'direct' as const, pageId: null }
  checkFeatures(
    user,
    featuresUsed(input, prepared, {
      customAlias: customAlias !== null,
      brandedAlias: customAlias !== null && domainId !== null,
      domain: domainId !== null,
      pageType: typed.type,
    }),
  )
  await requireLinkRoom(tx, user)
  await refuseSelfLoops(app, tx, prepared.destinations)
  await checkOwned(tx, user, prepared, input)

  const metaTitle = blankToNull(input.metaTitle) ?? null
  const metaDescription = blankToNull(input.metaDescription) ?? null
  const values = {
    userId: user.id,
    domainId,
    customAlias: customAlias !== null,
    url,
    title: blankToNull(input.title) ?? metaTitle,
    description: blankToNull(input.description) ?? metaDescription,
    type: typed.type,
    pageId: typed.pageId,
    passwordHash,
    expiresAt: input.expiresAt ?? null,
    expirationUrl: input.expirationUrl ?? null,
    expirationClicks: input.expirationClicks ?? null,
    privacy: input.privacy ?? PRIVACY.private,
    privacyPasswordHash,
    disabled: input.disabled ?? false,
    metaTitle,
    metaDescription,
    metaImage: input.metaImage ?? null,
    deepLink: deepLinkOf(input.deepLink, url) ?? null,
    parameters: input.parameters ?? [],
    targetType: input.targetType ?? derivedTargetType(new Set((Object.keys(prepared.targets) as TargetKind[]).filter((k) => prepared.targets[k]!.length))),
    campaignId: input.campaignId ?? null,
  }

  let link: Link | undefined
  if (customAlias !== null) {
    // ON CONFLICT DO NOTHING waits for a concurrent insert of the same alias to settle, so two
    // racing requests end as one row and one 409, never a duplicate or an aborted transaction.
    ;[link] = await tx.insert(links).values({ ...values, alias: customAlias }).onConflictDoNothing().returning()
    if (!link) throw takenError(customAlias)
  } else {
    for (let attempt = 0; !link; attempt++) {
      if (attempt >= 10 * ATTEMPTS_PER_LENGTH) throw new Error('could not find a free random alias')
      const alias = randomAlias(6 + Math.floor(attempt / ATTEMPTS_PER_LENGTH))
      if ((RESERVED_ALIASES as readonly string[]).includes(alias.toLowerCase())) continue
      ;[link] = await tx.insert(links).values({ ...values, alias }).onConflictDoNothing().returning()
    }
  }
  await writeRelations(tx, link.id, prepared, false)
  return link
}

/** The plan's `links` cap (0 = unlimited; admins are never limited). */
async function requireLinkRoom(tx: Tx, user: AuthUser) {
  const max = user.plan.maxLinks
  if (user.admin || !max) return
  // serialise this user's creates so two racing requests cannot both take the last free slot
  await tx.select({ id: users.id }).from(users).where(eq(users.id, user.id)).for('update')
  const [{ n }] = await tx.select({ n: count() }).from(links).where(eq(links.userId, user.id))
  if (n >= max) throw forbidden(`Your plan allows ${max} links (the "links" limit); delete some or upgrade.`)
}

/**
 * Changes the fields present in `input` (undefined = keep, null = clear) of the caller's link.
 * 404 when the link is not the caller's.
 */
export async function updateLink(app: FastifyInstance, user: AuthUser, id: number, rawInput: LinkInput): Promise<Link> {
  const input: LinkInput = { ...rawInput, deepLink: rawInput.deepLink ? { ...rawInput.deepLink } : rawInput.deepLink }
  const prepared = prepare(input, 'update')
  const [passwordHash, privacyPasswordHash] = await Promise.all([
    input.password ? hashPassword(input.password) : input.password === null ? null : undefined,
    input.privacyPassword ? hashPassword(input.privacyPassword) : input.privacyPassword === null ? null : undefined,
  ])

  let alias: string | undefined
  try {
    const link = await app.db.transaction(async (tx) => {
      const [current] = await tx
        .select()
        .from(links)
        .where(and(eq(links.id, id), eq(links.userId, user.id)))
        .for('update')
      if (!current) throw notFound('Link not found.')

      const resolved = await resolveDomain(app, tx, user, input)
      const domainId = resolved === undefined ? current.domainId : resolved
      const newAlias = typeof input.alias === 'string' ? input.alias : current.alias
      alias = newAlias
      const aliasChanged = newAlias !== current.alias
      const domainChanged = domainId !== current.domainId
      const customAlias = aliasChanged ? true : current.customAlias
      const typed = await resolveType(tx, user, input, current)
      const uses = featuresUsed(input, prepared, {
        customAlias: aliasChanged,
        brandedAlias: customAlias && domainId !== null && (aliasChanged || domainChanged),
        domain: domainChanged && domainId !== null,
        pageType: typed && typed.pageId !== current.pageId ? typed.type : undefined,
      })
      const refused = user.admin ? [] : uses.filter((f) => user.plan.features[f]?.enabled !== '1')
      for (const f of refused) if (!(await unchangedUse(tx, current, f, input, prepared))) requireFeature(user, f)
      await refuseSelfLoops(app, tx, prepared.destinations)
      await checkOwned(tx, user, prepared, input)

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
      const privacyHash = privacyPasswordHash !== undefined ? privacyPasswordHash : current.privacyPasswordHash
      if ((changes.privacy ?? current.privacy) === PRIVACY.password && !privacyHash) {
        throw bad('privacy_password', 'is required when the statistics page is password-protected.')
      }
      if (input.disabled !== undefined) changes.disabled = input.disabled
      if (input.metaImage !== undefined) changes.metaImage = input.metaImage
      if (input.deepLink !== undefined) changes.deepLink = deepLinkOf(input.deepLink, url)
      if (input.parameters !== undefined) changes.parameters = input.parameters ?? []
      if (input.campaignId !== undefined) changes.campaignId = input.campaignId

      const [updated] = await tx.update(links).set(changes).where(eq(links.id, id)).returning()
      await writeRelations(tx, id, prepared, true)
      if (input.targetType !== undefined) {
        await tx.update(links).set({ targetType: input.targetType }).where(eq(links.id, id))
        updated.targetType = input.targetType
      } else if (Object.keys(prepared.targets).length) {
        const targetType = derivedTargetType(await targetKinds(tx, id))
        if (targetType !== updated.targetType) {
          await tx.update(links).set({ targetType }).where(eq(links.id, id))
          updated.targetType = targetType
        }
      }
      return updated
    })
    await invalidate(app, id)
    return link
  } catch (err) {
    if (aliasTaken(err)) throw takenError(alias ?? '')
    throw err
  }
}

/**
 * `title` (and `description`) default to the meta field. On update: sent → that value; cleared →
 * the meta field again; not sent → follows a changed meta field while it was still the default.
 */
function nextDerived(sent: string | null | undefined, current: string | null, currentMeta: string | null, nextMeta: string | null): string | null {
  if (sent === undefined) return current === null || current === currentMeta ? nextMeta : current
  return blankToNull(sent) ?? nextMeta
}

/** Deletes the caller's link, its clicks (FK cascade) and its channel items, in one transaction. */
export async function deleteLink(app: FastifyInstance, user: AuthUser, id: number): Promise<boolean> {
  const deleted = await app.db.transaction(async (tx) => {
    const [row] = await tx
      .delete(links)
      .where(and(eq(links.id, id), eq(links.userId, user.id)))
      .returning({ id: links.id })
    if (!row) return false
    await deleteChannelItemsOf(tx, [id])
    return true
  })
  if (deleted) await invalidate(app, id)
  return deleted
}

