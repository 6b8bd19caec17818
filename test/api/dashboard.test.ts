import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { sessions, users } from '../../src/db/schema/index.js'
import { cookiesOf, testApp, type TestApp, type TestUser } from '../helpers/app.js'
import { ensureWebBuild } from '../browser/dashboard-web.js'

describe('dashboard, login and logout', () => {
  let t: TestApp
  let admin: TestUser
  beforeAll(async () => {
    await ensureWebBuild()
    t = await testApp()
    admin = await t.makeUser({ admin: true })
  })
  afterAll(() => t.close())

  const inject = (method: 'GET' | 'POST', url: string, opts: { cookie?: string; form?: Record<string, string>; ip?: string } = {}) =>
    t.app.inject({
      method,
      url,
      headers: {
        ...(opts.cookie ? { cookie: opts.cookie } : {}),
        ...(opts.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      payload: opts.form ? new URLSearchParams(opts.form).toString() : undefined,
      ...(opts.ip ? { remoteAddress: opts.ip } : {}),
    })

  async function signIn(u: TestUser): Promise<string> {
    const url = new URL((await admin.api.get(`/api/user/login/${u.user.id}`)).json().url)
    const res = await inject('GET', url.pathname)
    expect(res.statusCode).toBe(302)
    return cookiesOf(res)
  }

  function expectPage(res: { statusCode: number; headers: Record<string, unknown> }, status: number) {
    expect(res.statusCode).toBe(status)
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
    const csp = String(res.headers['content-security-policy'])
    expect(csp).toContain("default-src 'none'")
    expect(csp).toContain("script-src 'none'")
    expect(csp).toContain("form-action 'self'")
    expect(res.headers['x-content-type-options']).toBe('nosniff')
    expect(res.headers['cache-control']).toBe('private, no-store')
  }

  describe('GET /dashboard', () => {
    it('without a session sends the visitor to /login', async () => {
      const res = await inject('GET', '/dashboard')
      expect(res.statusCode).toBe(302)
      expect(res.headers.location).toBe('/login')
      const forged = await inject('GET', '/dashboard', { cookie: `kurz_session=${'A'.repeat(43)}` })
      expect(forged.headers.location).toBe('/login')
    })

    it('answers the app shell; who is signed in comes from /api/session, and the API key is not in the page', async () => {
      const u = await t.makeUser({ plan: 'pro', username: 'dash.user' })
      const cookie = await signIn(u)
      const res = await inject('GET', '/dashboard', { cookie })
      expect(res.statusCode).toBe(200)
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
      expect(res.headers['cache-control']).toBe('private, no-store')
      expect(res.body).not.toContain(u.key)
      const session = (await inject('GET', '/api/session', { cookie })).json()
      expect(session.user).toMatchObject({ username: 'dash.user', email: u.user.email, status: 'pro', plan: { name: 'Pro' } })
    })

    it('shows the free plan once a subscription has passed', async () => {
      const u = await t.makeUser({ plan: 'pro' })
      const cookie = await signIn(u)
      await t.app.db.update(users).set({ planExpires: new Date(Date.now() - 1000) }).where(eq(users.id, u.user.id))
      const session = (await inject('GET', '/api/session', { cookie })).json()
      expect(session.user).toMatchObject({ status: 'free', plan: { name: 'Free' } })
    })

    it('an expired session sends the visitor to /login', async () => {
      const u = await t.makeUser()
      const cookie = await signIn(u)
      await t.app.db.update(sessions).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(sessions.userId, u.user.id))
      expect((await inject('GET', '/dashboard', { cookie })).headers.location).toBe('/login')
    })
  })

  describe('/login', () => {
    it('GET shows the sign-in form', async () => {
      const res = await inject('GET', '/login')
      expectPage(res, 200)
      expect(res.body).toContain('<form method="post" action="/login">')
      expect(res.body).toContain('name="email"')
      expect(res.body).toContain('name="password"')
    })

    it('POST with the right email (any case) and password: session cookie and 302 to /dashboard', async () => {
      const u = await t.makeUser({ password: 'correct horse' })
      const res = await inject('POST', '/login', { form: { email: u.user.email.toUpperCase(), password: 'correct horse' } })
      expect(res.statusCode).toBe(302)
      expect(res.headers.location).toBe('/dashboard')
      const cookie = String(res.headers['set-cookie'])
      expect(cookie).toMatch(/HttpOnly/)
      expect(cookie).toMatch(/SameSite=Lax/)
      const dash = await inject('GET', '/dashboard', { cookie: cookiesOf(res) })
      expect(dash.statusCode).toBe(200)
      expect((await inject('GET', '/api/session', { cookie: cookiesOf(res) })).json().user.username).toBe(u.user.username)
    })

    it.each([
      ['a wrong password', (u: TestUser) => ({ email: u.user.email, password: 'wrong password' })],
      ['an unknown email', () => ({ email: 'nobody@example.com', password: 'whatever' })],
      ['empty fields', () => ({ email: '', password: '' })],
    ])('POST with %s: 401 and the form again, no cookie', async (_name, form) => {
      const u = await t.makeUser({ password: 'correct horse' })
      const res = await inject('POST', '/login', { form: form(u), ip: '192.0.2.99' })
      expectPage(res, 401)
      expect(res.body).toContain('Email or password is wrong.')
      expect(res.headers['set-cookie']).toBeUndefined()
    })

    it('after 5 failures per IP and email, the 6th attempt is a 429 even with the right password', async () => {
      const u = await t.makeUser({ password: 'correct horse' })
      const ip = '198.51.100.23'
      for (let i = 0; i < 5; i++) {
        expect((await inject('POST', '/login', { form: { email: u.user.email, password: `guess ${i}` }, ip })).statusCode).toBe(401)
      }
      const blocked = await inject('POST', '/login', { form: { email: u.user.email, password: 'correct horse' }, ip })
      expectPage(blocked, 429)
      expect(blocked.headers['retry-after']).toBe('900')
      expect(blocked.headers['set-cookie']).toBeUndefined()
      // a forged X-Forwarded-For does not change the address the throttle sees (TRUST_PROXY is off)
      const spoofed = await t.app.inject({
        method: 'POST', url: '/login', remoteAddress: ip,
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '203.0.113.99' },
        payload: new URLSearchParams({ email: u.user.email, password: 'correct horse' }).toString(),
      })
      expect(spoofed.statusCode).toBe(429)
      // another IP, or another email from this IP, is not blocked
      expect((await inject('POST', '/login', { form: { email: u.user.email, password: 'correct horse' }, ip: '198.51.100.24' })).statusCode).toBe(302)
      const v = await t.makeUser({ password: 'other pass' })
      expect((await inject('POST', '/login', { form: { email: v.user.email, password: 'other pass' }, ip })).statusCode).toBe(302)
    })

    it("the throttle counts an email's spellings as one: a dotted capital I (which Postgres lowers to i) reaches no account", async () => {
      const u = await t.makeUser({ email: `ivi-${Date.now()}@example.com`, password: 'correct horse' })
      const ip = '198.51.100.77'
      for (let i = 0; i < 5; i++) expect((await inject('POST', '/login', { form: { email: u.user.email, password: `guess ${i}` }, ip })).statusCode).toBe(401)
      expect((await inject('POST', '/login', { form: { email: u.user.email, password: 'correct horse' }, ip })).statusCode).toBe(429)
      // each spelling had its own five guesses, and Postgres found the account for it
      const dotted = u.user.email.replace('i', '\u0130')
      expect((await inject('POST', '/login', { form: { email: dotted, password: 'correct horse' }, ip })).statusCode).toBe(401)
      expect((await inject('POST', '/login', { form: { email: u.user.email.toUpperCase(), password: 'correct horse' }, ip })).statusCode).toBe(429)
    })

    it('a success clears the failure count', async () => {
      const u = await t.makeUser({ password: 'correct horse' })
      const ip = '198.51.100.50'
      for (let i = 0; i < 4; i++) await inject('POST', '/login', { form: { email: u.user.email, password: 'nope' }, ip })
      expect((await inject('POST', '/login', { form: { email: u.user.email, password: 'correct horse' }, ip })).statusCode).toBe(302)
      for (let i = 0; i < 4; i++) await inject('POST', '/login', { form: { email: u.user.email, password: 'nope' }, ip })
      expect((await inject('POST', '/login', { form: { email: u.user.email, password: 'correct horse' }, ip })).statusCode).toBe(302)
    })

    it('takes a JSON body too', async () => {
      const u = await t.makeUser({ password: 'json pass' })
      const res = await t.app.inject({ method: 'POST', url: '/login', payload: { email: u.user.email, password: 'json pass' } })
      expect(res.statusCode).toBe(302)
    })
  })

  describe('/logout', () => {
    it('GET shows a sign-out button and keeps the session', async () => {
      const u = await t.makeUser()
      const cookie = await signIn(u)
      const res = await inject('GET', '/logout', { cookie })
      expectPage(res, 200)
      expect(res.body).toContain('<form method="post" action="/logout">')
      expect((await inject('GET', '/dashboard', { cookie })).statusCode).toBe(200)
    })

    it('POST ends the session: cookie cleared, row deleted, /dashboard sends to /login', async () => {
      const u = await t.makeUser()
      const cookie = await signIn(u)
      const res = await inject('POST', '/logout', { cookie })
      expect(res.statusCode).toBe(302)
      expect(res.headers.location).toBe('/login')
      expect(String(res.headers['set-cookie'])).toMatch(/^kurz_session=;.*Expires=Thu, 01 Jan 1970/)
      expect(await t.app.db.select().from(sessions).where(eq(sessions.userId, u.user.id))).toEqual([])
      expect((await inject('GET', '/dashboard', { cookie })).headers.location).toBe('/login')
    })

    it('POST from another site is refused with the sign-out button, and the session lives on', async () => {
      const u = await t.makeUser()
      const cookie = await signIn(u)
      for (const headers of [{ 'sec-fetch-site': 'cross-site' }, { origin: 'https://evil.example' }]) {
        const res = await t.app.inject({ method: 'POST', url: '/logout', headers: { cookie, ...headers } })
        expectPage(res, 403)
        expect(res.body).toContain('Another site asked to sign you out.')
        expect(res.body).toContain('<form method="post" action="/logout">')
        expect(res.headers['set-cookie']).toBeUndefined()
      }
      expect((await inject('GET', '/dashboard', { cookie })).statusCode).toBe(200)
      // the dashboard's own button: same origin
      const own = await t.app.inject({ method: 'POST', url: '/logout', headers: { cookie, origin: 'http://kurz.test', 'sec-fetch-site': 'same-origin' } })
      expect(own.statusCode).toBe(302)
      expect(await t.app.db.select().from(sessions).where(eq(sessions.userId, u.user.id))).toEqual([])
    })

    it('POST without a session just goes to /login', async () => {
      const res = await inject('POST', '/logout')
      expect(res.statusCode).toBe(302)
      expect(res.headers.location).toBe('/login')
    })
  })
})
