import { request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { clicks, links } from '../../src/db/schema/index.js'
import { buildApp } from '../../src/app.js'
import { createUser } from '../../src/resources/admin/users.js'
import { testApp, testConfig, testDatabase, type TestApp, type TestUser } from '../helpers/app.js'
import { addLink, countRows, insertLink, makeDomain, makePixel } from '../helpers/fixtures.js'
import { UA } from './user-agents.js'
import { lineSink } from '../helpers/log-lines.js'

/*
 * The cached visit path (redirect/fast-path.ts) answers plain redirects of cached links before
 * Fastify sees them. app.inject always takes Fastify's path, so here each request goes over real
 * HTTP and its answer is compared with the one Fastify's handler gives the same request (inject,
 * same headers, same address): status, every header but the connection's own, body.
 */

interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

interface Ask {
  method?: string
  headers?: Record<string, string>
}

/** The connection's own headers, which inject does not make. */
const CONNECTION = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding'])

function comparable(a: Answer) {
  const headers = Object.fromEntries(Object.entries(a.headers).filter(([k]) => !CONNECTION.has(k)))
  return { status: a.status, headers, body: a.body }
}

function overHttp(origin: string, path: string, o: Ask = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${origin}${path}`, { method: o.method ?? 'GET', headers: { host: 'kurz.test', ...o.headers } }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => (body += c))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

async function throughFastify(t: TestApp, path: string, o: Ask = {}): Promise<Answer> {
  const res = await t.app.inject({ method: (o.method ?? 'GET') as 'GET', url: path, headers: { host: 'kurz.test', ...o.headers }, remoteAddress: '127.0.0.1' })
  return { status: res.statusCode, headers: res.headers as Answer['headers'], body: res.body }
}

const fastCount = (t: TestApp) => t.app.linkCache.stats().fast

describe('cached visits answered before Fastify', () => {
  let t: TestApp
  let pro: TestUser
  let origin: string

  /** Asks over HTTP and through Fastify; expects the same answer, and says whether the fast path gave it. */
  async function same(path: string, o: Ask = {}): Promise<{ answer: Answer; fast: boolean }> {
    const before = fastCount(t)
    const answer = await overHttp(origin, path, o)
    const fast = fastCount(t) > before
    expect(comparable(answer), `${o.method ?? 'GET'} ${path}`).toEqual(comparable(await throughFastify(t, path, o)))
    return { answer, fast }
  }

  /** The first visit of a link reads it (a miss, Fastify's); the cache holds it from then on. */
  async function warm(path: string, o: Ask = {}) {
    await throughFastify(t, path, o)
  }

  beforeAll(async () => {
    // one proxy in front: the client address and host come from the X-Forwarded-* headers
    t = await testApp({ TRUST_PROXY: '1' })
    pro = await t.makeUser({ plan: 'pro' })
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
  })
  afterAll(() => t?.close())

  it('answers a cached plain redirect itself, with the headers Fastify would send, the query passed on', async () => {
    await addLink(pro, { url: 'https://example.com/landing?a=1', custom: 'plain1' })
    await warm('/plain1')
    for (const path of ['/plain1', '/plain1?utm_source=x&b=%20c']) {
      const { answer, fast } = await same(path)
      expect(fast, path).toBe(true)
      expect(answer.status).toBe(302)
      expect(answer.headers['cache-control']).toBe('private, max-age=0')
    }
    expect((await overHttp(origin, '/plain1?q=2')).headers.location).toBe('https://example.com/landing?a=1&q=2')
  })

  it("uses the link's own status and cache lifetime", async () => {
    await addLink(pro, { url: 'https://example.com/kept', custom: 'kept1', redirectstatus: 301, cachettl: 3600 })
    await warm('/kept1')
    const { answer, fast } = await same('/kept1')
    expect(fast).toBe(true)
    expect(answer.status).toBe(301)
    expect(answer.headers['cache-control']).toBe('public, max-age=3600')
  })

  it('picks targets by device, language and country (X-Forwarded-For through the trusted proxy) as Fastify does', async () => {
    await addLink(pro, {
      url: 'https://example.com/world',
      custom: 'aimed1',
      devicetarget: [{ device: 'iPhone', link: 'https://example.com/iphone' }],
      languagetarget: [{ language: 'fr', link: 'https://example.com/fr' }],
      geotarget: [{ location: 'United Kingdom', link: 'https://example.com/uk' }],
    })
    await warm('/aimed1')
    const asks: [Ask, string][] = [
      [{ headers: { 'user-agent': UA.iPhone } }, 'https://example.com/iphone'],
      [{ headers: { 'accept-language': 'fr-FR' } }, 'https://example.com/fr'],
      [{ headers: { 'x-forwarded-for': '81.2.69.142' } }, 'https://example.com/uk'],
      [{ headers: { 'user-agent': UA.windows } }, 'https://example.com/world'],
    ]
    for (const [ask, where] of asks) {
      const { answer, fast } = await same('/aimed1', ask)
      expect(fast).toBe(true)
      expect(answer.headers.location).toBe(where)
      // the destination depends on the visitor: no shared cache may keep it
      expect(answer.headers['cache-control']).toBe('private, max-age=0')
    }
  })

  it('serves a branded domain by its Host, and by X-Forwarded-Host from the trusted proxy', async () => {
    const domain = await makeDomain(t, pro.user.id, 'https://go.brand.test')
    await addLink(pro, { url: 'https://example.com/branded', custom: 'br1', domain: domain.domain })
    await warm('/br1', { headers: { host: 'go.brand.test' } })
    const hosts: Record<string, string>[] = [{ host: 'go.brand.test' }, { 'x-forwarded-host': 'go.brand.test' }]
    for (const headers of hosts) {
      const { answer, fast } = await same('/br1', { headers })
      expect(fast).toBe(true)
      expect(answer.headers.location).toBe('https://example.com/branded')
    }
    // on the default domain the alias is not that link
    const { answer } = await same('/br1')
    expect(answer.status).toBe(404)
  })

  it('answers HEAD without counting it, and a bot as a bot hit', async () => {
    await addLink(pro, { url: 'https://example.com/counted', custom: 'counted1' })
    await warm('/counted1', { method: 'HEAD' })
    expect((await same('/counted1', { method: 'HEAD' })).fast).toBe(true)
    expect((await same('/counted1', { headers: { 'user-agent': UA.googlebot } })).fast).toBe(true)
    expect((await same('/counted1')).fast).toBe(true)
    // a link-preview fetcher of a link without meta tags is redirected like anyone
    expect((await same('/counted1', { headers: { 'user-agent': 'facebookexternalhit/1.1' } })).fast).toBe(true)
    await t.app.clicks.flush()
    const [row] = await t.app.db.select({ id: links.id }).from(links).where(eq(links.alias, 'counted1'))
    // each `same` visits twice (HTTP, then Fastify): 2 human GETs, 4 bot GETs, no HEAD
    const stored = await t.app.db.select({ bot: clicks.bot }).from(clicks).where(eq(clicks.linkId, row.id))
    expect(stored.map((c) => c.bot).sort()).toEqual([false, false, true, true, true, true])
  })

  it('leaves to Fastify every visit that is not a plain redirect of a cached link', async () => {
    const pixel = await makePixel(t, pro.user.id)
    await addLink(pro, { url: 'https://example.com/locked', custom: 'locked1', password: 'secret12' })
    await addLink(pro, { url: 'https://example.com/pix', custom: 'pix1', pixels: [pixel.id] })
    await insertLink(t, pro.user.id, { alias: 'off1', url: 'https://example.com/off', disabled: true })
    await insertLink(t, pro.user.id, { alias: 'old1', url: 'https://example.com/old', expiresAt: new Date(Date.now() - 60_000) })
    await insertLink(t, pro.user.id, { alias: 'cap1', url: 'https://example.com/capped', expirationClicks: 100 })
    await addLink(pro, { url: 'https://example.com/new', custom: 'fresh1' })
    await addLink(pro, { url: 'https://example.com/meta', custom: 'meta1', metatitle: 'Shared' })
    for (const path of ['/locked1', '/pix1', '/off1', '/old1', '/cap1', '/meta1']) await warm(path)

    const asks: [string, Ask, number][] = [
      ['/fresh1', {}, 302], // not cached yet: read by Fastify's handler
      ['/locked1', {}, 200], // the password form
      ['/pix1', {}, 200], // the pixel page
      ['/off1', {}, 404],
      ['/old1', {}, 410],
      ['/cap1', {}, 302], // a click cap is claimed in the database
      ['/meta1', { headers: { 'user-agent': 'facebookexternalhit/1.1' } }, 200], // a crawler gets the link's meta tags
      ['/plain1', { method: 'POST' }, 302],
      ['/nothing-here', {}, 404],
      ['/API', {}, 404], // an API client's misspelt path: the JSON 404
      ['/plain1+', {}, 404], // the statistics page (of a private link: the 404 page)
      ['/healthz', {}, 200],
      ['/login', {}, 200],
    ]
    for (const [path, ask, status] of asks) {
      const before = fastCount(t)
      const answer = await overHttp(origin, path, ask)
      expect(fastCount(t), `${path} ${JSON.stringify(ask)}`).toBe(before)
      expect(answer.status, path).toBe(status)
    }
    // the same answers Fastify gives (the pages without a per-answer nonce)
    for (const path of ['/off1', '/old1', '/nothing-here', '/API', '/healthz']) expect((await same(path)).fast).toBe(false)
  })

  it('reports its answers in /metrics', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/metrics' })
    const counted = Number(/^kurz_redirect_fast_path_total (\d+)$/m.exec(res.body)?.[1])
    expect(counted).toBe(fastCount(t))
    expect(counted).toBeGreaterThan(10)
  })

  it('stores a click for every visit it answered', async () => {
    await addLink(pro, { url: 'https://example.com/many', custom: 'many1' })
    await warm('/many1', { method: 'HEAD' })
    const before = fastCount(t)
    await Promise.all(Array.from({ length: 50 }, () => overHttp(origin, '/many1')))
    expect(fastCount(t) - before).toBe(50)
    await t.app.clicks.flush()
    const [row] = await t.app.db.select({ id: links.id }).from(links).where(eq(links.alias, 'many1'))
    expect(await t.app.db.$count(clicks, eq(clicks.linkId, row.id))).toBe(50)
    expect(await countRows(t, clicks)).toBeGreaterThanOrEqual(50)
  })
})

describe('cached visits at LOG_LEVEL=debug', () => {
  let t: TestApp
  afterAll(() => t?.close())

  it('all go through Fastify, which writes their access lines', async () => {
    const database = await testDatabase()
    const lines: string[] = []
    const logStream = lineSink(lines)
    const app = await buildApp(testConfig({ LOG_LEVEL: 'debug' }), { db: database.handle, logStream })
    t = { app, close: async () => (await app.close(), await database.drop()) } as TestApp
    const { apiKey } = await createUser(app.db, app.keys, { email: 'debug@example.com', username: 'debug', password: 'correct-horse-battery', admin: true })
    const made = await app.inject({ method: 'POST', url: '/api/url/add', headers: { authorization: `Bearer ${apiKey}` }, payload: { url: 'https://example.com/logged', custom: 'logged1' } })
    expect(made.statusCode).toBe(200)
    await app.listen({ port: 0, host: '127.0.0.1' })
    const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
    for (let i = 0; i < 3; i++) expect((await overHttp(origin, '/logged1')).status).toBe(302)
    expect(fastCount(t)).toBe(0)
    expect(app.linkCache.stats().hits).toBe(2)
    expect(lines.filter((l) => l.includes('/logged1') && l.includes('incoming request'))).toHaveLength(3)
  })
})
