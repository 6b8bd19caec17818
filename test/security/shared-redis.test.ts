import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app.js'
import { KEY_GUESSES } from '../../src/http/auth.js'
import { testApp, testConfig, type TestApp, type TestUser } from '../helpers/app.js'
import { addLink } from '../helpers/fixtures.js'
import { freshAddress } from '../helpers/addresses.js'
import { redisUp, TEST_REDIS_URL } from '../helpers/redis.js'

/*
 * Two deployments (each its own database) on one Redis server, as staging and production often
 * are: each keeps its own counts and hears only its own invalidations; the instances of one
 * deployment (one database) still share theirs. Redis keys and channels start with the
 * deployment's id (db/deployment-settings.ts, lib/redis.ts).
 */

const up = await redisUp()
const WRONG_KEY = 'WrongKey_' + 'z'.repeat(23)

describe.skipIf(!up)('two deployments sharing one Redis', () => {
  const env = { REDIS_URL: TEST_REDIS_URL }
  let a: TestApp
  let b: TestApp
  /** a second instance of deployment a: same database, same Redis */
  let sibling: FastifyInstance
  let userA: TestUser
  let userB: TestUser
  beforeAll(async () => {
    a = await testApp(env)
    b = await testApp(env)
    sibling = await buildApp(testConfig(env), { db: a.handle })
    await sibling.ready()
    userA = await a.makeUser({ plan: 'pro' })
    userB = await b.makeUser({ plan: 'pro' })
  })
  afterAll(async () => {
    await sibling?.close()
    await a?.close()
    await b?.close()
  })

  it("name their keys and channels with their own deployment's id; instances of one deployment share it", () => {
    const prefix = a.app.redis!.options.keyPrefix
    expect(prefix).toMatch(/^kurz:[0-9a-z]{10}:$/)
    expect(sibling.redis!.options.keyPrefix).toBe(prefix)
    expect(b.app.redis!.options.keyPrefix).toMatch(/^kurz:[0-9a-z]{10}:$/)
    expect(b.app.redis!.options.keyPrefix).not.toBe(prefix)
  })

  it('wrong API keys from an address count in their deployment only', async () => {
    const address = freshAddress()
    const wrong = (app: FastifyInstance) => app.inject({ method: 'GET', url: '/api/account', remoteAddress: address, headers: { authorization: `Bearer ${WRONG_KEY}` } })
    for (let i = 0; i < KEY_GUESSES; i++) expect((await wrong(a.app)).statusCode).toBe(401)
    expect((await wrong(a.app)).statusCode).toBe(429)
    // the same deployment's other instance counts them too
    expect((await wrong(sibling)).statusCode).toBe(429)
    // the other deployment has its own count for the address
    expect((await wrong(b.app)).statusCode).toBe(401)
  })

  it("a link changed in one deployment leaves the other's cached link of the same id alone", async () => {
    const idA = await addLink(userA, { url: 'https://example.com/a', custom: 'shared-a' })
    const idB = await addLink(userB, { url: 'https://example.com/b', custom: 'shared-b' })
    // fresh databases number alike: the invalidation names an id both deployments have
    expect(idB).toBe(idA)
    const get = (app: FastifyInstance, alias: string) => app.inject({ method: 'GET', url: `/${alias}`, headers: { host: 'kurz.test' } })
    expect((await get(b.app, 'shared-b')).statusCode).toBe(302)
    expect((await get(sibling, 'shared-a')).statusCode).toBe(302)
    const missesB = b.app.linkCache.stats().misses
    const missesSibling = sibling.linkCache.stats().misses

    expect((await userA.api.put(`/api/url/${idA}/update`, { url: 'https://example.com/a2' })).statusCode).toBe(200)
    // the sibling hears it: its next visit reads the link again and goes to the new URL
    await expect.poll(async () => (await get(sibling, 'shared-a')).headers.location).toBe('https://example.com/a2')
    expect(sibling.linkCache.stats().misses).toBeGreaterThan(missesSibling)
    // deployment b heard nothing: its link is still answered from its cache
    expect((await get(b.app, 'shared-b')).headers.location).toBe('https://example.com/b')
    expect(b.app.linkCache.stats().misses).toBe(missesB)
  })
})
