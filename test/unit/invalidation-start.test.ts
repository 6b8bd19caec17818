import { afterEach, describe, expect, it, vi } from 'vitest'
import { createServer } from 'node:net'
import { Redis } from 'ioredis'
import type { FastifyBaseLogger } from 'fastify'
import { InvalidationBus } from '../../src/redirect/invalidation.js'

const quiet = { debug: () => {}, warn: () => {}, info: () => {} } as unknown as FastifyBaseLogger

/** A port nothing listens on: connections to it are refused at once. */
async function refusedPort(): Promise<number> {
  return new Promise((done) => {
    const s = createServer()
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => done(port))
    })
  })
}

describe('a cache bus starting while Redis refuses connections', () => {
  let redis: Redis | undefined
  afterEach(() => {
    vi.useRealTimers()
    redis?.disconnect()
  })

  it('stops waiting at the first failed connect, not after its 3 s limit (three caches wait in turn at start)', async () => {
    redis = new Redis(`redis://127.0.0.1:${await refusedPort()}`, { maxRetriesPerRequest: 1, enableOfflineQueue: false })
    redis.on('error', () => {})
    const bus = new InvalidationBus(redis, quiet)
    const realTimeout = setTimeout
    // the bus's own timers frozen: only the refused connection itself can end the wait
    vi.useFakeTimers({ toFake: ['setTimeout'] })
    const started = bus.start({ link: () => {}, domain: () => {}, all: () => {} }).then(() => 'started')
    const outcome = await Promise.race([started, new Promise((r) => realTimeout(() => r('still waiting'), 2_000))])
    vi.useRealTimers()
    await bus.close()
    expect(outcome).toBe('started')
  })
})
