import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { sessions } from '../../src/db/schema/index.js'
import { createSession, SESSION_COOKIE, SESSIONS_PER_USER } from '../../src/accounts/sessions.js'
import { cookiesOf, testApp, type TestApp, type TestUser } from '../helpers/app.js'

/*
 * Session 38: every sign-in added a session and nothing bounded how many one user held, so a script
 * signing in in a loop grew the table for a week at a time. A user keeps the newest
 * SESSIONS_PER_USER; a sign-in past that ends the oldest, and only that one.
 */
describe('sessions per user', () => {
  let t: TestApp
  let admin: TestUser
  let u: TestUser
  let other: TestUser
  beforeAll(async () => {
    t = await testApp()
    admin = await t.makeUser({ admin: true })
    u = await t.makeUser({ plan: 'pro' })
    other = await t.makeUser({ plan: 'pro' })
  })
  afterAll(() => t.close())

  const signIn = async (who: TestUser) => {
    const url = new URL((await admin.api.get(`/api/user/login/${who.user.id}`)).json().url).pathname
    return cookiesOf(await t.app.inject({ method: 'GET', url }))
  }
  const signedIn = (cookie: string) => t.app.inject({ method: 'GET', url: '/api/session', headers: { cookie } }).then((r) => r.statusCode)
  const held = async (who: TestUser) => (await t.app.db.select().from(sessions).where(eq(sessions.userId, who.user.id))).length

  it(`keeps the newest ${SESSIONS_PER_USER}: a sign-in past that ends the oldest session, not another user's`, async () => {
    const otherCookie = await signIn(other)
    const oldest = await signIn(u)
    const second = await signIn(u)
    for (let i = 2; i < SESSIONS_PER_USER; i++) await createSession(t.app.db, u.user.id)
    expect(await held(u)).toBe(SESSIONS_PER_USER)
    expect(await signedIn(oldest)).toBe(200)

    const newest = await signIn(u)
    expect(newest).toContain(`${SESSION_COOKIE}=`)
    expect(await held(u)).toBe(SESSIONS_PER_USER)
    expect(await signedIn(newest)).toBe(200)
    expect(await signedIn(oldest)).toBe(401)
    expect(await signedIn(second)).toBe(200)
    expect(await signedIn(otherCookie)).toBe(200)
    expect(await held(other)).toBe(1)
  })
})
