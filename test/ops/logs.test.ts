import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { sql } from 'drizzle-orm'
import { buildApp } from '../../src/app.js'
import { createUser } from '../../src/resources/admin/users.js'
import { safeUrl } from '../../src/http/logging.js'
import { testConfig, testDatabase } from '../helpers/app.js'
import { lineSink } from '../helpers/log-lines.js'

const VISITOR = '203.0.113.77' // sent in X-Forwarded-For through a trusted proxy
const PEER = '198.51.100.23' // the socket's address
const PASSWORD = 'correct-horse-battery-staple'
const WRONG_KEY = 'WrongKey_Zq8ryx1LkP0nMvB7cX3dFhJ'

/** An app whose log lines (info level, as in production) are kept for the test to read. */
async function loggedApp(env: Record<string, string> = {}) {
  const database = await testDatabase()
  const lines: string[] = []
  const logStream = lineSink(lines)
  const app = await buildApp(testConfig({ LOG_LEVEL: 'info', TRUST_PROXY: 'true', ...env }), { db: database.handle, logStream })
  await app.ready()
  return { app, lines, close: async () => (await app.close(), await database.drop()) }
}

/** A visit, a login, an API call, a failing API call and an SSO link, from a visitor behind a proxy. */
async function traffic(app: FastifyInstance) {
  const from = { remoteAddress: PEER }
  const visitor = { 'x-forwarded-for': VISITOR, 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0', host: 'kurz.test' }
  const { apiKey } = await createUser(app.db, app.keys, { email: 'logs@example.com', username: 'logs', password: PASSWORD, admin: true })
  const auth = { ...visitor, authorization: `Bearer ${apiKey}` }

  const made = await app.inject({ ...from, method: 'POST', url: '/api/url/add', headers: auth, payload: { url: 'https://example.com/logged', custom: 'logged' } })
  expect(made.statusCode).toBe(200)
  const visit = await app.inject({ ...from, method: 'GET', url: '/logged', headers: visitor })
  expect(visit.statusCode).toBe(302)
  const login = await app.inject({
    ...from,
    method: 'POST',
    url: '/login',
    headers: { ...visitor, 'content-type': 'application/x-www-form-urlencoded' },
    payload: `email=logs%40example.com&password=${PASSWORD}`,
  })
  expect(login.statusCode).toBe(302)
  const session = String(login.headers['set-cookie']).split(';')[0].split('=').slice(1).join('=')
  expect(session.length).toBeGreaterThan(10)
  const badKey = await app.inject({ ...from, method: 'GET', url: '/api/account', headers: { ...visitor, authorization: `Bearer ${WRONG_KEY}` } })
  expect(badKey.statusCode).toBe(401)
  const invalid = await app.inject({ ...from, method: 'POST', url: '/api/url/add', headers: auth, payload: { url: 'not a url', password: PASSWORD } })
  expect(invalid.statusCode).toBe(400)
  const withCookie = await app.inject({ ...from, method: 'GET', url: '/api/session', headers: { ...visitor, cookie: `kurz_session=${session}` } })
  expect(withCookie.statusCode).toBeLessThan(500)
  const sso = await app.inject({ ...from, method: 'GET', url: '/api/user/login/1', headers: auth })
  const ssoUrl = new URL(sso.json().url as string)
  const token = ssoUrl.pathname.split('/').pop()!
  await app.inject({ ...from, method: 'GET', url: ssoUrl.pathname, headers: visitor })
  const inQuery = await app.inject({ ...from, method: 'GET', url: `/api/account?key=${WRONG_KEY}&password=${PASSWORD}`, headers: visitor })
  expect(inQuery.statusCode).toBe(401)
  return { apiKey, session, token }
}

describe('request logs', () => {
  let ctx: Awaited<ReturnType<typeof loggedApp>>
  beforeAll(async () => {
    ctx = await loggedApp()
  })
  afterAll(() => ctx.close())

  it('carry no visitor address, API key, password, session cookie or SSO token', async () => {
    const { apiKey, session, token } = await traffic(ctx.app)
    const text = ctx.lines.join('\n')
    // the requests were logged, with what an operator needs
    const entries = ctx.lines.map((l) => JSON.parse(l) as { msg: string; req?: { method: string; url: string } })
    const urls = entries.filter((e) => e.msg === 'incoming request').map((e) => `${e.req!.method} ${e.req!.url}`)
    expect(urls).toEqual(expect.arrayContaining(['POST /login', 'GET /api/account', 'POST /api/url/add', 'GET /sso/[redacted]']))
    // a visit is a click in the database, not two log lines: at info only the management side is logged
    expect(urls).not.toContain('GET /logged')
    for (const secret of [VISITOR, PEER, apiKey, WRONG_KEY, PASSWORD, session, token]) expect(text).not.toContain(secret)
    expect(text).not.toMatch(/remoteAddress|remotePort|x-forwarded-for/i)
    expect(text.toLowerCase()).not.toContain('bearer')
  })
})

describe('request logs with LOG_IPS=true', () => {
  it('carry the client address (the proxy-forwarded one), still no secrets', async () => {
    const ctx = await loggedApp({ LOG_IPS: 'true' })
    try {
      const { apiKey } = await traffic(ctx.app)
      const text = ctx.lines.join('\n')
      expect(text).toContain(`"remoteAddress":"${VISITOR}"`)
      for (const secret of [apiKey, WRONG_KEY, PASSWORD]) expect(text).not.toContain(secret)
    } finally {
      await ctx.close()
    }
  })
})

describe('request logs of visits', () => {
  it('at LOG_LEVEL=debug every visit gets its lines too', async () => {
    const ctx = await loggedApp({ LOG_LEVEL: 'debug' })
    try {
      await traffic(ctx.app)
      const entries = ctx.lines.map((l) => JSON.parse(l) as { msg: string; req?: { method: string; url: string }; level: number })
      const urls = entries.filter((e) => e.msg === 'incoming request').map((e) => `${e.req!.method} ${e.req!.url}`)
      expect(urls).toEqual(expect.arrayContaining(['GET /logged', 'POST /api/url/add']))
      expect(entries.filter((e) => e.msg === 'request completed' && e.level === 30).length).toBeGreaterThanOrEqual(urls.length)
    } finally {
      await ctx.close()
    }
  })

  it('at info a visit answered 5xx still gets one line, at warn, with its path and status', async () => {
    const ctx = await loggedApp()
    try {
      await ctx.app.inject({ method: 'GET', url: '/healthz' })
      // the links table gone for a moment: an alias not in the redirect cache cannot be looked up
      await ctx.app.db.execute(sql`alter table links rename to links_away`)
      const res = await ctx.app.inject({ method: 'GET', url: '/notcached', headers: { accept: 'text/html' } })
      await ctx.app.db.execute(sql`alter table links_away rename to links`)
      expect(res.statusCode).toBeGreaterThanOrEqual(500)
      const entries = ctx.lines.map((l) => JSON.parse(l) as { msg: string; level: number; req?: { url: string }; res?: { statusCode: number } })
      const line = entries.find((e) => e.msg === 'request completed' && e.req?.url === '/notcached')
      expect(line).toMatchObject({ level: 40, res: { statusCode: res.statusCode } })
      // the probe before it, answered 200, left no line
      expect(entries.some((e) => e.req?.url === '/healthz')).toBe(false)
    } finally {
      await ctx.close()
    }
  })
})

describe('safeUrl', () => {
  it.each([
    ['/spring', '/spring'],
    ['/api/urls?limit=20&page=1', '/api/urls?limit=20&page=1'],
    ['/sso/abc123', '/sso/[redacted]'],
    ['/x?key=k&api_key=k&apikey=k&token=t&password=p&q=keep', '/x?key=[redacted]&api_key=[redacted]&apikey=[redacted]&token=[redacted]&password=[redacted]&q=keep'],
    ['/x?Password=p&%6Bey=k', '/x?Password=[redacted]&%6Bey=[redacted]'],
  ])('%s → %s', (url, expected) => {
    expect(safeUrl(url)).toBe(expected)
  })
})
