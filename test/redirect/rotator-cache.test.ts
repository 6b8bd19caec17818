import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { eq } from 'drizzle-orm'
import { buildApp } from '../../src/app.js'
import { campaigns } from '../../src/db/schema/index.js'
import { LinkCache } from '../../src/redirect/cache.js'
import { appWith, testApp, testConfig, type TestApp, type TestUser } from '../helpers/app.js'
import { addLink } from '../helpers/fixtures.js'
import { redisUp, TEST_REDIS_URL } from '../helpers/redis.js'
import { eventually } from '../helpers/wait.js'
import { expectPage, expectRedirect, visit } from '../helpers/visits.js'

/**
 * Campaign rotators (`/r/<slug>`) are held in memory like links: a rotator is read once, and every
 * write that changes what it may answer (a campaign added, changed or deleted, a link joining one)
 * shows at the next visit, on this instance and, through Redis, on the others.
 */
async function campaign(user: TestUser, slug: string): Promise<number> {
  const res = await user.api.post('/api/campaign/add', { name: `Campaign ${slug}`, slug })
  expect(res.statusCode).toBe(200)
  return res.json().id
}

/** Where `count` visits of a rotator went. */
async function destinations(visitOnce: () => Promise<{ statusCode: number; headers: Record<string, unknown> }>, count = 30): Promise<string[]> {
  const seen = new Set<string>()
  for (let i = 0; i < count; i++) {
    const res = await visitOnce()
    expect(res.statusCode).toBe(302)
    seen.add(res.headers.location as string)
  }
  return [...seen].sort()
}

describe('rotator cache on one instance', () => {
  let t: TestApp
  let pro: TestUser
  beforeAll(async () => { [t, pro] = await appWith({ plan: 'pro' }) })
  afterAll(() => t?.close())

  const rotate = (slug: string) => () => visit(t, `/r/${slug}`)

  it('reads a rotator once, then answers it from memory', async () => {
    const cid = await campaign(pro, 'memo')
    await addLink(pro, { url: 'https://example.com/memo', custom: 'memo1', campaign: cid })
    expectRedirect(await visit(t, '/r/memo'), 302, 'https://example.com/memo')
    // a change no write announced (straight into the database): the rotator answers from memory
    await t.app.db.update(campaigns).set({ slug: 'memo-moved' }).where(eq(campaigns.id, cid))
    expectRedirect(await visit(t, '/r/memo'), 302, 'https://example.com/memo')
    // a write through the API drops it: the database's slug answers now
    expect((await pro.api.put(`/api/campaign/${cid}/update`, { name: 'Memo', slug: 'memo-new' })).statusCode).toBe(200)
    expectPage(await visit(t, '/r/memo'), 404)
    expectPage(await visit(t, '/r/memo-moved'), 404)
    expectRedirect(await visit(t, '/r/memo-new'), 302, 'https://example.com/memo')
  })

  it('shows each change of a rotator at the next visit: a new campaign, a new link in it, an assigned one, a renamed slug, a deletion', async () => {
    // a slug without a campaign is remembered as such; making the campaign is announced
    expectPage(await visit(t, '/r/fresh'), 404)
    const cid = await campaign(pro, 'fresh')
    expectPage(await visit(t, '/r/fresh'), 404) // no links yet
    await addLink(pro, { url: 'https://example.com/f1', custom: 'fresh1', campaign: cid })
    expect(await destinations(rotate('fresh'), 5)).toEqual(['https://example.com/f1'])
    await addLink(pro, { url: 'https://example.com/f2', custom: 'fresh2', campaign: cid })
    expect(await destinations(rotate('fresh'))).toEqual(['https://example.com/f1', 'https://example.com/f2'])
    const loose = await addLink(pro, { url: 'https://example.com/f3', custom: 'fresh3' })
    expect((await pro.api.post(`/api/campaign/${cid}/assign/${loose}`)).statusCode).toBe(200)
    expect(await destinations(rotate('fresh'), 40)).toEqual(['https://example.com/f1', 'https://example.com/f2', 'https://example.com/f3'])
    // a link taken out of the campaign goes at once
    expect((await pro.api.put(`/api/url/${loose}/update`, { url: 'https://example.com/f3', campaign: null })).statusCode).toBe(200)
    expect(await destinations(rotate('fresh'))).toEqual(['https://example.com/f1', 'https://example.com/f2'])

    expect((await pro.api.put(`/api/campaign/${cid}/update`, { name: 'Fresh', slug: 'fresh-b' })).statusCode).toBe(200)
    expectPage(await visit(t, '/r/fresh'), 404)
    expect(await destinations(rotate('fresh-b'), 5)).not.toEqual([])
    expect((await pro.api.del(`/api/campaign/${cid}/delete`)).statusCode).toBe(200)
    expectPage(await visit(t, '/r/fresh-b'), 404)
  })

  it('rereads an aged rotator behind the visit that finds it so', async () => {
    // the clock is held, so a slow machine cannot age the entry before the "fresh" step
    vi.useFakeTimers({ toFake: ['Date'] })
    try {
      const cache = new LinkCache({ db: t.app.db, defaultHost: 'kurz.test', liveClicks: t.app.clicks.live, log: t.app.log, redis: null, freshMs: 100, ttlMs: 600_000 })
      const cid = await campaign(pro, 'aging')
      const rotation = await cache.rotations.get('aging')
      expect(rotation).toEqual({ id: cid, linkIds: [] })
      const id = await addLink(pro, { url: 'https://example.com/aging', custom: 'aging1', campaign: cid })
      // fresh: memory answers without the new link, and reads nothing
      expect(cache.rotations.get('aging')).toEqual({ id: cid, linkIds: [] })
      await new Promise((r) => setTimeout(r, 50))
      expect(cache.rotations.get('aging')).toEqual({ id: cid, linkIds: [] })
      vi.setSystemTime(Date.now() + 250)
      // aged: still answered at once, read again behind it
      expect(cache.rotations.get('aging')).toEqual({ id: cid, linkIds: [] })
      await eventually(() => {
        const r = cache.rotations.get('aging')
        return !(r instanceof Promise) && r?.linkIds.includes(id) === true
      }, 'the aged rotator was read again')
    } finally {
      vi.useRealTimers()
    }
  })
})

/** Two instances on one database: a campaign change on one reaches the other's rotators (REDIS_URL). */
describe.skipIf(!(await redisUp()))('rotator cache across instances through Redis', () => {
  let t: TestApp
  let other: FastifyInstance
  let pro: TestUser

  beforeAll(async () => {
    t = await testApp({ REDIS_URL: TEST_REDIS_URL })
    other = await buildApp(testConfig({ REDIS_URL: TEST_REDIS_URL }), { db: t.handle })
    await other.ready()
    pro = await t.makeUser({ plan: 'pro' })
  })
  afterAll(async () => {
    await other?.close()
    await t?.close()
  })

  const onOther = (path: string) => other.inject({ method: 'GET', url: path, headers: { host: 'kurz.test' } })

  it('a new link in a campaign, a renamed slug and a deletion on one instance reach the other', async () => {
    const cid = await campaign(pro, 'shared-rot')
    await addLink(pro, { url: 'https://example.com/s1', custom: 'sharedRot1', campaign: cid })
    expectRedirect(await onOther('/r/shared-rot'), 302, 'https://example.com/s1') // now held by the other instance
    await addLink(pro, { url: 'https://example.com/s2', custom: 'sharedRot2', campaign: cid })
    await eventually(async () => (await destinations(() => onOther('/r/shared-rot'), 20)).length === 2, 'the new link reached the other instance')
    expect((await pro.api.put(`/api/campaign/${cid}/update`, { name: 'Shared', slug: 'shared-rot-b' })).statusCode).toBe(200)
    await eventually(async () => (await onOther('/r/shared-rot')).statusCode === 404, 'the new slug reached the other instance')
    expect((await onOther('/r/shared-rot-b')).statusCode).toBe(302)
    expect((await pro.api.del(`/api/campaign/${cid}/delete`)).statusCode).toBe(200)
    await eventually(async () => (await onOther('/r/shared-rot-b')).statusCode === 404, 'the deletion reached the other instance')
  })
})
