import { afterEach, describe, expect, it, vi } from 'vitest'
import type { FastifyBaseLogger } from 'fastify'
import { createServer } from 'node:net'
import { Redis } from 'ioredis'
import type { Db } from '../../src/db/client.js'
import { LOCAL_TTL, RETRY_AFTER_FAILURE, WebhookSubscriptions } from '../../src/resources/webhooks/subscriptions.js'

/**
 * The subscriptions are reread in the background as requests ask: while the database is away that
 * must cost one warning and one query every RETRY_AFTER_FAILURE, not a warning with a stack (and a
 * query) per request. The database is a stand-in that fails as pg does when its server is down.
 */
describe('webhook subscriptions while the database is away', () => {
  afterEach(() => vi.useRealTimers())

  it('one warning for the outage, rereads spaced, one line when it is back', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const lines: { level: string; msg: string }[] = []
    const log = {
      warn: (_o: unknown, msg: string) => lines.push({ level: 'warn', msg }),
      info: (msg: string) => lines.push({ level: 'info', msg }),
      debug: () => {},
    } as unknown as FastifyBaseLogger
    let queries = 0
    let away = false
    const rows = [{ userId: 1, events: ['link.created'] }]
    const db = {
      select: () => ({ from: () => ({ where: async () => { queries++; if (away) throw new Error('Connection terminated unexpectedly'); return rows } }) }),
    } as unknown as Db
    const subs = new WebhookSubscriptions(db, null, log)
    await subs.start()
    expect(subs.wants(1, 'link.created')).toBe(true)
    expect(subs.wants(2, 'link.created')).toBe(false)

    away = true
    vi.setSystemTime(Date.now() + LOCAL_TTL + 1)
    const settle = () => new Promise((r) => setImmediate(r))
    for (let i = 0; i < 200; i++) {
      subs.wants(2, 'link.created')
      await settle()
    }
    expect(queries).toBe(2) // the start's, and one failed reread: the next waits RETRY_AFTER_FAILURE
    expect(lines).toEqual([{ level: 'warn', msg: 'webhook subscriptions not reread; retried every 2 s until the database answers' }])
    // the last copy still answers meanwhile
    expect(subs.wants(1, 'link.created')).toBe(true)

    vi.setSystemTime(Date.now() + RETRY_AFTER_FAILURE + 1)
    subs.wants(2, 'link.created')
    await settle()
    expect(queries).toBe(3)
    expect(lines).toHaveLength(1)

    away = false
    vi.setSystemTime(Date.now() + RETRY_AFTER_FAILURE + 1)
    subs.wants(2, 'link.created')
    await settle()
    expect(queries).toBe(4)
    expect(lines.slice(1)).toEqual([{ level: 'info', msg: 'webhook subscriptions reread again' }])
    await subs.close()
  })

  it('with REDIS_URL set but Redis away, a change no message can announce is picked up after LOCAL_TTL, not BUS_TTL', async () => {
    const closed = createServer()
    const port = await new Promise<number>((done) => closed.listen(0, '127.0.0.1', () => done((closed.address() as { port: number }).port)))
    await new Promise((r) => closed.close(r))
    const redis = new Redis(`redis://127.0.0.1:${port}`, { maxRetriesPerRequest: 1, enableOfflineQueue: false })
    redis.on('error', () => {})
    const quiet = { warn: () => {}, info: () => {}, debug: () => {} } as unknown as FastifyBaseLogger
    let rows: { userId: number; events: string[] }[] = []
    const db = { select: () => ({ from: () => ({ where: async () => rows }) }) } as unknown as Db
    const subs = new WebhookSubscriptions(db, redis, quiet)
    try {
      await subs.start()
      expect(subs.wants(1, 'link.clicked')).toBe(false)
      // another instance enables a webhook; its message is lost with Redis
      rows = [{ userId: 1, events: ['link.clicked'] }]
      vi.useFakeTimers({ toFake: ['Date'] })
      vi.setSystemTime(Date.now() + LOCAL_TTL + 1)
      subs.wants(1, 'link.clicked')
      await new Promise((r) => setImmediate(r))
      expect(subs.wants(1, 'link.clicked')).toBe(true)
    } finally {
      await subs.close()
      redis.disconnect()
    }
  })
})
