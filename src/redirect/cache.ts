import type { FastifyBaseLogger } from 'fastify'
import type { Redis } from 'ioredis'
import { LRUCache } from 'lru-cache'
import { isPglite, type Db } from '../db/client.js'
import type { LiveClicks } from '../clicks/live-clicks.js'
import { sharedRun } from '../lib/shared-run.js'
import { InvalidationBus } from './invalidation.js'
import {
  findBrandedHosts, findDomainByHost, findDomainById, loadLinkById, loadLinksByAlias, toServeLink, type AliasKey, type LoadedLink, type ServeDomain, type ServeLink,
} from './loader.js'
import { batchedLoads } from './miss-loads.js'
import { RotationCache } from './rotations.js'
import { AliasKeys } from './alias-keys.js'

/**
 * A cached link older than LINK_FRESH still answers its visit, and is reloaded in the background
 * (so a working set that takes longer than that to warm, or a database that is briefly away, never
 * turns visits into misses); one older than LINK_TTL is never served. Invalidation stays exact: the
 * ages only bound what no message announced (another instance without Redis).
 */
const LINK_FRESH = 5 * 60_000
const LINK_TTL = 10 * 60_000
/** While a configured Redis is away, another instance's changes go unheard: links are reread this often. */
const OUTAGE_FRESH = 5_000
/**
 * A host's answer (its branded domain, or none) is read again once past its freshness, behind the
 * visit that finds it so; the visit is answered from memory. An unknown host is fresh briefly, so a
 * domain added where no invalidation reaches (no REDIS_URL) starts answering within seconds. Past
 * HOST_TTL (a database away for that long) an entry is not served.
 */
const HOST_FRESH = 5 * 60_000
const UNKNOWN_HOST_FRESH = 5_000
const HOST_TTL = 10 * 60_000
/**
 * Every branded host is kept (a set, read in one query) so that a host not in it is the default
 * domain without a read: a flood of made-up Host headers cost a read each. Past this many domains
 * the set is not kept and every new host is read, as before.
 */
const KNOWN_HOSTS_MAX = 50_000

interface KnownHosts {
  /** every branded host, or null: more than KNOWN_HOSTS_MAX, each host is read */
  hosts: ReadonlySet<string> | null
  loadedAt: number
}

interface HostEntry {
  /** the branded domain on this host, or null: the default domain answers */
  domain: ServeDomain | null
  /** epoch ms after which the next visit reads it again in the background */
  freshUntil: number
}

/**
 * A request's Host as branded domains are stored (`domains.host`): lower-case, no trailing dot,
 * no default port. Not the SSRF guard's host form, which drops brackets and keeps ports apart.
 */
export function servedHost(host: string): string {
  return host.toLowerCase().replace(/\.(?=:|$)/, '').replace(/:(80|443)$/, '')
}

export interface LinkCacheOptions {
  db: Db
  defaultHost: string
  /** the click pipeline's live counts: a link loaded into the cache starts from them */
  liveClicks: LiveClicks
  log: FastifyBaseLogger
  /** publishing connection; a second one is opened for the subscription */
  redis: Redis | null
  /** links held at most (REDIRECT_CACHE_SIZE) */
  maxLinks?: number
  /** LINK_FRESH and LINK_TTL, shorter in tests */
  freshMs?: number
  ttlMs?: number
  /** HOST_FRESH and UNKNOWN_HOST_FRESH, shorter in tests */
  hostFreshMs?: number
}

/**
 * Bounded LRU of links by (domain, alias) and of branded domains by host, in front of the database
 * (Dub's linkCache). Invalidated by id after any write that changes a visit; with REDIS_URL the
 * invalidation is published so every instance drops its copy.
 */
export class LinkCache {
  private readonly links: LRUCache<string, ServeLink>
  private readonly keysById = new AliasKeys()
  private readonly hosts = new LRUCache<string, HostEntry>({ max: 10_000, ttl: HOST_TTL })
  private readonly loading = new Map<string, Promise<ServeLink | null>>()
  private readonly loadingHosts = new Map<string, Promise<ServeDomain | null>>()
  /** null until read, and again after any domain invalidation until read again */
  private known: KnownHosts | null = null
  private readonly loadingKnown = new Map<0, Promise<void>>()
  /** bumped by every domain invalidation: a read of the set that raced one is not kept */
  private domainGeneration = 0
  /** bumped by every invalidation: a load that raced one is served but not cached */
  private generation = 0
  private readonly bus: InvalidationBus
  private hits = 0
  /** Host header as sent → as domains are stored */
  private readonly servedHosts = new Map<string, string>()
  private misses = 0
  private fastHits = 0
  /** misses by alias, many to a query (miss-loads.ts) */
  private readonly loadByAlias: (key: AliasKey) => Promise<LoadedLink | undefined>
  /** campaign rotators by slug, dropped with any link (a link may have joined a campaign) */
  readonly rotations: RotationCache

  constructor(private readonly o: LinkCacheOptions) {
    this.links = new LRUCache<string, ServeLink>({
      max: o.maxLinks ?? 100_000,
      ttl: o.ttlMs ?? LINK_TTL,
      dispose: (value, key) => this.keysById.remove(value.id, key),
    })
    this.bus = new InvalidationBus(o.redis, o.log)
    // PGlite runs one statement at a time; Postgres works on the next batch while this one is read
    this.loadByAlias = batchedLoads((keys) => loadLinksByAlias(o.db, keys), isPglite(o.db) ? 1 : 2)
    this.rotations = new RotationCache(o.db, { fresh: () => this.freshness(), ttl: o.ttlMs ?? LINK_TTL })
  }

  /** Subscribes to invalidations of other instances (REDIS_URL). */
  start(): Promise<void> {
    return this.bus.start({
      link: (id) => this.dropLink(id),
      domain: (id) => this.dropDomain(id),
      rotations: () => this.rotations.clear(),
      all: () => this.clear(),
    })
  }

  close(): Promise<void> {
    return this.bus.close()
  }

  /** After any update or delete of a link. */
  async invalidate(linkId: number): Promise<void> {
    this.dropLink(linkId)
    await this.bus.publish({ kind: 'link', id: linkId })
  }

  /** After a branded domain is added, changed or deleted (its links move to the default domain). */
  async invalidateDomain(domainId: number): Promise<void> {
    this.dropDomain(domainId)
    await this.bus.publish({ kind: 'domain', id: domainId })
  }

  /** After a campaign is added, changed or deleted, or a link is added to one: its rotator's list changed. */
  async invalidateRotations(): Promise<void> {
    this.rotations.clear()
    await this.bus.publish({ kind: 'rotations' })
  }

  /** Drops everything (pixels or pages changed for many links at once). */
  async invalidateAll(): Promise<void> {
    this.clear()
    await this.bus.publish({ kind: 'all' })
  }

  /**
   * Counts a human click served from this instance against the cached link's live count. The
   * entry in the cache is bumped, not the caller's copy: a reload since may have replaced it.
   */
  countClick(linkId: number) {
    const keys = this.keysById.get(linkId)
    if (keys === undefined) return
    // peek, not get: the visit's own lookup already made the entry the most recent one
    if (typeof keys === 'string') {
      const link = this.links.peek(keys)
      if (link && link.id === linkId) link.localClicks++
      return
    }
    const seen = new Set<ServeLink>()
    for (const key of keys) {
      const link = this.links.peek(key)
      if (link && link.id === linkId && !seen.has(link)) {
        seen.add(link)
        link.localClicks++
      }
    }
  }

  /**
   * The branded domain answering on this Host, or null for the default domain (any other host).
   * From memory it answers at once, not through a promise: the cached visit path awaits nothing.
   */
  domainFor(host: string): ServeDomain | null | Promise<ServeDomain | null> {
    let h = this.servedHosts.get(host)
    if (h === undefined) {
      // a few hosts make all traffic; a flood of made-up ones only empties this map now and then
      if (this.servedHosts.size >= 10_000) this.servedHosts.clear()
      this.servedHosts.set(host, (h = servedHost(host)))
    }
    if (h === this.o.defaultHost || h === '') return null
    const cached = this.hosts.get(h)
    if (cached === undefined) return this.knownHosts()?.has(h) === false ? null : this.loadDomain(h)
    // past its freshness it still answers: on PGlite the read could wait behind a click batch
    if (cached.freshUntil < Date.now() && !this.loadingHosts.has(h)) this.loadDomain(h).catch(() => {})
    return cached.domain
  }

  /** One read per host at a time: every visit in flight that asks for it shares the one read. */
  private loadDomain(host: string): Promise<ServeDomain | null> {
    return sharedRun(this.loadingHosts, host, async () => {
      const generation = this.generation
      const row = (await findDomainByHost(this.o.db, host)) ?? null
      const fresh = this.o.hostFreshMs ?? (row ? HOST_FRESH : UNKNOWN_HOST_FRESH)
      if (generation === this.generation) this.hosts.set(host, { domain: row, freshUntil: Date.now() + fresh })
      return row
    })
  }

  /**
   * The set of branded hosts when it may answer: read first, then again behind a lookup once past
   * its freshness (a domain added where no invalidation reaches answers within UNKNOWN_HOST_FRESH,
   * as an unknown host's own entry did). Null while not read: each host is read meanwhile.
   */
  private knownHosts(): ReadonlySet<string> | null {
    const k = this.known
    const age = k === null ? Infinity : Date.now() - k.loadedAt
    // with Redis heard, a domain added anywhere drops the set (dropDomain): it may stay as long as a host's entry
    const fresh = this.o.hostFreshMs ?? (this.bus.heard ? HOST_FRESH : UNKNOWN_HOST_FRESH)
    if (age > fresh && this.loadingKnown.size === 0) this.loadKnown().catch(() => {})
    return age < HOST_TTL ? k!.hosts : null
  }

  private loadKnown(): Promise<void> {
    return sharedRun(this.loadingKnown, 0, async () => {
      const generation = this.domainGeneration
      const rows = await findBrandedHosts(this.o.db, KNOWN_HOSTS_MAX + 1)
      // a read that raced an invalidation may lack the domain it announced
      if (generation === this.domainGeneration) this.known = { hosts: rows.length > KNOWN_HOSTS_MAX ? null : new Set(rows), loadedAt: Date.now() }
    })
  }

  /** A branded domain by id (the short URL of a link reached through the rotator). */
  async domainById(id: number): Promise<ServeDomain | null> {
    for (const e of this.hosts.values()) if (e.domain && e.domain.id === id) return e.domain
    const generation = this.generation
    const row = await findDomainById(this.o.db, id)
    // kept under its host, where the next rotator visit of its links finds it without a query
    if (row && generation === this.generation) this.hosts.set(row.host, { domain: row, freshUntil: Date.now() + HOST_FRESH })
    return row
  }

  /** A link by its domain (null = default) and alias, case-sensitive; a cached one at once, not through a promise. */
  byAlias(domainId: number | null, alias: string): ServeLink | Promise<ServeLink | null> {
    const hit = this.peek(domainId, alias)
    if (hit) {
      this.hits++
      return hit
    }
    this.misses++
    const key = `${domainId ?? 0}|${alias}`
    return this.load(key, () => this.loadByAlias({ d: domainId ?? 0, alias }), key)
  }

  /**
   * A cached link, or undefined: never a read, and not counted. The cached visit path
   * (fast-path.ts) counts what it serves (countFastHit); what it leaves to Fastify is counted by byAlias.
   */
  peek(domainId: number | null, alias: string): ServeLink | undefined {
    const key = `${domainId ?? 0}|${alias}`
    const hit = this.links.get(key)
    if (hit && this.aged(hit)) this.refresh(key, () => this.loadByAlias({ d: domainId ?? 0, alias }), key)
    return hit
  }

  /** A visit the cached visit path answered from `peek`: a hit, and one Fastify never saw. */
  countFastHit() {
    this.hits++
    this.fastHits++
  }

  /** A link by id (campaign rotator). */
  async byId(id: number): Promise<ServeLink | null> {
    const keys = this.keysById.get(id)
    for (const key of typeof keys === 'string' ? [keys] : (keys ?? [])) {
      const hit = this.links.get(key)
      if (hit && hit.alias === key.slice(key.indexOf('|') + 1)) {
        this.hits++
        if (this.aged(hit)) this.refresh(`#${id}`, () => loadLinkById(this.o.db, id))
        return hit
      }
    }
    this.misses++
    // one query: the link is cached under its current alias, known once it is read
    return this.load(`#${id}`, () => loadLinkById(this.o.db, id))
  }

  /**
   * Whether a link or a domain is being read now: a visit's miss, or an aged link's or host's
   * reload in the background (brief, and not told apart). The click recorder holds its batch meanwhile.
   */
  waiting(): boolean {
    return this.loading.size > 0 || this.loadingHosts.size > 0
  }

  /** Lookups answered from memory and from the database since start, those of them answered before Fastify, and links held now (/metrics). */
  stats(): { hits: number; misses: number; fast: number; size: number } {
    return { hits: this.hits, misses: this.misses, fast: this.fastHits, size: this.links.size }
  }

  /** How long a cached link (or rotator) is fresh now: briefly while other instances' changes go unheard. */
  private freshness(): number {
    return this.bus.down ? OUTAGE_FRESH : (this.o.freshMs ?? LINK_FRESH)
  }

  /** Whether a cached link is past its freshness: read from the link, not a second lookup of the cache. */
  private aged(link: ServeLink): boolean {
    return Date.now() - link.loadedAt > this.freshness()
  }

  /** Reloads an aged entry while it keeps answering; a link gone since is dropped, an error keeps it. */
  private refresh(pending: string, find: () => Promise<LoadedLink | undefined>, key?: string) {
    if (this.loading.has(pending)) return
    this.load(pending, find, key).then(
      (link) => {
        if (!link && key) this.links.delete(key)
      },
      () => {},
    )
  }

  /** `pending` dedupes concurrent loads; the link is cached under `key`, else its current alias. */
  private load(pending: string, find: () => Promise<LoadedLink | undefined>, key?: string): Promise<ServeLink | null> {
    return sharedRun(this.loading, pending, async () => {
      const generation = this.generation
      const link = await this.build(find)
      if (link && generation === this.generation) this.remember(key ?? `${link.domainId ?? 0}|${link.alias}`, link)
      return link
    })
  }

  private remember(key: string, link: ServeLink) {
    this.links.set(key, link)
    this.keysById.add(link.id, key)
  }

  /**
   * One query reads the link with its stored counter. Only a link capped by clicks needs that
   * counter exact (the live count decides its expiry): it is read again inside LiveClicks.count,
   * which waits for no click batch being written and repeats the read if one committed meanwhile,
   * so the counter and the buffered clicks added to it agree. An uncapped link is served from the
   * first read at once: under steady traffic some batch is nearly always being written, and every
   * miss waited for it. The link's id is known only once the row is read, hence its buffered clicks
   * are added here (count is asked for link 0, which has none), with nothing awaited in between.
   */
  private async build(find: () => Promise<LoadedLink | undefined>): Promise<ServeLink | null> {
    let row = await find()
    if (!row) return null
    if (row.expirationClicks === null || row.expirationClicks <= 0) return toServeLink(row, row.clicks + this.o.liveClicks.pendingOf(row.id))
    const stored = await this.o.liveClicks.count(0, async () => {
      row = await find()
      return row?.clicks ?? 0
    })
    if (!row) return null
    return toServeLink(row, stored + this.o.liveClicks.pendingOf(row.id))
  }

  private dropLink(linkId: number) {
    this.generation++
    this.rotations.clear()
    const keys = this.keysById.get(linkId)
    for (const key of typeof keys === 'string' ? [keys] : [...(keys ?? [])]) this.links.delete(key)
    this.keysById.drop(linkId)
  }

  private dropDomain(domainId: number) {
    this.generation++
    this.domainGeneration++
    this.known = null
    for (const [host, e] of this.hosts.entries()) if (e.domain === null || e.domain.id === domainId) this.hosts.delete(host)
    for (const [key, link] of this.links.entries()) if (link.domainId === domainId) this.links.delete(key)
    const prefix = `${domainId}|`
    for (const key of [...this.links.keys()]) if (key.startsWith(prefix)) this.links.delete(key)
  }

  private clear() {
    this.generation++
    this.rotations.clear()
    this.links.clear()
    this.keysById.clear()
    this.hosts.clear()
    this.domainGeneration++
    this.known = null
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The redirect cache. Writes that change what a visit gets call invalidate / invalidateDomain /
     * invalidateAll after they commit, or visits keep the old answer until the TTL.
     */
    linkCache: LinkCache
  }
}
