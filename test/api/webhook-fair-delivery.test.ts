import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServer, type IncomingMessage } from 'node:http'
import { performance } from 'node:perf_hooks'
import { testDatabase, type TestApp, type TestUser } from '../helpers/app.js'
import { addLink } from '../helpers/fixtures.js'
import { closeServer, listenLocally } from '../helpers/local-server.js'
import { eventually } from '../helpers/wait.js'
import { FAST, hookApp, Receiver } from './webhooks-helpers.js'

/*
 * The delivery worker gives each account at most `perAccount` of its slots: one account's receiver
 * that never answers, with a deep queue, held every slot before, and another account's deliveries
 * waited behind it (a 5 s timeout each, 16 at a time: hours for a backlog of 50,000).
 */
describe('webhooks: one account’s hanging receiver does not hold up another’s deliveries', () => {
  let db: Awaited<ReturnType<typeof testDatabase>>
  let t: TestApp
  let rx: Receiver
  const stalled: IncomingMessage[] = []
  // takes each request and never answers it
  const hanging = createServer((req) => void stalled.push(req))
  let hangingUrl = ''
  beforeAll(async () => {
    db = await testDatabase()
    t = await hookApp(db.handle, { ...FAST, concurrency: 4, perAccount: 2, timeoutMs: 8_000, leaseMs: 60_000 })
    rx = await new Receiver().start()
    hangingUrl = `${await listenLocally(hanging)}/hook`
  })
  afterAll(async () => {
    await closeServer(hanging)
    await t.close()
    await rx.close()
    await db.drop()
  })

  const addHook = async (u: TestUser, url: string) => expect((await u.api.post('/api/webhook/add', { url, events: ['link.created'] })).statusCode).toBe(200)

  it('a second account’s delivery goes out while the first account’s receiver holds its share of the slots', async () => {
    const alice = await t.makeUser()
    const bob = await t.makeUser()
    await addHook(alice, hangingUrl)
    for (let i = 0; i < 10; i++) await addLink(alice, { url: `https://example.com/alice/${i}` })
    await addHook(bob, rx.url)
    await addLink(bob, { url: 'https://example.com/bob', custom: 'fair-bob' })

    const started = performance.now()
    void t.app.webhooks.kick()
    await eventually(() => rx.of('link.created').some((r) => r.body.data.alias === 'fair-bob'), 'bob’s link.created delivered', 240)
    // well inside the 8 s the hanging sends take to time out: bob did not wait for them
    expect(performance.now() - started).toBeLessThan(5_000)
    // alice's receiver got her share, 2 of the 4 slots (both arrive), and no more while they hang
    await eventually(() => stalled.length >= 2, 'alice’s two sends arrive')
    await new Promise((r) => setTimeout(r, 500))
    expect(stalled).toHaveLength(2)
  })
})
