import { randomUUID } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import type { Redis } from 'ioredis'
import { channelOf } from '../lib/redis.js'

const CHANNEL = 'link-cache'

export interface InvalidationHandlers {
  link(id: number): void
  domain(id: number): void
  /** campaign rotators: a campaign was added, changed or deleted (the redirect cache's channel only) */
  rotations?(): void
  /** everything, including after a reconnect (messages sent meanwhile are lost) */
  all(): void
}

export type Invalidation = { kind: 'link' | 'domain'; id: number } | { kind: 'rotations' } | { kind: 'all' }

/**
 * Tells the other instances (REDIS_URL) what to drop from their redirect caches, over Redis
 * pub/sub. Without Redis there is nobody to tell and every call is a no-op. An instance ignores
 * its own messages: it has already dropped what it publishes.
 */
export class InvalidationBus {
  private readonly origin = randomUUID()
  private subscriber: Redis | null = null
  private listening = false

  /** the channel as this deployment names it (lib/redis.ts) */
  private readonly channel: string

  /**
   * `redis` is the publishing connection; a second one is opened for the subscription. `channel` is
   * another cache's own (webhook subscriptions); the redirect cache's by default.
   */
  constructor(
    private readonly redis: Redis | null,
    private readonly log: FastifyBaseLogger,
    channel = CHANNEL,
  ) {
    this.channel = redis ? channelOf(redis, channel) : channel
  }

  /**
   * Redis is configured but this instance is not subscribed (away, or not reached yet): another
   * instance's changes are not heard, so the caches bound their copies' age more tightly meanwhile.
   */
  get down(): boolean {
    return this.redis !== null && !this.listening
  }

  /** Other instances' changes reach this one now: Redis is configured and subscribed. */
  get heard(): boolean {
    return this.listening
  }

  /** Subscribes, resolving once subscribed, or once Redis fails to connect, or after at most 3 s. */
  async start(on: InvalidationHandlers): Promise<void> {
    if (!this.redis) return
    // we subscribe on every 'ready' ourselves, with a catch: ioredis's own resubscribe has none, and
    // with the offline queue off it rejects unhandled when the link drops again while reconnecting
    const sub = this.redis.duplicate({ autoResubscribe: false })
    this.subscriber = sub
    // every failed reconnect is an 'error': the main connection already warned once (health.ts watchRedis)
    sub.on('error', (err) => this.log.debug({ err: err.message }, 'redis subscriber error'))
    sub.on('close', () => (this.listening = false))
    let subscribed!: () => void
    const first = new Promise<void>((resolve) => (subscribed = resolve))
    sub.on('ready', () => {
      // invalidations published while we were not listening are lost: start from an empty cache.
      // Every time, the first connect too: an instance that started while Redis was away has
      // served (and cached) meanwhile
      on.all()
      sub.subscribe(this.channel).then(
        () => {
          this.listening = true
          subscribed()
        },
        (err: Error) => this.log.warn({ err: err.message }, 'redis subscribe failed; retried on reconnect'),
      )
    })
    sub.on('message', (channel, message) => {
      if (channel !== this.channel) return
      const [origin, kind, id] = message.split('|')
      if (origin === this.origin) return
      if (kind === 'l') on.link(Number(id))
      else if (kind === 'd') on.domain(Number(id))
      else if (kind === 'r') on.rotations?.()
      else if (kind === '*') on.all()
    })
    // start serving once subscribed, but never hang the start on an unreachable Redis: its first
    // failed connect (at once when refused, after connectTimeout when it hangs) ends the wait, as
    // do 3 s (three caches wait in turn: a refused Redis cost the start 9 s)
    const failed = new Promise<void>((resolve) => sub.once('error', () => resolve()))
    await Promise.race([first, failed, new Promise((resolve) => setTimeout(resolve, 3_000).unref())])
  }

  async close(): Promise<void> {
    this.subscriber?.disconnect()
    this.subscriber = null
    this.listening = false
  }

  async publish(what: Invalidation): Promise<void> {
    const redis = this.redis
    if (!redis) return
    const message = what.kind === 'all' ? '*|0' : what.kind === 'rotations' ? 'r|0' : `${what.kind === 'link' ? 'l' : 'd'}|${what.id}`
    // an API write must not hang on Redis trouble; the TTL bounds staleness if a message is lost
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, 1_000).unref())
    await Promise.race([redis.publish(this.channel, `${this.origin}|${message}`).then(() => undefined, () => undefined), timeout])
  }
}
