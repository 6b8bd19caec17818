import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import type { Redis } from 'ioredis'
import { eq } from 'drizzle-orm'
import type { Db } from '../../db/client.js'
import { webhooks, type WebhookEvent } from '../../db/schema/index.js'
import { InvalidationBus } from '../../redirect/invalidation.js'

const CHANNEL = 'webhook-subscriptions'
/** Without Redis (or while it is away) no instance hears of another's change: each rereads its copy this often. */
export const LOCAL_TTL = 5_000
/**
 * With Redis a change arrives as a message; the reread also catches what no message announces
 * (the delivery worker switching a failing webhook off, a deleted account's webhooks).
 */
export const BUS_TTL = 60_000
/** After a failed reread (the database away), the next one waits this long: not one per request. */
export const RETRY_AFTER_FAILURE = 2_000

/**
 * Which accounts have an enabled webhook for which events, held per instance so the link create
 * and the click batch can ask synchronously instead of with a query each. Until the first load
 * (and after a change is announced, until it is reread) every answer is "yes": callers then take
 * the path that writes events, which costs time, never an event.
 */
export class WebhookSubscriptions {
  private byUser: Map<number, ReadonlySet<string>> | null = null
  private anyone = new Set<string>()
  private loadedAt = 0
  /** bumped by every announced change: a read that raced one is not kept */
  private generation = 0
  private background: Promise<void> | null = null
  /** while rereads fail: no reread before `retryAt`, and one warning for the whole outage */
  private failing = false
  private retryAt = 0
  private readonly bus: InvalidationBus

  constructor(
    private readonly db: Db,
    redis: Redis | null,
    private readonly log: FastifyBaseLogger,
  ) {
    this.bus = new InvalidationBus(redis, log, CHANNEL)
  }

  async start(): Promise<void> {
    await this.bus.start({ link: () => {}, domain: () => {}, all: () => this.forget() })
    await this.reread()
  }

  close(): Promise<void> {
    return this.bus.close()
  }

  /** Whether `userId` has an enabled webhook for `event` (yes while unknown). */
  wants(userId: number, event: WebhookEvent): boolean {
    this.refreshIfOld()
    return this.byUser === null || (this.byUser.get(userId)?.has(event) ?? false)
  }

  /** Whether any account has an enabled webhook for `event` (yes while unknown). */
  wantsAny(event: WebhookEvent): boolean {
    this.refreshIfOld()
    return this.byUser === null || this.anyone.has(event)
  }

  /**
   * After a webhook was added, changed or deleted on this instance (committed): this instance
   * rereads before the caller answers, the others when the message reaches them.
   */
  async changed(): Promise<void> {
    this.forget()
    await Promise.all([this.reread(), this.bus.publish({ kind: 'all' })])
  }

  /** A create found a subscriber this copy did not know of: reread now. */
  stale(): void {
    this.forget()
  }

  private forget(): void {
    this.generation++
    this.byUser = null
    this.loadedAt = 0
    this.refreshIfOld()
  }

  private refreshIfOld(): void {
    const now = Date.now()
    // a change announced while Redis is away is lost: reread as often as without Redis meanwhile
    const ttl = this.bus.heard ? BUS_TTL : LOCAL_TTL
    if (this.background || now - this.loadedAt < ttl || now < this.retryAt) return
    this.background = this.reread().finally(() => (this.background = null))
  }

  /** load(), and what a failure means: one warning until a reread works again, then one line. */
  private async reread(): Promise<void> {
    try {
      await this.load()
      if (this.failing) this.log.info('webhook subscriptions reread again')
      this.failing = false
    } catch (err) {
      this.retryAt = Date.now() + RETRY_AFTER_FAILURE
      if (!this.failing) this.log.warn({ err }, 'webhook subscriptions not reread; retried every 2 s until the database answers')
      this.failing = true
    }
  }

  private async load(): Promise<void> {
    const generation = this.generation
    const rows = await this.db.select({ userId: webhooks.userId, events: webhooks.events }).from(webhooks).where(eq(webhooks.enabled, true))
    // a change announced while reading: what was read may predate it, and the next use rereads
    if (generation !== this.generation) return
    const byUser = new Map<number, Set<string>>()
    const anyone = new Set<string>()
    for (const r of rows) {
      let set = byUser.get(r.userId)
      if (!set) byUser.set(r.userId, (set = new Set()))
      for (const e of r.events) {
        set.add(e)
        anyone.add(e)
      }
    }
    this.byUser = byUser
    this.anyone = anyone
    this.loadedAt = Date.now()
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** who listens to which webhook events, held per instance (subscriptions.ts) */
    webhookSubscriptions: WebhookSubscriptions
  }
}

/** Decorates the app with its subscriptions, loaded when it is ready and unsubscribed when it closes. */
export function registerWebhookSubscriptions(app: FastifyInstance, db: Db): void {
  app.decorate('webhookSubscriptions', new WebhookSubscriptions(db, app.redis, app.log))
  app.addHook('onReady', async () => app.webhookSubscriptions.start())
  app.addHook('onClose', async () => app.webhookSubscriptions.close())
}
