import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { LightMyRequestResponse } from 'fastify'
import { buildApp } from '../../src/app.js'
import { testApp, testConfig, type TestApp, type TestUser } from '../helpers/app.js'
import { redisUp, TEST_REDIS_URL } from '../helpers/redis.js'

/*
 * Session 36: the login throttle counted per address and email, so one address could try a few
 * passwords on each of thousands of emails. An address (an IPv6 /64) now has 30 failed sign-ins
 * in 15 minutes across all emails, beside the 5 per address and email.
 */

const CEILING = 30
// Redis keeps counters for 15 minutes between runs: addresses of this run's own keep runs apart
const run = randomBytes(2).toString('hex')
let seq = 0
/** a /64 of this run's own */
const fresh64 = () => `2001:db8:${run}:${(++seq).toString(16)}`
let emailSeq = 0
const strangerEmail = () => `nobody-${run}-${++emailSeq}@example.com`

function signIn(app: TestApp['app'], ip: string, email: string, password: string) {
  return app.inject({
    method: 'POST',
    url: '/login',
    remoteAddress: ip,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ email, password }).toString(),
  })
}

/** The answer the per-email throttle already gave: the sign-in page again, 429, Retry-After, the email kept, no session. */
function expectThrottled(res: LightMyRequestResponse, email: string) {
  expect(res.statusCode).toBe(429)
  expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
  expect(res.headers['retry-after']).toBe('900')
  expect(res.body).toContain('Too many attempts. Try again in 15 minutes.')
  expect(res.body).toContain(`value="${email}"`)
  expect(String(res.headers['set-cookie'] ?? '')).not.toMatch(/kurz_session=/)
}

/** `n` wrong passwords from `ip`, each on an email of its own: all answered 401. */
async function spray(app: TestApp['app'], ip: string | ((i: number) => string), n: number) {
  for (let i = 0; i < n; i++) {
    const res = await signIn(app, typeof ip === 'string' ? ip : ip(i), strangerEmail(), `guess ${i}`)
    expect(res.statusCode, `attempt ${i + 1}`).toBe(401)
  }
}

describe('failed sign-ins per address, across emails', () => {
  let t: TestApp
  let u: TestUser
  beforeAll(async () => {
    t = await testApp()
    u = await t.makeUser({ password: 'correct horse' })
  })
  afterAll(() => t.close())

  it(`after ${CEILING} failures on as many emails, the next email from that address is a 429, even with its right password`, async () => {
    const ip = '198.51.100.140'
    await spray(t.app, ip, CEILING)
    const next = strangerEmail()
    expectThrottled(await signIn(t.app, ip, next, 'whatever'), next)
    expectThrottled(await signIn(t.app, ip, u.user.email, 'correct horse'), u.user.email)
    // another address is untouched: a wrong password is a 401, the right one signs in
    expect((await signIn(t.app, '198.51.100.141', strangerEmail(), 'nope')).statusCode).toBe(401)
    const ok = await signIn(t.app, '198.51.100.141', u.user.email, 'correct horse')
    expect(ok.statusCode).toBe(302)
    expect(String(ok.headers['set-cookie'])).toMatch(/kurz_session=/)
  })

  it('one email hammered adds its 5 failures to the address, not every refusal', async () => {
    const ip = '198.51.100.142'
    const email = strangerEmail()
    const answers = []
    for (let i = 0; i < 12; i++) answers.push((await signIn(t.app, ip, email, `guess ${i}`)).statusCode)
    expect(answers).toEqual([...Array(5).fill(401), ...Array(7).fill(429)])
    await spray(t.app, ip, CEILING - 5)
    expect((await signIn(t.app, ip, strangerEmail(), 'nope')).statusCode).toBe(429)
  })

  it("a right sign-in is not counted, and does not wipe the address's failures", async () => {
    const ip = '198.51.100.143'
    await spray(t.app, ip, CEILING - 1)
    expect((await signIn(t.app, ip, u.user.email, 'correct horse')).statusCode).toBe(302)
    await spray(t.app, ip, 1)
    expect((await signIn(t.app, ip, strangerEmail(), 'nope')).statusCode).toBe(429)
  })

  it('an IPv6 client counts by its /64: a new address of it for each guess gains nothing, another /64 is untouched', async () => {
    const block = fresh64()
    await spray(t.app, (i) => `${block}::${(i + 1).toString(16)}`, CEILING)
    expect((await signIn(t.app, `${block}:ffff:1:2:3`, strangerEmail(), 'nope')).statusCode).toBe(429)
    expect((await signIn(t.app, `${fresh64()}::1`, u.user.email, 'correct horse')).statusCode).toBe(302)
  })
})

describe('with two instances sharing Redis', async () => {
  const up = await redisUp()
  let t: TestApp
  let second: TestApp['app']
  let u: TestUser
  beforeAll(async () => {
    if (!up) return
    const env = { REDIS_URL: TEST_REDIS_URL }
    t = await testApp(env)
    second = await buildApp(testConfig(env), { db: t.handle })
    await second.ready()
    u = await t.makeUser({ password: 'correct horse' })
  })
  afterAll(async () => {
    if (!up) return
    await second.close()
    await t.close()
  })

  it.skipIf(!up)('the ceiling is one count for both: failures spread over them reach it together', async () => {
    const ip = `${fresh64()}::1`
    for (let i = 0; i < CEILING; i++) {
      expect((await signIn(i % 2 ? second : t.app, ip, strangerEmail(), `guess ${i}`)).statusCode, `attempt ${i + 1}`).toBe(401)
    }
    expect((await signIn(t.app, ip, u.user.email, 'correct horse')).statusCode).toBe(429)
    expect((await signIn(second, ip, u.user.email, 'correct horse')).statusCode).toBe(429)
    expect((await signIn(second, `${fresh64()}::1`, u.user.email, 'correct horse')).statusCode).toBe(302)
  })
})
