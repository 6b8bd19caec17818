import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { Redis } from 'ioredis'
import { buildApp } from '../../src/app.js'
import { testApp, type TestApp, type TestUser } from '../helpers/app.js'

/** SPEC.md Limits, DECISIONS §1/§2: 30 requests a minute per key, headers, 429 with Retry-After. */

const nowSeconds = () => Date.now() / 1000

async function redisReachable(url: string | undefined): Promise<boolean> {
  if (!url) return false
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1000, retryStrategy: () => null })
  probe.on('error', () => {})
  try {
    await probe.connect()
    return (await probe.ping()) === 'PONG'
  } catch {
    return false
  } finally {
    probe.disconnect()
  }
}
const REDIS_URL = process.env.REDIS_URL
const withRedis = await redisReachable(REDIS_URL)

describe('rate limit, default settings (30 per 60 s per key; v1 120)', () => {
  let t: TestApp
  let a: TestUser
  let b: TestUser
  beforeAll(async () => {
    // undefined removes the generous limits of the test defaults, so the service defaults apply
    t = await testApp({ RATE_LIMIT_MAX: undefined, RATE_LIMIT_WINDOW: undefined, V1_RATE_LIMIT_MAX: undefined })
    a = await t.makeUser()
    b = await t.makeUser()
  })
  afterAll(() => t.close())
  afterEach(() => {
    vi.useRealTimers()
  })

  it('counts down X-RateLimit-Remaining from 29 with the reset as Unix seconds, then answers the 31st with 429', async () => {
    for (let i = 1; i <= 30; i++) {
      const before = nowSeconds()
      const res = await a.api.get('/api/account')
      expect(res.statusCode).toBe(200)
      expect(res.headers['x-ratelimit-limit']).toBe('30')
      expect(res.headers['x-ratelimit-remaining']).toBe(String(30 - i))
      const reset = Number(res.headers['x-ratelimit-reset'])
      expect(Number.isInteger(reset)).toBe(true)
      expect(reset).toBeGreaterThanOrEqual(Math.floor(before) + 1)
      expect(reset).toBeLessThanOrEqual(Math.ceil(nowSeconds()) + 61)
    }
    const res = await a.api.get('/api/account')
    expect(res.statusCode).toBe(429)
    // the window itself, not the time left until it resets
    expect(res.json()).toEqual({ error: 1, message: expect.stringMatching(/^Rate limit exceeded: at most 30 requests per 1 minute\. Retry in \d+ seconds\.$/) })
    expect(res.headers['x-ratelimit-limit']).toBe('30')
    expect(res.headers['x-ratelimit-remaining']).toBe('0')
    const retryAfter = Number(res.headers['retry-after'])
    expect(Number.isInteger(retryAfter)).toBe(true)
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(60)
    const reset = Number(res.headers['x-ratelimit-reset'])
    expect(reset).toBeGreaterThan(nowSeconds())
    expect(reset).toBeLessThanOrEqual(Math.ceil(nowSeconds()) + 61)
  })

  it('names the same reset moment on every request of a window, whatever the millisecond', async () => {
    const c = await t.makeUser()
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(Math.floor(Date.now() / 1000) * 1000 + 400) // mid-second: each part rounded alone wobbled
    const resets = new Set<string>()
    for (let i = 0; i < 12; i++) {
      resets.add(String((await c.api.get('/api/account')).headers['x-ratelimit-reset']))
      vi.setSystemTime(Date.now() + 350)
    }
    expect([...resets]).toHaveLength(1)
    expect(Number([...resets][0])).toBe(Math.ceil((Date.now() - 12 * 350 + 60_000) / 1000))
  })

  it('keeps refusing, on every management endpoint, writes included, and writes nothing', async () => {
    expect((await a.api.put('/api/account/update', { password: 'would-change' })).statusCode).toBe(429)
    expect((await a.api.post('/api/account/apikey')).statusCode).toBe(429)
    expect((await a.api.get('/api/account')).statusCode).toBe(429) // the key was not rotated
  })

  it('a spoofed X-Forwarded-For does not reset it', async () => {
    for (const ip of ['203.0.113.7', '198.51.100.1, 10.0.0.1', '::1']) {
      expect((await a.api.get('/api/account', { 'x-forwarded-for': ip, 'x-real-ip': ip })).statusCode).toBe(429)
    }
  })

  it('is per key: another key is unaffected', async () => {
    const res = await b.api.get('/api/account')
    expect(res.statusCode).toBe(200)
    expect(res.headers['x-ratelimit-remaining']).toBe('29')
  })

  it('v1 has its own budget of 120', async () => {
    const res = await a.api.get('/api/v1/links')
    expect(res.statusCode).toBe(200)
    expect(res.headers['x-ratelimit-limit']).toBe('120')
    expect(res.headers['x-ratelimit-remaining']).toBe('119')
  })

  it('does not limit /healthz, /readyz or short-link paths, which carry no rate headers', async () => {
    for (let i = 0; i < 40; i++) {
      const res = await t.api().get('/healthz')
      expect(res.statusCode).toBe(200)
      expect(res.headers['x-ratelimit-limit']).toBeUndefined()
    }
    const ready = await t.api(a.key).get('/readyz')
    expect(ready.statusCode).toBe(200)
    expect(ready.headers['x-ratelimit-limit']).toBeUndefined()
    const visit = await t.api(a.key).get('/some-alias')
    expect(visit.statusCode).not.toBe(429)
    expect(visit.headers['x-ratelimit-limit']).toBeUndefined()
  })

  it('requests without a valid key are answered 401 and spend no one’s budget', async () => {
    const res = await t.api('x'.repeat(32)).get('/api/account')
    expect(res.statusCode).toBe(401)
    expect(res.headers['x-ratelimit-limit']).toBeUndefined()
  })

  it('opens again once the window has passed', async () => {
    expect((await a.api.get('/api/account')).statusCode).toBe(429)
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(Date.now() + 61_000)
    const res = await a.api.get('/api/account')
    expect(res.statusCode).toBe(200)
    expect(res.headers['x-ratelimit-remaining']).toBe('29')
    expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThanOrEqual(Math.floor(nowSeconds()) + 59)
  })
})

describe('rate limit, configured (RATE_LIMIT_MAX=3, RATE_LIMIT_WINDOW=5, V1_RATE_LIMIT_MAX=2)', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await testApp({ RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW: '5', V1_RATE_LIMIT_MAX: '2' })
  })
  afterAll(() => t.close())

  it('applies the configured cap and window to the management interface', async () => {
    const u = await t.makeUser()
    for (let i = 0; i < 3; i++) expect((await u.api.get('/api/account')).statusCode).toBe(200)
    const res = await u.api.get('/api/account')
    expect(res.statusCode).toBe(429)
    expect(res.headers['x-ratelimit-limit']).toBe('3')
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(5)
    expect(Number(res.headers['x-ratelimit-reset'])).toBeLessThanOrEqual(Math.ceil(nowSeconds()) + 6)
  })

  it('and V1_RATE_LIMIT_MAX to v1, spent separately', async () => {
    const u = await t.makeUser()
    for (let i = 0; i < 2; i++) expect((await u.api.get('/api/v1/links')).statusCode).toBe(200)
    const res = await u.api.get('/api/v1/links')
    expect(res.statusCode).toBe(429)
    expect(res.headers['x-ratelimit-limit']).toBe('2')
    expect(res.json()).toMatchObject({ error: 1, message: expect.stringMatching(/Rate limit exceeded/) })
    expect((await u.api.get('/api/account')).statusCode).toBe(200)
  })
})

describe.skipIf(!withRedis)('rate limit through Redis (REDIS_URL): two instances share one budget', () => {
  let t: TestApp
  let second: FastifyInstance
  beforeAll(async () => {
    t = await testApp({ REDIS_URL, RATE_LIMIT_MAX: '30', V1_RATE_LIMIT_MAX: '120' })
    // a second instance on the same database and the same Redis, as behind a load balancer
    second = await buildApp(t.config, { db: t.handle })
    await second.ready()
  })
  afterAll(async () => {
    await second?.close()
    await t?.close()
  })

  it('the 31st request, spread over both instances, is refused by either', async () => {
    expect(t.app.redis).not.toBeNull()
    const u = await t.makeUser() // random key: its counters are its own even on a shared Redis
    const call = (i: number) =>
      (i % 2 ? t.app : second).inject({ method: 'GET', url: '/api/account', headers: { authorization: `Bearer ${u.key}` } })
    for (let i = 1; i <= 30; i++) {
      const res = await call(i)
      expect(res.statusCode).toBe(200)
      expect(res.headers['x-ratelimit-remaining']).toBe(String(30 - i))
    }
    for (const app of [t.app, second]) {
      const res = await app.inject({ method: 'GET', url: '/api/account', headers: { authorization: `Bearer ${u.key}` } })
      expect(res.statusCode).toBe(429)
      expect(res.json()).toMatchObject({ error: 1 })
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1)
      expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThan(nowSeconds())
    }
    // another key on the same instances is unaffected; v1 is a separate budget
    const other = await t.makeUser()
    expect((await second.inject({ method: 'GET', url: '/api/account', headers: { authorization: `Bearer ${other.key}` } })).statusCode).toBe(200)
    const v1 = await second.inject({ method: 'GET', url: '/api/v1/links', headers: { authorization: `Bearer ${u.key}` } })
    expect(v1.statusCode).toBe(200)
    expect(v1.headers['x-ratelimit-remaining']).toBe('119')
  })
})
