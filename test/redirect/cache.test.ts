import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { eq } from 'drizzle-orm'
import type pg from 'pg'
import { buildApp } from '../../src/app.js'
import { domains, links } from '../../src/db/schema/index.js'
import { LinkCache } from '../../src/redirect/cache.js'
import { liveClicks, type ServeDomain } from '../../src/redirect/loader.js'
import { hotName } from '../../src/db/hot-statements.js'
import { LiveClicks } from '../../src/clicks/live-clicks.js'
import { appWith, testApp, testConfig, type TestApp, type TestUser } from '../helpers/app.js'
import { addLink, addV1Link, makeDomain } from '../helpers/fixtures.js'
import { redisUp, TEST_REDIS_URL } from '../helpers/redis.js'
import { eventually } from '../helpers/wait.js'
import { expectPage, expectRedirect, visit } from '../helpers/visits.js'

const REDIS_URL = TEST_REDIS_URL

/** Waits until the cache answers made-up hosts from its set of branded hosts (read behind the first lookup). */
async function hostSetRead(cache: LinkCache) {
  let n = 0
  await eventually(() => cache.domainFor(`probe${n++}.made-up.test`) === null, 'the set of branded hosts was read')
}

/** Two instances on one database: a write on one drops the cached link on the other (REDIS_URL). */
describe.skipIf(!(await redisUp()))('redirect cache across instances through Redis', () => {
  let t: TestApp
  let other: FastifyInstance
  let pro: TestUser

  beforeAll(async () => {
    t = await testApp({ REDIS_URL })
    other = await buildApp(testConfig({ REDIS_URL }), { db: t.handle })
    await other.ready()
    pro = await t.makeUser({ plan: 'pro' })
  })
  afterAll(async () => {
    await other?.close()
    await t?.close()
  })

  const onOther = (path: string, host = 'kurz.test') => other.inject({ method: 'GET', url: path, headers: { host } })

  it('an update and a delete on one instance reach the cache of the other', async () => {
    const id = await addLink(pro, { url: 'https://example.com/first', custom: 'shared1' })
    expectRedirect(await onOther('/shared1'), 302, 'https://example.com/first') // now cached on the other instance
    expect((await pro.api.put(`/api/url/${id}/update`, { url: 'https://example.com/second' })).statusCode).toBe(200)
    await eventually(async () => (await onOther('/shared1')).headers.location === 'https://example.com/second', 'the update reached the other instance')
    expect((await pro.api.del(`/api/url/${id}/delete`)).statusCode).toBe(200)
    await eventually(async () => (await onOther('/shared1')).statusCode === 404, 'the delete reached the other instance')
    expectPage(await onOther('/shared1'), 404)
  })

  it('a domain change on one instance reaches the other', async () => {
    const d = await pro.api.post('/api/domain/add', { domain: 'https://go.shared.test', redirectroot: 'https://shared.test/a' })
    expect(d.statusCode).toBe(200)
    expectRedirect(await onOther('/', 'go.shared.test'), 302, 'https://shared.test/a')
    expect((await pro.api.put(`/api/domain/${d.json().id}/update`, { redirectroot: 'https://shared.test/b' })).statusCode).toBe(200)
    await eventually(async () => (await onOther('/', 'go.shared.test')).headers.location === 'https://shared.test/b', 'the domain change reached the other instance')
  })

  it('a domain added on one instance serves on the other, whose set of branded hosts did not have it', async () => {
    const host = 'go.late-shared.test'
    await hostSetRead(other.linkCache)
    expectPage(await onOther('/late2', host), 404)
    expect((await pro.api.post('/api/domain/add', { domain: `https://${host}` })).statusCode).toBe(200)
    await addLink(pro, { url: 'https://example.com/late-shared', custom: 'late2', domain: host })
    await eventually(async () => (await onOther('/late2', host)).statusCode === 302, 'the domain reached the other instance')
    expectRedirect(await onOther('/late2', host), 302, 'https://example.com/late-shared')
  })

  it('the writing instance itself never serves a stale link', async () => {
    const id = await addLink(pro, { url: 'https://example.com/v1', custom: 'local1' })
    expectRedirect(await visit(t, '/local1'), 302, 'https://example.com/v1')
    await pro.api.put(`/api/url/${id}/update`, { url: 'https://example.com/v2' })
    expectRedirect(await visit(t, '/local1'), 302, 'https://example.com/v2')
  })
})

/** One instance: what a miss loads, and the hit rate /metrics reports. */
describe('redirect cache on one instance', () => {
  let t: TestApp
  let pro: TestUser

  beforeAll(async () => {
    ;[t, pro] = await appWith({ plan: 'pro' })
  })
  afterAll(() => t?.close())

  const counted = async () => {
    const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body
    const n = (result: string) => Number(new RegExp(`^kurz_redirect_cache_lookups_total\\{result="${result}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? NaN)
    return { hit: n('hit'), miss: n('miss'), ratio: /^kurz_redirect_cache_hit_ratio (\S+)$/m.exec(text)?.[1] }
  }

  it('counts a first visit as a miss and the next ones as hits in /metrics', async () => {
    await addLink(pro, { url: 'https://example.com/counted', custom: 'counted1' })
    const before = await counted()
    expectRedirect(await visit(t, '/counted1'), 302, 'https://example.com/counted')
    expectRedirect(await visit(t, '/counted1'), 302, 'https://example.com/counted')
    expectRedirect(await visit(t, '/counted1'), 302, 'https://example.com/counted')
    const after = await counted()
    expect(after.miss - (before.miss || 0)).toBe(1)
    expect(after.hit - (before.hit || 0)).toBe(2)
    expect(Number(after.ratio)).toBeGreaterThan(0)
  })

  it('a miss loads the link with its targets in order, and an earlier alias still serves it', async () => {
    const id = await addLink(pro, {
      url: 'https://example.com/web',
      custom: 'loaded1',
      devicetarget: [{ device: 'iPhone', link: 'https://example.com/iphone' }],
      languagetarget: [{ language: 'fr', link: 'https://example.com/fr' }],
    })
    expectRedirect(await visit(t, '/loaded1', { headers: { 'user-agent': 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)' } }), 302, 'https://example.com/iphone')
    expectRedirect(await visit(t, '/loaded1', { headers: { 'accept-language': 'fr-CH, en;q=0.8' } }), 302, 'https://example.com/fr')
    const renamed = await pro.api.put(`/api/url/${id}/update`, { url: 'https://example.com/web', custom: 'loaded2' })
    expect(renamed.statusCode).toBe(200)
    expectRedirect(await visit(t, '/loaded1', { headers: { 'user-agent': 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)' } }), 302, 'https://example.com/iphone')
    expectRedirect(await visit(t, '/loaded2'), 302, 'https://example.com/web')
  })

  it('reads an unknown host once for all the visits that ask for it at the same time, then remembers it', async () => {
    let reads = 0
    const db = new Proxy(t.app.db, {
      get: (target, prop, receiver) => {
        if (prop === 'select') reads++
        return Reflect.get(target, prop, receiver)
      },
    })
    const cache = new LinkCache({ db, defaultHost: 'kurz.test', liveClicks: new LiveClicks(), log: t.app.log, redis: null })
    const answers = await Promise.all(Array.from({ length: 20 }, () => cache.domainFor('unknown-host.test')))
    expect(answers).toEqual(Array.from({ length: 20 }, () => null))
    expect(reads).toBe(2) // the host, and behind it the set of branded hosts
    expect(cache.domainFor('unknown-host.test')).toBeNull()
    expect(reads).toBe(2)
  })

  it('answers made-up hosts from the set of branded hosts, with no read each, and still reads a branded one', async () => {
    let reads = 0
    const db = new Proxy(t.app.db, {
      get: (target, prop, receiver) => {
        if (prop === 'select') reads++
        return Reflect.get(target, prop, receiver)
      },
    })
    const added = await pro.api.post('/api/domain/add', { domain: 'https://go.set-known.test' })
    expect(added.statusCode).toBe(200)
    const cache = new LinkCache({ db, defaultHost: 'kurz.test', liveClicks: new LiveClicks(), log: t.app.log, redis: null })
    await hostSetRead(cache)
    const before = reads
    for (let i = 0; i < 200; i++) expect(cache.domainFor(`h${i}.made-up.test:8080`)).toBeNull()
    expect(reads).toBe(before)
    expect(((await cache.domainFor('go.set-known.test')) as ServeDomain).id).toBe(added.json().id)
    expect(reads).toBe(before + 1)
  })

  it('a domain added right after a visit to its host was a 404 serves the next visit', async () => {
    const host = 'go.late.test'
    await addLink(pro, { url: 'https://example.com/default-late', custom: 'late1' })
    await hostSetRead(t.app.linkCache)
    expectPage(await visit(t, '/nothing-late', { host }), 404) // answered from the set, with no read of the host
    expectRedirect(await visit(t, '/late1', { host }), 302, 'https://example.com/default-late') // the default domain's link
    expect((await pro.api.post('/api/domain/add', { domain: `https://${host}` })).statusCode).toBe(200)
    await addLink(pro, { url: 'https://example.com/branded-late', custom: 'late1', domain: host })
    expectRedirect(await visit(t, '/late1', { host }), 302, 'https://example.com/branded-late')
  })

  it('counts a click on the entry the cache holds now, not on a copy a reload has replaced', async () => {
    const id = await addV1Link(t, pro, { url: 'https://example.com/held', alias: 'held1', expiration_clicks: '10' })
    const cache = t.app.linkCache
    const first = await cache.byAlias(null, 'held1')
    expect(first).not.toBeNull()
    const before = first!.localClicks
    cache.countClick(id)
    expect(first!.localClicks).toBe(before + 1)
    // a write drops the entry and the next lookup caches another copy: later clicks land on that one
    await cache.invalidate(id)
    const second = await cache.byAlias(null, 'held1')
    expect(second).not.toBe(first)
    const [a, b] = [first!.localClicks, second!.localClicks]
    cache.countClick(id)
    expect([first!.localClicks, second!.localClicks]).toEqual([a, b + 1])
  })
})

/** An aged entry keeps answering while it is reloaded; a change no message announced shows after the reload. */
describe('aged cache entries', () => {
  let t: TestApp
  let pro: TestUser
  beforeAll(async () => { [t, pro] = await appWith({ plan: 'pro' }) })
  afterAll(() => t?.close())

  const cacheOf = () =>
    new LinkCache({ db: t.app.db, defaultHost: 'kurz.test', liveClicks: t.app.clicks.live, log: t.app.log, redis: null, freshMs: 100, ttlMs: 600_000 })
  const urlOf = async (cache: LinkCache, alias: string) => (await cache.byAlias(null, alias))?.url ?? null
  const aged = () => new Promise((r) => setTimeout(r, 250))

  it('serves the cached link once aged, reloads it behind the visit, then serves what the database holds', async () => {
    const id = await addLink(pro, { url: 'https://example.com/old', custom: 'aged1' })
    const cache = cacheOf()
    expect(await urlOf(cache, 'aged1')).toBe('https://example.com/old')
    // fresh: from memory with no reload (checked at once: the update below may outlast the freshness)
    expect(await urlOf(cache, 'aged1')).toBe('https://example.com/old')
    expect(cache.waiting()).toBe(false)
    await t.app.db.update(links).set({ url: 'https://example.com/new' }).where(eq(links.id, id)) // behind the cache's back
    await aged()
    const before = cache.stats().misses
    expect(await urlOf(cache, 'aged1')).toBe('https://example.com/old') // aged: answered from memory...
    await eventually(async () => (await urlOf(cache, 'aged1')) === 'https://example.com/new', 'the aged entry was reloaded')
    expect(cache.stats().misses).toBe(before) // ...and never a miss
  })

  it('answers a host past its freshness from memory, reads it again behind the visit, then answers what the database holds', async () => {
    const host = 'go.aged-host.test'
    const cache = new LinkCache({ db: t.app.db, defaultHost: 'kurz.test', liveClicks: t.app.clicks.live, log: t.app.log, redis: null, hostFreshMs: 100 })
    expect(await cache.domainFor(host)).toBeNull() // unknown: read, then remembered
    // fresh: answered from memory with no read (checked at once: the API call below may outlast the freshness)
    expect(cache.domainFor(host)).toBeNull()
    expect(cache.waiting()).toBe(false)
    // added through the API: the app's own cache is told, this one (no Redis) is not; it reads only when asked
    const added = await pro.api.post('/api/domain/add', { domain: `https://${host}`, redirectroot: 'https://aged-host.test/a' })
    expect(added.statusCode).toBe(200)
    await aged()
    // past its freshness: the old answer at once, not a promise of a read...
    expect(cache.domainFor(host)).toBeNull()
    expect(cache.waiting()).toBe(true)
    // ...and the read behind it brings the domain in
    await eventually(async () => (cache.domainFor(host) as ServeDomain | null)?.redirectRoot === 'https://aged-host.test/a', 'the aged host was read again')
    await t.app.db.update(domains).set({ redirectRoot: 'https://aged-host.test/b' }).where(eq(domains.host, host)) // behind its back
    await aged()
    const stale = cache.domainFor(host)
    expect(stale).not.toBeInstanceOf(Promise)
    expect((stale as ServeDomain).redirectRoot).toBe('https://aged-host.test/a')
    await eventually(async () => (cache.domainFor(host) as ServeDomain | null)?.redirectRoot === 'https://aged-host.test/b', 'the changed domain was read again')
  })

  it('a domain added where no invalidation reaches answers once the set of branded hosts is past its freshness', async () => {
    const host = 'go.unheard.test'
    const cache = new LinkCache({ db: t.app.db, defaultHost: 'kurz.test', liveClicks: t.app.clicks.live, log: t.app.log, redis: null, hostFreshMs: 100 })
    await hostSetRead(cache)
    expect(cache.domainFor(host)).toBeNull()
    const id = (await makeDomain(t, pro.user.id, `https://${host}`)).id // behind the cache's back
    expect(cache.domainFor(host)).toBeNull() // fresh: from memory
    await eventually(async () => ((await cache.domainFor(host)) as ServeDomain | null)?.id === id, 'the set was read again, then the host')
  })

  it('drops an aged link that is gone from the database', async () => {
    const id = await addLink(pro, { url: 'https://example.com/gone', custom: 'aged2' })
    const cache = cacheOf()
    expect(await urlOf(cache, 'aged2')).toBe('https://example.com/gone')
    await t.app.db.delete(links).where(eq(links.id, id))
    await aged()
    await urlOf(cache, 'aged2')
    await eventually(async () => (await urlOf(cache, 'aged2')) === null, 'the deleted link left the cache')
  })
})

/**
 * A miss while a click batch is being written: only a link capped by clicks waits for the batch,
 * so that its stored counter and the buffered clicks agree; any other link is served at once.
 */
describe('cache misses while a click batch is written', () => {
  let t: TestApp
  let pro: TestUser
  beforeAll(async () => {
    ;[t, pro] = await appWith({ plan: 'pro' })
  })
  afterAll(() => t?.close())

  it('an uncapped link is loaded at once; a capped one once the batch is written, with its exact count', async () => {
    await addLink(pro, { url: 'https://example.com/uncapped', custom: 'nocap1' })
    const capped = await addV1Link(t, pro, { url: 'https://example.com/capped', alias: 'cap1', expiration_clicks: '10' })
    await t.app.db.update(links).set({ clicks: 3 }).where(eq(links.id, capped))
    const live = new LiveClicks()
    const cache = new LinkCache({ db: t.app.db, defaultHost: 'kurz.test', liveClicks: live, log: t.app.log, redis: null })
    live.buffered(capped)
    live.batchStarted() // a batch holding that click is being written, and stays so
    let cappedLoaded = false
    const cappedLoad = Promise.resolve(cache.byAlias(null, 'cap1')).then((l) => {
      cappedLoaded = true
      return l
    })
    expect((await cache.byAlias(null, 'nocap1'))?.url).toBe('https://example.com/uncapped')
    // the same database has answered the uncapped miss and one more query: the capped one still waits
    await t.app.db.select({ id: links.id }).from(links).where(eq(links.id, capped))
    expect(cappedLoaded).toBe(false)
    // the batch commits: the click is stored and leaves the buffer
    await t.app.db.update(links).set({ clicks: 4 }).where(eq(links.id, capped))
    live.left([capped])
    live.batchCommitted()
    live.batchEnded()
    const link = await cappedLoad
    expect(link && liveClicks(link)).toBe(4)
  })
})

/**
 * Postgres: the cache-miss loads are named statements, prepared once per connection. A pooler in
 * transaction mode can hand this client a server connection that lacks them; the loads then go back
 * to unnamed statements instead of failing the visit.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)('cache-miss loads on Postgres', () => {
  let t: TestApp
  let pro: TestUser

  beforeAll(async () => {
    ;[t, pro] = await appWith({ plan: 'pro' })
  })
  afterAll(() => t?.close())

  it('are named statements, and a server connection that lost them (a pooler) falls back to unnamed ones', async () => {
    for (const n of [1, 2, 3]) await addLink(pro, { url: `https://example.com/named${n}`, custom: `named${n}` })
    expectRedirect(await visit(t, '/named1'), 302, 'https://example.com/named1')
    // every connection of the pool: the named load is there on the one that served the miss
    const pool = (t.app.db as unknown as { $client: pg.Pool }).$client
    const clients = await Promise.all(Array.from({ length: pool.totalCount }, () => pool.connect()))
    try {
      const found = await Promise.all(
        clients.map(async (c) => (await c.query(`select name, statement, parameter_types::text[] as types from pg_prepared_statements where name like 'kurz\\_links\\_by\\_alias\\_%'`)).rows[0]),
      )
      const load = found.find(Boolean) as { name: string; statement: string; types: string[] }
      expect(load.statement).toContain('"links"')
      // named after its text: another release's text (behind a shared pooler) has another name
      expect(load.name).toBe(hotName('kurz_links_by_alias', load.statement))
      // every connection prepares it (as its next miss would), then loses it, as behind a pooler
      const values = load.types.map((type) => (type === 'json' ? '[]' : type === 'integer' ? 0 : 'nothing-here'))
      for (const c of clients) {
        await c.query({ name: load.name, text: load.statement, values })
        await c.query('deallocate all')
      }
    } finally {
      for (const c of clients) c.release()
    }
    expectRedirect(await visit(t, '/named2'), 302, 'https://example.com/named2')
    expectRedirect(await visit(t, '/named3'), 302, 'https://example.com/named3')
  })
})
