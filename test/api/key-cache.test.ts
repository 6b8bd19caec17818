import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app.js'
import type { KeyLookup } from '../../src/accounts/api-keys.js'
import { KeyCache } from '../../src/accounts/key-cache.js'
import { users } from '../../src/db/schema/index.js'
import { appWith, testApp, testConfig, type TestApp, type TestUser } from '../helpers/app.js'
import { redisUp, TEST_REDIS_URL } from '../helpers/redis.js'
import { eventually } from '../helpers/wait.js'

/*
 * API keys are looked up once and then kept per instance for a few seconds (accounts/key-cache.ts).
 * Whatever changes an account, its plan or its key takes effect on the next request of the
 * instance that made the change, and on the others through Redis.
 */

const redis = await redisUp()

describe('the per-instance API key cache', () => {
  let t: TestApp
  let admin: TestUser
  let user: TestUser
  beforeAll(async () => { [t, admin, user] = await appWith({ admin: true }, { plan: 'pro' }) })
  afterAll(() => t?.close())

  it('a rotated key is refused on the very next request', async () => {
    expect((await user.api.get('/api/account')).statusCode).toBe(200)
    const rotated = await user.api.post('/api/account/apikey')
    expect(rotated.statusCode).toBe(200)
    expect((await user.api.get('/api/account')).statusCode).toBe(401)
    user = { ...user, key: rotated.json().apikey, api: t.api(rotated.json().apikey) }
    expect((await user.api.get('/api/account')).statusCode).toBe(200)
  })

  it("a plan that loses the api feature refuses its users' keys at once", async () => {
    const planId = (await t.app.db.select({ planId: users.planId }).from(users).where(eq(users.id, user.user.id)))[0].planId!
    expect((await user.api.get('/api/account')).statusCode).toBe(200)
    const off = await admin.api.put(`/api/plan/${planId}/update`, { limits: { api: { enabled: 'false' } } })
    expect(off.statusCode, off.body).toBe(200)
    expect((await user.api.get('/api/account')).statusCode).toBe(403)
    expect((await admin.api.put(`/api/plan/${planId}/update`, { limits: { api: { enabled: 'true' } } })).statusCode).toBe(200)
    expect((await user.api.get('/api/account')).statusCode).toBe(200)
  })

  it("a deleted user's key is refused at once", async () => {
    const gone = await t.makeUser({})
    expect((await gone.api.get('/api/account')).statusCode).toBe(200)
    expect((await admin.api.del(`/api/user/${gone.user.id}/delete`)).statusCode).toBe(200)
    expect((await gone.api.get('/api/account')).statusCode).toBe(401)
  })

  it('an email change shows on the next read of the account', async () => {
    expect((await user.api.get('/api/account')).json().data.email).not.toBe('renamed@example.com')
    expect((await user.api.put('/api/account/update', { email: 'renamed@example.com' })).statusCode).toBe(200)
    expect((await user.api.get('/api/account')).json().data.email).toBe('renamed@example.com')
  })
})

describe('lookups in flight', () => {
  const found = (keyHash: string) => ({ keyHash, keyId: 1, revoked: false, plan: null, user: { id: 1 } }) as unknown as KeyLookup
  /** a load that answers when told to, counting its calls */
  function slowLoad(answer: KeyLookup | null) {
    let release = () => {}
    const gate = new Promise<void>((r) => (release = r))
    const load = { calls: 0, release, fn: async () => { load.calls++; await gate; return answer } }
    return load
  }

  it('a burst of requests with one key asks the database once, and the answer is kept', async () => {
    const cache = new KeyCache()
    const load = slowLoad(found('h1'))
    const burst = Array.from({ length: 20 }, () => cache.resolve('h1', load.fn))
    load.release()
    const answers = await Promise.all(burst)
    expect(load.calls).toBe(1)
    expect(new Set(answers).size).toBe(1)
    expect(cache.get('h1')).toBe(answers[0])
  })

  it('a lookup in flight when the accounts change is not kept, and later requests ask again', async () => {
    const cache = new KeyCache()
    const before = slowLoad(found('h2'))
    const first = cache.resolve('h2', before.fn)
    cache.clear() // e.g. the key was rotated meanwhile
    const after = slowLoad(null)
    const second = cache.resolve('h2', after.fn)
    before.release()
    after.release()
    expect(await first).not.toBeNull()
    expect(await second).toBeNull()
    expect([before.calls, after.calls]).toEqual([1, 1])
    expect(cache.get('h2')).toBeUndefined()
  })

  it('a key not found is not kept: the next request asks again', async () => {
    const cache = new KeyCache()
    const load = slowLoad(null)
    load.release()
    expect(await cache.resolve('h3', load.fn)).toBeNull()
    expect(await cache.resolve('h3', load.fn)).toBeNull()
    expect(load.calls).toBe(2)
  })
})

describe.skipIf(!redis)('the key cache of two instances with Redis', () => {
  let a: TestApp
  let b: FastifyInstance
  let user: TestUser
  beforeAll(async () => {
    a = await testApp({ REDIS_URL: TEST_REDIS_URL })
    b = await buildApp(testConfig({ REDIS_URL: TEST_REDIS_URL }), { db: a.handle })
    await b.ready()
    user = await a.makeUser({ plan: 'pro' })
  })
  afterAll(async () => {
    await b?.close()
    await a?.close()
  })

  const onB = (key: string) => b.inject({ method: 'GET', url: '/api/account', headers: { authorization: `Bearer ${key}` } }).then((r) => r.statusCode)

  it('a key rotated on one instance is refused by the other', async () => {
    expect(await onB(user.key)).toBe(200) // now kept by b
    const rotated = await user.api.post('/api/account/apikey')
    expect(rotated.statusCode).toBe(200)
    await eventually(async () => (await onB(user.key)) === 401, 'the rotation reached the other instance')
    expect(await onB(rotated.json().apikey)).toBe(200)
  })
})
