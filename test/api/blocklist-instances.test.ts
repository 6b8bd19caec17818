import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app.js'
import { testApp, testConfig, type TestApp, type TestUser } from '../helpers/app.js'
import { addLink } from '../helpers/fixtures.js'
import { redisUp, TEST_REDIS_URL } from '../helpers/redis.js'
import { eventually } from '../helpers/wait.js'
import { rescansDone } from '../../src/resources/blocklist/rescan.js'

const REDIS_URL = TEST_REDIS_URL

/**
 * Two instances on one database and Redis: a blocklist entry added on one quarantines a link the
 * other has cached, and the other stops redirecting to it; a release on one reaches the other.
 */
describe.skipIf(!(await redisUp()))('quarantine across instances (Redis)', () => {
  let t: TestApp
  let other: FastifyInstance
  let admin: TestUser
  let bob: TestUser

  beforeAll(async () => {
    t = await testApp({ REDIS_URL })
    other = await buildApp(testConfig({ REDIS_URL }), { db: t.handle })
    await other.ready()
    admin = await t.makeUser({ admin: true })
    bob = await t.makeUser({ plan: 'pro' })
  })
  afterAll(async () => {
    await other?.close()
    await t?.close()
  })

  const onOther = (path: string) => other.inject({ method: 'GET', url: path, headers: { host: 'kurz.test' } })

  it('a new entry on one instance quarantines a link cached on the other; a release comes back', async () => {
    const id = await addLink(bob, { url: 'https://shared-bad.example/x', custom: 'inst-q' })
    expect((await onOther('/inst-q')).statusCode).toBe(302) // cached on the other instance
    expect((await admin.api.post('/api/blocklist/add', { type: 'domain', value: 'shared-bad.example' })).statusCode).toBe(200)
    await rescansDone(t.app)
    await eventually(async () => (await onOther('/inst-q')).statusCode === 451, 'the quarantine reached the other instance')
    expect((await admin.api.post(`/api/url/${id}/release`)).statusCode).toBe(200)
    await eventually(async () => (await onOther('/inst-q')).statusCode === 302, 'the release reached the other instance')
  })
})
