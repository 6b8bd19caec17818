import { describe, expect, it } from 'vitest'
import type { FastifyBaseLogger } from 'fastify'
import type { Db } from '../../src/db/client.js'
import { DeliveryWorker } from '../../src/resources/webhooks/deliver.js'

/**
 * The webhook worker polls every second: while the database is away it says so once, and once
 * again when it is back, instead of a warning with a stack on every poll. The database here is a
 * stand-in that fails the way pg does when its server is down; the worker's logging is what is tested.
 */
describe('webhook deliveries while the database is away', () => {
  it('warn once when it goes, say once when it is back, and keep warning for other failures', async () => {
    const lines: { level: string; msg: string }[] = []
    const log = {
      warn: (_o: unknown, msg: string) => lines.push({ level: 'warn', msg }),
      info: (msg: string) => lines.push({ level: 'info', msg }),
    } as unknown as FastifyBaseLogger
    let failure: Error | null = new Error('Connection terminated unexpectedly')
    const db = { execute: async () => { if (failure) throw failure; return { rows: [] } } } as unknown as Db
    const worker = new DeliveryWorker(db, log)
    for (let i = 0; i < 5; i++) await worker.kick()
    expect(lines).toEqual([{ level: 'warn', msg: 'webhook deliveries: the database is away; waiting for it' }])

    failure = null
    await worker.kick()
    await worker.kick()
    expect(lines.slice(1)).toEqual([{ level: 'info', msg: 'webhook deliveries: the database is back; sending again' }])

    // anything else is a fault worth a line each time
    failure = new Error('relation "webhook_deliveries" does not exist')
    await worker.kick()
    await worker.kick()
    expect(lines.slice(2).map((l) => l.msg)).toEqual(['webhook deliveries: claiming failed; retrying on the next poll', 'webhook deliveries: claiming failed; retrying on the next poll'])
    await worker.close()
  })
})
