import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { asc, eq } from 'drizzle-orm'
import { webhookDeliveries } from '../../src/db/schema/index.js'
import { DAY } from '../../src/lib/time.js'
import { testDatabase, type TestApp } from '../helpers/app.js'
import { FAST, hookApp, Receiver } from './webhooks-helpers.js'

/*
 * WEBHOOK_KEEP_DAYS (default 30): delivered and failed deliveries older than that are deleted (an
 * hourly prune, the first at start); pending ones are kept whatever their age, and younger rows stay.
 * The prune deletes by a range of ids: the rows are written in created_at order.
 */

describe('webhooks: how long deliveries are kept', () => {
  let db: Awaited<ReturnType<typeof testDatabase>>
  let t: TestApp | undefined
  let rx: Receiver
  beforeAll(async () => {
    db = await testDatabase()
    rx = await new Receiver().start()
  })
  afterAll(async () => {
    await t?.close()
    await rx.close()
    await db.drop()
  })

  it('with WEBHOOK_KEEP_DAYS=2, a start deletes the delivered and failed rows older than 2 days and keeps the rest', async () => {
    // an account and its webhook, made by an instance that keeps the default 30 days
    const first = await hookApp(db.handle, FAST)
    const u = await first.makeUser({ plan: 'pro' })
    const hook = (await u.api.post('/api/webhook/add', { url: rx.url, events: ['link.clicked'] })).json().id as number
    await first.close()

    const now = Date.now()
    const rows: { name: string; status: 'pending' | 'delivered' | 'failed'; age: number }[] = [
      { name: 'old delivered', status: 'delivered', age: 5 * DAY },
      { name: 'old failed', status: 'failed', age: 4 * DAY },
      { name: 'old pending', status: 'pending', age: 3 * DAY },
      { name: 'young delivered', status: 'delivered', age: DAY },
      { name: 'young failed', status: 'failed', age: DAY / 2 },
      { name: 'new delivered', status: 'delivered', age: 0 },
    ]
    for (const r of rows) {
      await db.handle.db.insert(webhookDeliveries).values({
        webhookId: hook,
        event: 'link.clicked',
        data: JSON.stringify({ name: r.name }),
        status: r.status,
        attempts: r.status === 'pending' ? 0 : 1,
        // a pending one is not due during the test
        nextAttemptAt: new Date(now + DAY),
        createdAt: new Date(now - r.age),
      })
    }

    t = await hookApp(db.handle, FAST, { WEBHOOK_KEEP_DAYS: '2' })
    // the start's first look for due deliveries prunes
    await t.app.webhooks.drain()
    const left = await db.handle.db.select({ data: webhookDeliveries.data }).from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, hook)).orderBy(asc(webhookDeliveries.id))
    expect(left.map((r) => JSON.parse(r.data).name)).toEqual(['old pending', 'young delivered', 'young failed', 'new delivered'])
    // what the owner reads is what is left
    const listed = (await t.api(u.key).get(`/api/webhook/${hook}/deliveries`)).json().data.deliveries as unknown[]
    expect(listed).toHaveLength(4)
  })
})
