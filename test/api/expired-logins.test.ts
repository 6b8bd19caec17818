import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { sessions, ssoTokens } from '../../src/db/schema/index.js'
import { deleteExpiredLogins } from '../../src/accounts/expired-logins.js'
import { DAY } from '../../src/lib/time.js'
import { sha256 } from '../../src/lib/crypto.js'
import { cookiesOf as cookieOf, testApp, type TestApp, type TestUser } from '../helpers/app.js'

/*
 * Session 37: dashboard sessions and SSO login URLs were never deleted once expired, so every
 * sign-in and every SSO URL added a row for good. A daily sweep (accounts/expired-logins.ts, the
 * first five minutes after start) deletes those past their expiry; live ones keep working.
 */

describe('expired sessions and SSO login URLs', () => {
  let t: TestApp
  let admin: TestUser
  let u: TestUser
  beforeAll(async () => {
    t = await testApp()
    admin = await t.makeUser({ admin: true })
    u = await t.makeUser({ plan: 'pro' })
  })
  afterAll(() => t.close())

  const ssoUrl = async () => new URL((await admin.api.get(`/api/user/login/${u.user.id}`)).json().url).pathname
  const signedIn = (cookie: string) => t.app.inject({ method: 'GET', url: '/api/session', headers: { cookie } }).then((r) => r.statusCode)

  it('deletes the sessions and SSO URLs past their expiry and leaves the live ones working', async () => {
    // two sessions through SSO URLs; two more URLs are left unused
    const usedUrl = await ssoUrl()
    const kept = cookieOf(await t.app.inject({ method: 'GET', url: usedUrl }))
    const stale = cookieOf(await t.app.inject({ method: 'GET', url: await ssoUrl() }))
    const unused = await ssoUrl()
    const unusedExpired = await ssoUrl()
    expect(await signedIn(kept)).toBe(200)
    expect(await signedIn(stale)).toBe(200)

    // one session and two URLs (one used, one not) run out
    expect(await t.app.db.select().from(sessions).where(eq(sessions.userId, u.user.id))).toHaveLength(2)
    const tokenOf = (cookie: string) => sha256(/kurz_session=([^;]+)/.exec(cookie)![1])
    await t.app.db.update(sessions).set({ expiresAt: new Date(Date.now() - DAY) }).where(eq(sessions.tokenHash, tokenOf(stale)))
    expect(await t.app.db.select().from(ssoTokens).where(eq(ssoTokens.userId, u.user.id))).toHaveLength(4)
    for (const path of [usedUrl, unusedExpired]) {
      await t.app.db.update(ssoTokens).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(ssoTokens.tokenHash, sha256(path.split('/sso/')[1])))
    }

    const swept = await deleteExpiredLogins(t.app.db)
    expect(swept).toEqual({ sessions: 1, ssoUrls: 2 })
    expect(await t.app.db.select().from(sessions).where(eq(sessions.userId, u.user.id))).toHaveLength(1)
    expect(await t.app.db.select().from(ssoTokens).where(eq(ssoTokens.userId, u.user.id))).toHaveLength(2)

    // the live session still signs in, the stale one does not; the live unused URL still opens a session
    expect(await signedIn(kept)).toBe(200)
    expect(await signedIn(stale)).toBe(401)
    const opened = await t.app.inject({ method: 'GET', url: unused })
    expect(await signedIn(cookieOf(opened))).toBe(200)
  })
})
