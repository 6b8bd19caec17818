import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { LightMyRequestResponse } from 'fastify'
import { testApp, type TestApp, type TestUser } from '../helpers/app.js'
import { ensureWebBuild } from '../browser/dashboard-web.js'

/** DECISIONS §10.1: the dashboard's session access to the JSON API. */
describe('dashboard session access to the JSON API', () => {
  let t: TestApp
  let admin: TestUser
  beforeAll(async () => {
    await ensureWebBuild()
    t = await testApp({ DASHBOARD_RATE_LIMIT_MAX: '40' })
    admin = await t.makeUser({ admin: true })
  })
  afterAll(() => t?.close())

  const cookieOf = (res: LightMyRequestResponse) => {
    const set = res.headers['set-cookie']
    return (Array.isArray(set) ? set : [String(set)]).map((c) => c.split(';')[0]).join('; ')
  }

  /** Signs in through a single-use SSO URL; returns the cookie and the session's CSRF token. */
  async function session(u: TestUser) {
    const url = new URL((await admin.api.get(`/api/user/login/${u.user.id}`)).json().url)
    const cookie = cookieOf(await t.app.inject({ method: 'GET', url: url.pathname }))
    const res = await t.app.inject({ method: 'GET', url: '/api/session', headers: { cookie } })
    expect(res.statusCode).toBe(200)
    return { cookie, csrf: res.json().csrfToken as string, body: res.json() }
  }

  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, headers: Record<string, string>, payload?: object) =>
    t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) })

  it('GET /api/session answers the user and a CSRF token, only with a session cookie', async () => {
    const u = await t.makeUser({ plan: 'pro', username: 'sess.user' })
    const s = await session(u)
    expect(s.body).toMatchObject({ error: 0, user: { id: u.user.id, username: 'sess.user', admin: false, plan: { name: 'Pro' } } })
    expect(s.csrf).toMatch(/^[0-9a-f]{64}$/)
    expect(JSON.stringify(s.body)).not.toContain(u.key)
    const none = await t.app.inject({ method: 'GET', url: '/api/session' })
    expect(none.statusCode).toBe(401)
    expect(none.json()).toMatchObject({ error: 1, message: expect.any(String) })
    // a key is not a session
    expect((await u.api.get('/api/session')).statusCode).toBe(401)
  })

  it('GET /api/session lists the features the plan lets the user use; an admin has them all', async () => {
    const lean = await t.makeUser({ off: ['custom', 'geo', 'export'] })
    const features = (await session(lean)).body.user.plan.features as string[]
    expect(features).toEqual(['team', 'splash', 'overlay', 'pixels', 'domain', 'multiple', 'alias', 'device', 'bundle', 'parameters', 'api'])
    // the admin's own plan has features switched off (the seeded Free plan); an admin is never limited
    const boss = await t.makeUser({ admin: true, plan: 'free', password: 'boss-password' })
    const login = await t.app.inject({ method: 'POST', url: '/login', payload: { email: boss.user.email, password: 'boss-password' } })
    expect(login.statusCode).toBe(302)
    const mine = await t.app.inject({ method: 'GET', url: '/api/session', headers: { cookie: cookieOf(login) } })
    expect(mine.json().user.plan.features).toHaveLength(14)
    expect((await session(lean)).body.user.plan.counts).toEqual({})
    // the seeded Free plan caps each counted feature at 5 (team is off: no cap to tell)
    const free = await t.makeUser({ plan: 'free' })
    expect((await session(free)).body.user.plan.counts).toEqual({ splash: 5, overlay: 5, pixels: 5, domain: 5 })
    expect(mine.json().user.plan.counts).toEqual({})
    // the plan changes: the next session read says so
    await admin.api.put(`/api/plan/${lean.user.planId}/update`, { limits: { geo: { enabled: '1' } } })
    expect((await session(lean)).body.user.plan.features).toContain('geo')
  })

  it('a session cookie with its X-CSRF-Token is authenticated as that user', async () => {
    const u = await t.makeUser()
    const s = await session(u)
    const res = await call('GET', '/api/account', { cookie: s.cookie, 'x-csrf-token': s.csrf })
    expect(res.statusCode).toBe(200)
    expect(res.json().data).toMatchObject({ id: u.user.id, email: u.user.email })
    const add = await call('POST', '/api/url/add', { cookie: s.cookie, 'x-csrf-token': s.csrf }, { url: 'https://example.com/from-dashboard' })
    expect(add.statusCode).toBe(200)
    const mine = (await u.api.get('/api/urls')).json().data
    expect(mine.urls.map((l: { longurl: string }) => l.longurl)).toEqual(['https://example.com/from-dashboard'])
  })

  it('without the CSRF header (or with a wrong one) the request is refused with 403 and changes nothing', async () => {
    const u = await t.makeUser()
    const s = await session(u)
    const other = await session(await t.makeUser())
    const attempts: Record<string, string>[] = [{ cookie: s.cookie }, { cookie: s.cookie, 'x-csrf-token': other.csrf }, { cookie: s.cookie, 'x-csrf-token': '' }]
    for (const headers of attempts) {
      const add = await call('POST', '/api/url/add', headers, { url: 'https://example.com/forged' })
      expect(add.statusCode).toBe(403)
      expect(add.json()).toMatchObject({ error: 1, message: expect.stringMatching(/X-CSRF-Token/) })
      const rotate = await call('POST', '/api/account/apikey', headers)
      expect(rotate.statusCode).toBe(403)
      expect((await call('GET', '/api/account', headers)).statusCode).toBe(403)
    }
    expect((await u.api.get('/api/urls')).json().data.result).toBe(0)
    // the key still works: rotating did not happen
    expect((await u.api.get('/api/account')).statusCode).toBe(200)
  })

  it('an API key works as before, and wins over a session cookie sent beside it', async () => {
    const u = await t.makeUser()
    const v = await t.makeUser()
    const s = await session(v)
    const res = await t.app.inject({ method: 'GET', url: '/api/account', headers: { authorization: `Bearer ${u.key}`, cookie: s.cookie } })
    expect(res.statusCode).toBe(200)
    expect(res.json().data.id).toBe(u.user.id)
  })

  it("another account's objects are 404 through a session too", async () => {
    const owner = await t.makeUser()
    const id = (await owner.api.post('/api/url/add', { url: 'https://example.com/private' })).json().id
    const s = await session(await t.makeUser())
    const h = { cookie: s.cookie, 'x-csrf-token': s.csrf }
    expect((await call('GET', `/api/url/${id}`, h)).statusCode).toBe(404)
    expect((await call('PUT', `/api/url/${id}/update`, h, { url: 'https://example.com/taken' })).statusCode).toBe(404)
    expect((await call('DELETE', `/api/url/${id}/delete`, h)).statusCode).toBe(404)
    expect((await call('GET', '/api/urls', h)).json().data.result).toBe(0)
    expect((await owner.api.get(`/api/url/${id}`)).json().details.longurl).toBe('https://example.com/private')
  })

  it('admin endpoints need an admin session; an ended session is a 401', async () => {
    const u = await t.makeUser()
    const s = await session(u)
    expect((await call('GET', '/api/users', { cookie: s.cookie, 'x-csrf-token': s.csrf })).statusCode).toBe(403)
    const a = await session(admin)
    expect((await call('GET', '/api/users', { cookie: a.cookie, 'x-csrf-token': a.csrf })).statusCode).toBe(200)
    await t.app.inject({ method: 'POST', url: '/logout', headers: { cookie: s.cookie } })
    const after = await call('GET', '/api/account', { cookie: s.cookie, 'x-csrf-token': s.csrf })
    expect(after.statusCode).toBe(401)
    expect(after.json().error).toBe(1)
  })

  it('GET /api/account/apikey shows the key only when asked; rotating through the session issues a new one', async () => {
    const u = await t.makeUser()
    const s = await session(u)
    const h = { cookie: s.cookie, 'x-csrf-token': s.csrf }
    const shell = await call('GET', '/dashboard/account', { cookie: s.cookie })
    expect(shell.statusCode).toBe(200)
    expect(shell.body).not.toContain(u.key)
    const shown = await call('GET', '/api/account/apikey', h)
    expect(shown.statusCode).toBe(200)
    expect(shown.headers['cache-control']).toBe('private, no-store')
    expect(shown.json()).toEqual({ error: 0, apikey: u.key })
    const rotated = (await call('POST', '/api/account/apikey', h)).json().apikey
    expect(rotated).not.toBe(u.key)
    expect((await call('GET', '/api/account/apikey', h)).json().apikey).toBe(rotated)
    expect((await u.api.get('/api/account')).statusCode).toBe(401)
  })

  it('sessions have their own rate budget, counted per session (DASHBOARD_RATE_LIMIT_MAX)', async () => {
    const u = await t.makeUser()
    const s = await session(u)
    const h = { cookie: s.cookie, 'x-csrf-token': s.csrf }
    for (let i = 0; i < 40; i++) expect((await call('GET', '/api/account', h)).statusCode).toBe(200)
    const limited = await call('GET', '/api/account', h)
    expect(limited.statusCode).toBe(429)
    expect(limited.headers['x-ratelimit-limit']).toBe('40')
    // the same user's key and another session of theirs are counted apart
    expect((await u.api.get('/api/account')).statusCode).toBe(200)
    const s2 = await session(u)
    expect((await call('GET', '/api/account', { cookie: s2.cookie, 'x-csrf-token': s2.csrf })).statusCode).toBe(200)
  })

  it('/dashboard/* answers the app shell under the strict CSP when signed in, /login otherwise; assets are long-cached', async () => {
    const s = await session(await t.makeUser())
    for (const path of ['/dashboard', '/dashboard/links', '/dashboard/links/12', '/dashboard/admin/users']) {
      const res = await call('GET', path, { cookie: s.cookie })
      expect(res.statusCode).toBe(200)
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
      expect(res.headers['cache-control']).toBe('private, no-store')
      const csp = String(res.headers['content-security-policy'])
      expect(csp).toContain("default-src 'self'")
      expect(csp).toContain("script-src 'self';")
      expect(csp).not.toContain('unsafe-inline')
      expect(res.body).toContain('<div id="root">')
      expect(res.body).not.toMatch(/<script(?![^>]*\bsrc=)/)
      const out = await call('GET', path, {})
      expect(out.statusCode).toBe(302)
      // a page past the landing one is asked back for after signing in (test/api/login-next.test.ts)
      expect(out.headers.location).toBe(path === '/dashboard' ? '/login' : `/login?next=${encodeURIComponent(path)}`)
    }
    const shell = (await call('GET', '/dashboard', { cookie: s.cookie })).body
    const script = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(shell)![1]
    const asset = await call('GET', script, {})
    expect(asset.statusCode).toBe(200)
    expect(asset.headers['content-type']).toBe('text/javascript; charset=utf-8')
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable')
    expect(asset.headers['content-encoding']).toBeUndefined()
    for (const bad of ['/dashboard/assets/..%2F..%2Fpackage.json', '/dashboard/assets/.hidden', '/dashboard/assets/nope.js', `${script}.br`, `${script}.gz`]) {
      expect((await call('GET', bad, {})).statusCode).toBe(404)
    }
  })

  it('sends an asset compressed as the build wrote it to a browser that accepts brotli or gzip', async () => {
    const shell = (await call('GET', '/dashboard', { cookie: (await session(await t.makeUser())).cookie })).body
    const script = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(shell)![1]
    const plain = await call('GET', script, {})
    const decoders = { br: brotliDecompressSync, gzip: gunzipSync }
    for (const [accept, encoding] of [
      ['gzip, deflate, br, zstd', 'br'],
      ['gzip', 'gzip'],
      ['br;q=0, gzip', 'gzip'],
      ['deflate', undefined],
      ['identity', undefined],
    ] as const) {
      const res = await call('GET', script, { 'accept-encoding': accept })
      expect(res.statusCode).toBe(200)
      expect(res.headers['content-encoding']).toBe(encoding)
      expect(res.headers.vary).toBe('accept-encoding')
      expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8')
      const body = encoding ? decoders[encoding](res.rawPayload) : res.rawPayload
      expect(body.equals(plain.rawPayload)).toBe(true)
      if (encoding) expect(res.rawPayload.length).toBeLessThan(plain.rawPayload.length / 3)
    }
  })
})
