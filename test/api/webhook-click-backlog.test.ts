import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eq, inArray } from 'drizzle-orm'
import { webhookDeliveries } from '../../src/db/schema/index.js'
import { testDatabase, TS, type TestApp, type TestUser } from '../helpers/app.js'
import { addLink } from '../helpers/fixtures.js'
import { visit } from '../helpers/visits.js'
import { FAST, hookApp, Receiver } from './webhooks-helpers.js'
import { writeClickBatch, type BatchHook } from '../../src/clicks/batch.js'
import { clickEvents } from '../../src/resources/webhooks/clicks.js'

/*
 * WEBHOOK_CLICK_BACKLOG: while an account has that many deliveries pending, its click events are not
 * queued (its webhooks count them), so receivers that never answer cannot grow the outbox without end
 * or slow every account's click writes. Other accounts, and the account's other events, go on.
 */

const HUMAN = { 'user-agent': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36' }

describe('webhooks: the click event backlog', () => {
  let db: Awaited<ReturnType<typeof testDatabase>>
  let t: TestApp
  let rx: Receiver
  beforeAll(async () => {
    db = await testDatabase()
    // the delivery worker polls every 10 s (FAST): deliveries stay pending until the test drains them
    t = await hookApp(db.handle, FAST, { WEBHOOK_CLICK_BACKLOG: '6' })
    rx = await new Receiver().start()
  })
  afterAll(async () => {
    await t.close()
    await rx.close()
    await db.drop()
  })

  const hookOf = async (u: TestUser, events: string[]) => (await u.api.post('/api/webhook/add', { url: rx.url, events })).json().id as number
  const queuedFor = async (ids: number[]) =>
    (await t.handle.db.select({ id: webhookDeliveries.id }).from(webhookDeliveries).where(inArray(webhookDeliveries.webhookId, ids))).length
  const clicks = async (u: TestUser, alias: string, n: number) => {
    for (let i = 0; i < n; i++) expect((await visit(t, `/${alias}`, { headers: HUMAN, remoteAddress: `203.0.113.${i + 1}` })).statusCode).toBe(302)
    await t.app.clicks.flush()
  }
  const metric = async (name: string) => Number(new RegExp(`^${name.replace(/[{}"]/g, '\\$&')} (\\d+)$`, 'm').exec((await t.app.inject({ url: '/metrics' })).body)?.[1])
  const skippedMetric = () => metric('kurz_webhook_click_events_skipped_total')

  it('stops queueing an account’s click events at the cap and counts them on its webhooks; others go on; they resume once delivered', async () => {
    const alice = await t.makeUser()
    const bob = await t.makeUser()
    const a1 = await hookOf(alice, ['link.clicked'])
    const a2 = await hookOf(alice, ['link.clicked', 'link.created'])
    const b1 = await hookOf(bob, ['link.clicked'])
    const aliceLink = await addLink(alice, { url: 'https://example.com/a', custom: 'backlog-a' })
    await addLink(bob, { url: 'https://example.com/b', custom: 'backlog-b' })
    const before = await skippedMetric()

    // one batch of 4 clicks x 2 webhooks: the first 3 fill the cap of 6 (beside a2's link.created), the 4th is skipped
    await clicks(alice, 'backlog-a', 4)
    expect(await queuedFor([a1, a2])).toBe(7)
    // full: the next clicks are recorded, but queue nothing for alice's webhooks
    await clicks(alice, 'backlog-a', 2)
    expect(await queuedFor([a1, a2])).toBe(7)
    expect((await alice.api.get(`/api/url/${aliceLink}/stats`)).json().data.totals.clicks).toBe(6)
    for (const id of [a1, a2]) {
      const w = (await alice.api.get(`/api/webhook/${id}`)).json().data
      expect(w).toMatchObject({ clickEventsSkipped: 3, clickEventsSkippedAt: expect.stringMatching(TS) })
    }
    expect(await skippedMetric()).toBe(before + 6)
    // alice's other events still queue
    await addLink(alice, { url: 'https://example.com/a2', custom: 'backlog-a2' })
    expect(await queuedFor([a2])).toBe(5)
    // bob has a backlog of his own
    await clicks(bob, 'backlog-b', 2)
    expect(await queuedFor([b1])).toBe(2)
    expect((await bob.api.get(`/api/webhook/${b1}`)).json().data).toMatchObject({ clickEventsSkipped: 0, clickEventsSkippedAt: null })

    // /metrics reads the queue through its partial index
    const pendingNow = (await t.handle.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.status, 'pending'))).length
    expect(await metric('kurz_webhook_deliveries{status="pending"}')).toBe(pendingNow)
    const deliveredBefore = await metric('kurz_webhook_deliveries_delivered_total')

    // delivered, the backlog empties; a full account is counted again within a second
    await t.app.webhooks.drain()
    expect(await metric('kurz_webhook_deliveries{status="pending"}')).toBe(0)
    expect(await metric('kurz_webhook_deliveries_delivered_total')).toBe(deliveredBefore + pendingNow)
    expect(rx.of('link.clicked')).toHaveLength(8)
    await new Promise((r) => setTimeout(r, 1_100))
    await clicks(alice, 'backlog-a', 1)
    const queued = await t.handle.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.status, 'pending'))
    expect(queued.map((d) => [d.webhookId, d.event]).sort()).toEqual([[a1, 'link.clicked'], [a2, 'link.clicked']].sort())
    expect((await alice.api.get(`/api/webhook/${a1}`)).json().data.clickEventsSkipped).toBe(3)
    // given up on: counted as failed, not delivered
    await t.handle.db.update(webhookDeliveries).set({ status: 'failed' }).where(eq(webhookDeliveries.status, 'pending'))
    expect(await metric('kurz_webhook_deliveries{status="failed"}')).toBe(2)
    expect(await metric('kurz_webhook_deliveries{status="pending"}')).toBe(0)
  })
  it('a disabled webhook’s waiting deliveries do not count: switching off a dead receiver makes room for the others', async () => {
    const carol = await t.makeUser()
    const dead = await hookOf(carol, ['link.clicked'])
    await addLink(carol, { url: 'https://example.com/c', custom: 'backlog-c' })
    await clicks(carol, 'backlog-c', 7)
    expect(await queuedFor([dead])).toBe(6)
    const other = await hookOf(carol, ['link.clicked'])
    await new Promise((r) => setTimeout(r, 1_100))
    await clicks(carol, 'backlog-c', 1)
    expect(await queuedFor([other])).toBe(0)

    expect((await carol.api.put(`/api/webhook/${dead}/update`, { enabled: false })).statusCode).toBe(200)
    await new Promise((r) => setTimeout(r, 1_100))
    await clicks(carol, 'backlog-c', 1)
    expect(await queuedFor([other])).toBe(1)
    // the disabled webhook's deliveries are still there, waiting for it
    expect(await queuedFor([dead])).toBe(6)
  })

  it('a batch that rolls back after queuing counts nothing in memory; written again, it counts once', async () => {
    const dave = await t.makeUser()
    const hook = await hookOf(dave, ['link.clicked'])
    const link = await addLink(dave, { url: 'https://example.com/d', custom: 'backlog-d' })
    // fill dave's room (6) so the batches below are all skipped events
    await clicks(dave, 'backlog-d', 6)
    expect(await queuedFor([hook])).toBe(6)
    await new Promise((r) => setTimeout(r, 1_100))
    const before = await skippedMetric()

    // the click writer's own hook, and a transaction that fails after it ran (a lost connection at COMMIT)
    const real = clickEvents(t.config.publicUrl, t.app.webhookSubscriptions, t.app.clickEventBacklog)
    let failNext = true
    const flaky: BatchHook = {
      active: () => true,
      write: async (tx, hits) => {
        const after = await real.write(tx, hits)
        if (failNext) {
          failNext = false
          throw new Error('the connection went at COMMIT')
        }
        return after
      },
    }
    const batch = () => [0, 1, 2].map((i) => ({ linkId: link, userId: dave.user.id, at: Date.now(), source: 'link' as const, human: true, visitor: { ip: `203.0.113.${60 + i}`, userAgent: HUMAN['user-agent'], referrer: '', acceptLanguage: '', language: null, device: null, isBot: false, isCrawler: false } }))
    await expect(writeClickBatch(t.handle.db, Buffer.alloc(32, 7), batch(), flaky)).rejects.toThrow(/COMMIT/)
    expect(await skippedMetric()).toBe(before)
    expect((await dave.api.get(`/api/webhook/${hook}`)).json().data.clickEventsSkipped).toBe(0)
    // the recorder writes the batch again: now it counts, once
    expect(await writeClickBatch(t.handle.db, Buffer.alloc(32, 7), batch(), flaky)).toBe(3)
    expect(await skippedMetric()).toBe(before + 3)
    expect((await dave.api.get(`/api/webhook/${hook}`)).json().data.clickEventsSkipped).toBe(3)
  })
})
