import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testDatabase, type TestApp, type TestUser } from '../helpers/app.js'
import { addLink } from '../helpers/fixtures.js'
import { expectRedirect, visit } from '../helpers/visits.js'
import { checkingApp, Destination, until } from './helpers.js'

/*
 * The background checker (DECISIONS §10.5) with two instances on one database: every due link is
 * checked once per interval (not once per instance), and what it finds reaches visitors.
 */

describe('background health checks shared by two instances', () => {
  let db: Awaited<ReturnType<typeof testDatabase>>
  let one: TestApp
  let two: TestApp
  let alice: TestUser
  let dest: Destination
  // fast rounds, no pacing: the test is about who checks what, not about politeness
  const fast = { pollMs: 20, batch: 3, perSecond: 1000, hostSpacingMs: 0 }

  beforeAll(async () => {
    db = await testDatabase()
    dest = await new Destination().start()
    // the checkers start with the apps; links are made after, so both race for every one of them
    one = await checkingApp(db.handle, { HEALTH_CHECK_INTERVAL: '3600' }, fast)
    two = await checkingApp(db.handle, { HEALTH_CHECK_INTERVAL: '3600' }, fast)
    alice = await one.makeUser({ plan: 'pro' })
  })
  afterAll(async () => {
    await one.close()
    await two.close()
    await dest.close()
    await db.drop()
  })

  it('checks each link once per interval across instances, and a broken one sends visitors to its fallback on both', async () => {
    const paths = Array.from({ length: 10 }, (_, i) => `/bg${i}`)
    dest.answers.set('/bg3', 500)
    const ids: number[] = []
    for (const [i, p] of paths.entries()) {
      ids.push(await addLink(alice, { url: `${dest.origin}${p}`, custom: `bg-${i}`, fallback: 'https://example.com/bg-fallback' }))
    }
    const states = async () => Promise.all(ids.map(async (id) => (await alice.api.get(`/api/url/${id}?full=1`)).json().details.health.state))
    await until(async () => (await states()).every((s) => s !== 'unknown'), 'every link checked')

    expect(await states()).toEqual(paths.map((p) => (p === '/bg3' ? 'broken' : 'ok')))
    expect(paths.map((p) => dest.hits(p))).toEqual(paths.map(() => 1))

    expectRedirect(await visit(one, '/bg-3'), 302, 'https://example.com/bg-fallback')
    expectRedirect(await visit(two, '/bg-3'), 302, 'https://example.com/bg-fallback')
    expectRedirect(await visit(two, '/bg-4'), 302, `${dest.origin}/bg4`)
  })
})
