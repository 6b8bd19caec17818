import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { sessions, ssoTokens } from '../../src/db/schema/index.js'
import { sha256 } from '../../src/lib/crypto.js'
import { appWith, cookiesOf, testApp, type TestApp, type TestUser } from '../helpers/app.js'

/** SPEC.md "SSO login URL" state table and DECISIONS §3. */
describe('SSO login URLs', () => {
  let t: TestApp
  let admin: TestUser
  beforeAll(async () => { [t, admin] = await appWith({ admin: true }) })
  afterAll(() => t.close())

  async function issue(user: TestUser, app = t, by = admin) {
    const res = await by.api.get(`/api/user/login/${user.user.id}`)
    expect(res.statusCode).toBe(200)
    const url = new URL(res.json().url)
    return { url, path: url.pathname, token: url.pathname.split('/sso/')[1] }
  }
  const visit = (path: string, app = t) => app.app.inject({ method: 'GET', url: path })

  function expectGone(res: { statusCode: number; headers: Record<string, unknown>; body: string }) {
    expect(res.statusCode).toBe(410)
    expect(res.headers['content-type']).toMatch(/^text\/html/)
    expect(res.headers['content-security-policy']).toContain("default-src 'none'")
    expect(res.headers['set-cookie']).toBeUndefined()
    expect(res.body).toContain('Login link expired')
  }

  it('a first visit signs the user in: session cookie (HttpOnly, SameSite=Lax, not Secure on http) and 302 to /dashboard', async () => {
    const u = await t.makeUser()
    const { path } = await issue(u)
    const res = await visit(path)
    expect(res.statusCode).toBe(302)
    expect(res.headers.location).toBe('/dashboard')
    const cookie = String(res.headers['set-cookie'])
    expect(cookie).toMatch(/^kurz_session=[A-Za-z0-9_-]{43};/)
    expect(cookie).toMatch(/; HttpOnly/)
    expect(cookie).toMatch(/; SameSite=Lax/)
    expect(cookie).toMatch(/; Path=\//)
    expect(cookie).not.toMatch(/Secure/)
    const dash = await t.app.inject({ method: 'GET', url: '/dashboard', headers: { cookie: cookiesOf(res) } })
    expect(dash.statusCode).toBe(200)
    // /dashboard is the single-page app now: the session it runs on is this user's
    const session = await t.app.inject({ method: 'GET', url: '/api/session', headers: { cookie: cookiesOf(res) } })
    expect(session.statusCode).toBe(200)
    expect(session.json().user).toMatchObject({ id: u.user.id, username: u.user.username, email: u.user.email })
    // the session is stored hashed too
    const token = cookie.split(';')[0].split('=')[1]
    const [row] = await t.app.db.select().from(sessions).where(eq(sessions.userId, u.user.id))
    expect(row.tokenHash).toBe(sha256(token))
  })

  it('works a single time: the second visit is a 410 page', async () => {
    const u = await t.makeUser()
    const { path } = await issue(u)
    expect((await visit(path)).statusCode).toBe(302)
    expectGone(await visit(path))
    expectGone(await visit(path))
  })

  it('two simultaneous visits: exactly one 302 to /dashboard and one 410', async () => {
    for (let round = 0; round < 3; round++) {
      const u = await t.makeUser()
      const { path } = await issue(u)
      const results = await Promise.all([visit(path), visit(path)])
      const statuses = results.map((r) => r.statusCode).sort()
      expect(statuses).toEqual([302, 410])
      expect(results.find((r) => r.statusCode === 302)!.headers.location).toBe('/dashboard')
      expect(await t.app.db.select().from(sessions).where(eq(sessions.userId, u.user.id))).toHaveLength(1)
    }
  })

  it('ten simultaneous visits: still exactly one winner', async () => {
    const u = await t.makeUser()
    const { path } = await issue(u)
    const results = await Promise.all(Array.from({ length: 10 }, () => visit(path)))
    expect(results.filter((r) => r.statusCode === 302)).toHaveLength(1)
    expect(results.filter((r) => r.statusCode === 410)).toHaveLength(9)
  })

  it('is invalid after one hour', async () => {
    const u = await t.makeUser()
    const { path, token } = await issue(u)
    await t.app.db.update(ssoTokens).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(ssoTokens.tokenHash, sha256(token)))
    expectGone(await visit(path))
  })

  it('is still valid just before the hour is up', async () => {
    const u = await t.makeUser()
    const { path, token } = await issue(u)
    await t.app.db.update(ssoTokens).set({ expiresAt: new Date(Date.now() + 5_000) }).where(eq(ssoTokens.tokenHash, sha256(token)))
    expect((await visit(path)).statusCode).toBe(302)
  })

  it('a token altered by one character, truncated, extended or made up is a 410 and spends nothing', async () => {
    const u = await t.makeUser()
    const { token } = await issue(u)
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1)
    for (const bad of [flip(token, 0), flip(token, 20), flip(token, token.length - 1), token.slice(0, -1), token + 'A', 'x'.repeat(43), 'short', '%00', '..%2F..%2Fetc']) {
      expectGone(await visit(`/sso/${bad}`))
    }
    expect((await visit(`/sso/${token}`)).statusCode).toBe(302)
  })

  it('a HEAD request (link previews) does not spend the token', async () => {
    const u = await t.makeUser()
    const { path } = await issue(u)
    const head = await t.app.inject({ method: 'HEAD', url: path })
    expect(head.statusCode).toBe(200)
    expect(head.headers['set-cookie']).toBeUndefined()
    expect((await visit(path)).statusCode).toBe(302)
    // and says what a visit would find: the spent URL and one never issued are gone (DECISIONS §3: 410)
    const spent = await t.app.inject({ method: 'HEAD', url: path })
    expect(spent.statusCode).toBe(410)
    expect(spent.headers['set-cookie']).toBeUndefined()
    expect((await t.app.inject({ method: 'HEAD', url: `/sso/${'x'.repeat(43)}` })).statusCode).toBe(410)
    expect((await t.app.inject({ method: 'HEAD', url: '/sso/short' })).statusCode).toBe(410)
  })

  it('stores only the SHA-256 of the token', async () => {
    const u = await t.makeUser()
    const { token } = await issue(u)
    const rows = await t.app.db.select().from(ssoTokens).where(eq(ssoTokens.userId, u.user.id))
    expect(rows.map((r) => r.tokenHash)).toEqual([sha256(token)])
    expect(JSON.stringify(rows)).not.toContain(token)
  })

  it('an admin signing in as themselves works; as another admin is refused (403)', async () => {
    const { path } = await issue(admin)
    expect((await visit(path)).statusCode).toBe(302)
    const other = await t.makeUser({ admin: true })
    const res = await admin.api.get(`/api/user/login/${other.user.id}`)
    expect(res.statusCode).toBe(403)
  })

  it('a URL for a user deleted since is a 410', async () => {
    const u = await t.makeUser()
    const { path } = await issue(u)
    expect((await admin.api.del(`/api/user/${u.user.id}/delete`)).statusCode).toBe(200)
    expectGone(await visit(path))
  })

  describe('with an https PUBLIC_URL', () => {
    let s: TestApp
    beforeAll(async () => {
      s = await testApp({ PUBLIC_URL: 'https://short.example' })
    })
    afterAll(() => s.close())

    it('issues https URLs and marks the session cookie Secure', async () => {
      const boss = await s.makeUser({ admin: true })
      const u = await s.makeUser()
      const res = await boss.api.get(`/api/user/login/${u.user.id}`)
      expect(res.json().url).toMatch(/^https:\/\/short\.example\/sso\/[A-Za-z0-9_-]{43}$/)
      const hit = await s.app.inject({ method: 'GET', url: new URL(res.json().url).pathname })
      expect(hit.statusCode).toBe(302)
      const cookie = String(hit.headers['set-cookie'])
      expect(cookie).toMatch(/; Secure/)
      expect(cookie).toMatch(/; HttpOnly/)
      expect(cookie).toMatch(/; SameSite=Lax/)
    })
  })
})
