import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { eq } from 'drizzle-orm'
import { buildApp } from '../../src/app.js'
import { links } from '../../src/db/schema/index.js'
import { testApp, testConfig, type TestApp, type TestUser } from '../helpers/app.js'
import { addV1Link } from '../helpers/fixtures.js'
import { clickRows } from '../helpers/visits.js'

/*
 * Issue 13 item 7: `expiration_clicks` is exact over several instances. Two app instances share one
 * database (and one Redis when REDIS_URL is set); both have the link in their redirect cache, then
 * simultaneous human visits alternate between them. Before: a cap of 10 served 20 redirects.
 */

const env: Record<string, string> = process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}
const BROWSER = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15'

describe(`expiration_clicks over two instances${env.REDIS_URL ? ' (Redis)' : ''}`, () => {
  let t: TestApp
  let second: FastifyInstance
  let pro: TestUser
  const instances = () => [t.app, second]

  /** One human visit (its own address) on instance `i % 2`. */
  const visitOn = (i: number, path: string, method: 'GET' | 'HEAD' = 'GET') =>
    instances()[i % 2].inject({ method, url: path, headers: { host: 'kurz.test', 'user-agent': BROWSER }, remoteAddress: `198.51.100.${(i % 250) + 1}` })

  const burst = (n: number, path: string) => Promise.all(Array.from({ length: n }, (_, i) => visitOn(i, path)))

  const locations = (list: LightMyRequestResponse[]) => {
    const by: Record<string, number> = {}
    for (const r of list) {
      const k = `${r.statusCode} ${r.headers.location ?? ''}`.trim()
      by[k] = (by[k] ?? 0) + 1
    }
    return by
  }

  async function storedClicks(id: number) {
    for (const app of instances()) await app.clicks.flush()
    const [row] = await t.app.db.select({ clicks: links.clicks }).from(links).where(eq(links.id, id))
    return row.clicks
  }

  beforeAll(async () => {
    t = await testApp(env)
    second = await buildApp(testConfig(env), { db: t.handle })
    await second.ready()
    pro = await t.makeUser({ plan: 'pro' })
  })
  afterAll(async () => {
    await second?.close()
    await t?.close()
  })

  it('a cap of 10 serves exactly 10 redirects to 60 simultaneous visits, then the 410 page', async () => {
    const id = await addV1Link(t, pro, { url: 'https://example.com/ten', alias: 'capTen', expiration_clicks: '10' })
    // both instances hold the link in their cache (HEAD is served and never counted)
    for (const i of [0, 1]) expect((await visitOn(i, '/capTen', 'HEAD')).statusCode).toBe(302)

    const answers = await burst(60, '/capTen')
    expect(locations(answers)).toEqual({ '302 https://example.com/ten': 10, '410': 50 })
    expect(await storedClicks(id)).toBe(10)
    expect(await clickRows(t, id)).toBe(10)

    // and it stays spent on both instances
    expect(locations(await burst(6, '/capTen'))).toEqual({ '410': 6 })
  })

  it('past the cap, visitors go to expiration_url; the cap counts every visit both instances let through', async () => {
    const id = await addV1Link(t, pro, { url: 'https://example.com/three', alias: 'capThree', expiration_clicks: '3', expiration_url: 'https://example.com/over' })
    for (const i of [0, 1]) await visitOn(i, '/capThree', 'HEAD')
    // one visit on each first, so each instance's own count stays below the cap
    expect(locations([await visitOn(0, '/capThree'), await visitOn(1, '/capThree')])).toEqual({ '302 https://example.com/three': 2 })
    expect(locations(await burst(20, '/capThree'))).toEqual({ '302 https://example.com/three': 1, '302 https://example.com/over': 19 })
    expect(await storedClicks(id)).toBe(3)
  })

  it('a cap set on a link that already has clicks counts them', async () => {
    const id = await addV1Link(t, pro, { url: 'https://example.com/later', alias: 'capLater' })
    // on the instance the update goes through: without Redis the other one would not hear of it for minutes
    for (let i = 0; i < 4; i++) expect((await visitOn(2 * i, '/capLater')).statusCode).toBe(302)
    expect(await storedClicks(id)).toBe(4)
    const res = await pro.api.put(`/api/v1/links/${id}`, 'expiration_clicks=6', { 'content-type': 'application/x-www-form-urlencoded' })
    expect(res.statusCode).toBe(200)
    expect(locations(await burst(12, '/capLater'))).toEqual({ '302 https://example.com/later': 2, '410': 10 })
    expect(await storedClicks(id)).toBe(6)
  })

  it('uncapped links are not limited', async () => {
    const id = await addV1Link(t, pro, { url: 'https://example.com/open', alias: 'noCap' })
    expect(locations(await burst(40, '/noCap'))).toEqual({ '302 https://example.com/open': 40 })
    expect(await storedClicks(id)).toBe(40)
  })
})
