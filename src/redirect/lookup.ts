import { randomUUID } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import type { Redis } from 'ioredis'
import { LRUCache } from 'lru-cache'
import { asc, eq, sql } from 'drizzle-orm'
import type { Db } from '../db/client.js'
import {
  domains, linkPixels, links, linkTargets, pages, pixels,
  type PixelType,
} from '../db/schema/index.js'
import type { ClickRecorder } from '../clicks/recorder.js'
import type { ResolvableLink } from './resolve.js'

export type Page = typeof pages.$inferSelect
type LinkRow = typeof links.$inferSelect

export interface ServeTarget {
  /** normalised key: ISO country code, device name or language code */
  match: string
  url: string
}

/**
 * Everything a visit of a link needs, loaded once and served from memory: what the pure resolve
 * step reads, plus what answering and recording need.
 */
export interface ServeLink extends ResolvableLink {
  id: number
  userId: number
  domainId: number | null
  alias: string
  title: string | null
  description: string | null
  privacy: number
  privacyPasswordHash: string | null
  campaignId: number | null
  targets: { device: ServeTarget[]; geo: ServeTarget[]; language: ServeTarget[]; rotation: string[] }
  pixels: { id: number; type: PixelType; tag: string }[]
  /** the custom splash page or overlay of type 'splash-page' / 'overlay' */
  page: Page | null
  /** human clicks in the database when loaded, plus those still buffered then */
  clicksBase: number
  /** human clicks this instance recorded since it loaded the link */
  localClicks: number
}

export interface ServeDomain {
  id: number
  /** scheme + host, as short URLs on it start */
  origin: string
  host: string
  redirectRoot: string | null
  redirect404: string | null
}

/** The live click count: expiry by `expiration_clicks` must not wait for a cache reload or a flush. */
export const liveClicks = (link: ServeLink) => link.clicksBase + link.localClicks

const CHANNEL = 'kurz:link-cache'
const LINK_TTL = 5 * 60_000
const HOST_TTL = 5 * 60_000
/** an unknown host is remembered briefly, so a newly added domain starts answering within seconds */
const UNKNOWN_HOST_TTL = 5_000
/** the set of every branded host (self-loop check of link writes); dropped by any domain invalidation */
const HOST_SET_TTL = 5_000

/** host[:port] as matched against domains.host: lower-case, no trailing dot, no default port. */
export function normaliseHost(host: string): string {
  return host.toLowerCase().replace(/\.(?=:|$)/, '').replace(/:(80|443)$/, '')
}

export interface LinkCacheOptions {
  db: Db
  defaultHost: string
  recorder: ClickRecorder
  log: FastifyBaseLogger
  /** publishing connection; a second one is opened for the subscription */
  redis: Redis | null
}

/**
 * Bounded LRU of links by (domain, alias) and of branded domains by host, in front of the database
 * (Dub's linkCache). Invalidated by id after any write that changes a visit; with REDIS_URL the
 * invalidation is published so every instance drops its copy.
 */
export class LinkCache {
  private readonly links = new LRUCache<string, ServeLink>({
    max: 50_000,
    ttl: LINK_TTL,
    dispose: (value, key) => {
      if (this.keyById.get(value.id) === key) this.keyById.delete(value.id)
    },
  })
  private readonly keyById = new Map<number, string>()
  private readonly hosts = new LRUCache<string, ServeDomain | false>({ max: 10_000, ttl: HOST_TTL })
  private readonly loading = new Map<string, Promise<ServeLink | null>>()
  private hostSet: { at: number; set: ReadonlySet<string> } | null = null
  /** bumped by every invalidation: a load that raced one is served but not cached */
  private generation = 0
  private readonly origin = randomUUID()
  private subscriber: Redis | null = null

  constructor(private readonly o: LinkCacheOptions) {}

  /** Subscribes to invalidations of other instances (REDIS_URL). */
  async start(): Promise<void> {
    if (!this.o.redis) return
    const sub = this.o.redis.duplicate()
    this.subscriber = sub
    sub.on('error', (err) => this.o.log.warn({ err: err.message }, 'redis subscriber error'))
    let connectedBefore = false
    let subscribed!: () => void
    const first = new Promise<void>((resolve) => (subscribed = resolve))
    sub.on('ready', () => {
      // invalidations published while we were disconnected are lost: start from an empty cache
      if (connectedBefore) this.clear()
      connectedBefore = true
      sub.subscribe(CHANNEL).then(
        () => subscribed(),
        (err: Error) => this.o.log.warn({ err: err.message }, 'redis subscribe failed; retried on reconnect'),
      )
    })
    sub.on('message', (channel, message) => {
      if (channel !== CHANNEL) return
      const [origin, kind, id] = message.split('|')
      if (origin === this.origin) return
      if (kind === 'l') this.dropLink(Number(id))
      else if (kind === 'd') this.dropDomain(Number(id))
      else if (kind === '*') this.clear()
    })
    // start serving once subscribed, but never hang the start on an unreachable Redis
    await Promise.race([first, new Promise((resolve) => setTimeout(resolve, 3_000).unref())])
  }

  async close(): Promise<void> {
    this.subscriber?.disconnect()
    this.subscriber = null
  }

  /**
   * Every branded host of the service (whoever owns it), each through `comparable`, for the
   * self-loop check of link writes: loaded with `load` and kept until a domain invalidation (local
   * or from another instance) or at most HOST_SET_TTL.
   */
  async brandedHosts(load: () => Promise<string[]>, comparable: (host: string) => string): Promise<ReadonlySet<string>> {
    const cached = this.hostSet
    if (cached && Date.now() - cached.at < HOST_SET_TTL) return cached.set
    const generation = this.generation
    const set = new Set((await load()).map(comparable))
    // a load that raced an invalidation is used once but not kept
    if (generation === this.generation) this.hostSet = { at: Date.now(), set }
    return set
  }

  /** After any update or delete of a link. */
  async invalidate(linkId: number): Promise<void> {
    this.dropLink(linkId)
    await this.publish(`l|${linkId}`)
  }

  /** After a branded domain is added, changed or deleted (its links move to the default domain). */
  async invalidateDomain(domainId: number): Promise<void> {
    this.dropDomain(domainId)
    await this.publish(`d|${domainId}`)
  }

  /** Drops everything (pixels or pages changed for many links at once). */
  async invalidateAll(): Promise<void> {
    this.clear()
    await this.publish('*|0')
  }

  /** Counts a human click served from this instance against the live expiry counter. */
  countClick(linkId: number) {
    const key = this.keyById.get(linkId)
    const link = key ? this.links.get(key) : undefined
    if (link && link.id === linkId) link.localClicks++
  }

  /** The branded domain answering on this Host, or null for the default domain (any other host). */
  async domainFor(host: string): Promise<ServeDomain | null> {
    const h = normaliseHost(host)
    if (h === this.o.defaultHost || h === '') return null
    const cached = this.hosts.get(h)
    if (cached !== undefined) return cached || null
    const generation = this.generation
    const [row] = await this.o.db
      .select({ id: domains.id, origin: domains.domain, host: domains.host, redirectRoot: domains.redirectRoot, redirect404: domains.redirect404 })
      .from(domains)
      .where(eq(domains.host, h))
    if (generation === this.generation) this.hosts.set(h, row ?? false, row ? undefined : { ttl: UNKNOWN_HOST_TTL })
    return row ?? null
  }

  /** A branded domain by id (the short URL of a link reached through the rotator). */
  async domainById(id: number): Promise<ServeDomain | null> {
    for (const d of this.hosts.values()) if (d && d.id === id) return d
    const [row] = await this.o.db
      .select({ id: domains.id, origin: domains.domain, host: domains.host, redirectRoot: domains.redirectRoot, redirect404: domains.redirect404 })
      .from(domains)
      .where(eq(domains.id, id))
    return row ?? null
  }

  /** A link by its domain (null = default) and alias, case-sensitive. */
  async byAlias(domainId: number | null, alias: string): Promise<ServeLink | null> {
    const key = `${domainId ?? 0}|${alias}`
    const hit = this.links.get(key)
    if (hit) return hit
    return this.load(key, async () => {
      const [row] = await this.o.db
        .select()
        .from(links)
        .where(sql`coalesce(${links.domainId}, 0) = ${domainId ?? 0} and ${links.alias} = ${alias}`)
      return row
    })
  }

  /** A link by id (campaign rotator). */
  async byId(id: number): Promise<ServeLink | null> {
    const key = this.keyById.get(id)
    const hit = key ? this.links.get(key) : undefined
    if (hit) return hit
    const [row] = await this.o.db.select().from(links).where(eq(links.id, id))
    if (!row) return null
    return this.load(`${row.domainId ?? 0}|${row.alias}`, async () => row)
  }

  private load(key: string, find: () => Promise<LinkRow | undefined>): Promise<ServeLink | null> {
    let p = this.loading.get(key)
    if (!p) {
      const generation = this.generation
      p = this.build(find)
        .then((link) => {
          if (link && generation === this.generation) {
            this.links.set(key, link)
            this.keyById.set(link.id, key)
          }
          return link
        })
        .finally(() => this.loading.delete(key))
      this.loading.set(key, p)
    }
    return p
  }

  private async build(find: () => Promise<LinkRow | undefined>): Promise<ServeLink | null> {
    const row = await find()
    if (!row) return null
    const db = this.o.db
    const [targetRows, pixelRows, pageRows] = await Promise.all([
      db.select().from(linkTargets).where(eq(linkTargets.linkId, row.id)).orderBy(asc(linkTargets.position), asc(linkTargets.id)),
      db
        .select({ id: pixels.id, type: pixels.type, tag: pixels.tag })
        .from(linkPixels)
        .innerJoin(pixels, eq(pixels.id, linkPixels.pixelId))
        .where(eq(linkPixels.linkId, row.id))
        .orderBy(asc(pixels.id)),
      row.pageId ? db.select().from(pages).where(eq(pages.id, row.pageId)) : Promise.resolve([] as Page[]),
    ])
    const targets: ServeLink['targets'] = { device: [], geo: [], language: [], rotation: [] }
    for (const t of targetRows) {
      if (t.kind === 'rotation') targets.rotation.push(t.url)
      else targets[t.kind].push({ match: (t.match ?? t.key ?? '').trim(), url: t.url })
    }
    const clicksBase = await this.currentClicks(row.id)
    // no await between reading the counter and caching the entry: no click can slip between them
    return {
      id: row.id,
      userId: row.userId,
      domainId: row.domainId,
      alias: row.alias,
      url: row.url,
      type: row.type,
      title: row.title,
      description: row.description,
      passwordHash: row.passwordHash,
      privacy: row.privacy,
      privacyPasswordHash: row.privacyPasswordHash,
      disabled: row.disabled,
      expiresAt: row.expiresAt ? row.expiresAt.getTime() : null,
      expirationUrl: row.expirationUrl,
      expirationClicks: row.expirationClicks,
      metaTitle: row.metaTitle,
      metaDescription: row.metaDescription,
      metaImage: row.metaImage,
      deepLink: row.deepLink,
      parameters: row.parameters ?? [],
      campaignId: row.campaignId,
      targets,
      pixels: pixelRows,
      page: pageRows[0] ?? null,
      clicksBase,
      localClicks: 0,
      lastRotation: row.lastRotation,
    }
  }

  /**
   * Human clicks of a link right now: the database counter plus the clicks still buffered. Read
   * while no batch is being written, so a batch is counted either in the database or in the
   * buffer, never in both or neither.
   */
  private async currentClicks(id: number): Promise<number> {
    const rec = this.o.recorder
    for (let attempt = 0; ; attempt++) {
      await rec.idle()
      const commits = rec.commits
      const [row] = await this.o.db.select({ clicks: links.clicks }).from(links).where(eq(links.id, id))
      if ((rec.flushing || rec.commits !== commits) && attempt < 5) continue
      return (row?.clicks ?? 0) + rec.pendingHumans(id)
    }
  }

  private dropLink(linkId: number) {
    this.generation++
    const key = this.keyById.get(linkId)
    if (key) this.links.delete(key)
    this.keyById.delete(linkId)
  }

  private dropDomain(domainId: number) {
    this.generation++
    this.hostSet = null
    for (const [host, d] of this.hosts.entries()) if (d === false || d.id === domainId) this.hosts.delete(host)
    for (const [key, link] of this.links.entries()) if (link.domainId === domainId) this.links.delete(key)
    const prefix = `${domainId}|`
    for (const key of [...this.links.keys()]) if (key.startsWith(prefix)) this.links.delete(key)
  }

  private clear() {
    this.generation++
    this.hostSet = null
    this.links.clear()
    this.keyById.clear()
    this.hosts.clear()
  }

  private async publish(message: string) {
    const redis = this.o.redis
    if (!redis) return
    // an API write must not hang on Redis trouble; the TTL bounds staleness if a message is lost
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, 1_000).unref())
    await Promise.race([redis.publish(CHANNEL, `${this.origin}|${message}`).then(() => undefined, () => undefined), timeout])
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** the redirect cache (interfaces.md item 4): call invalidate / invalidateDomain after writes */
    linkCache: LinkCache
  }
}
