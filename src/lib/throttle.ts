import type { Redis } from 'ioredis'
import { LocalWindows } from './local-windows.js'

const GIVE_BACK = `if redis.call('exists', KEYS[1]) == 1 then return redis.call('decr', KEYS[1]) end return 0`

/**
 * Counts attempts per key in a fixed window (wrong passwords, logins, form posts). An attempt is
 * counted before it is verified: `take` reserves it with one atomic increment, so a burst of
 * simultaneous guesses past the budget is refused before any argon2 runs, however many arrive at
 * once (checking first and counting after the verify let every guess of a burst through).
 * Shared through Redis when there is one; with Redis away each instance counts on its own.
 */
export class Throttle {
  private readonly local = new LocalWindows()

  constructor(
    private readonly name: string,
    readonly max: number,
    readonly windowMs: number,
    private readonly redis: Redis | null = null,
  ) {}

  /** Reserves one attempt for `key`: false when its budget for the window is already spent. */
  async take(key: string): Promise<boolean> {
    return (await this.attempt(key)).ok
  }

  /** `take`, and when refused the milliseconds until the window ends (a 429's Retry-After). */
  async attempt(key: string): Promise<{ ok: boolean; retryMs: number }> {
    const { n, ttl } = await this.increment(key)
    return { ok: n <= this.max, retryMs: ttl }
  }

  /**
   * For checks too cheap and too frequent to reserve an attempt each (API keys: most requests carry
   * a right one): true once `key` has `max` misses in the window. A burst can overshoot by what is
   * in flight at once; `take` is the one for anything that costs an argon2 verify.
   */
  async spent(key: string): Promise<boolean> {
    if (this.redis?.status === 'ready') {
      try {
        return Number((await this.redis.get(this.redisKey(key))) ?? 0) >= this.max
      } catch {
        /* Redis away: this instance's own count */
      }
    }
    return this.local.count(key) >= this.max
  }

  /** Counts one miss for `key` (see `spent`). */
  async miss(key: string): Promise<void> {
    await this.increment(key)
  }

  /** A right answer: the key starts afresh. */
  async reset(key: string): Promise<void> {
    this.local.delete(key)
    if (this.redis?.status === 'ready') await this.redis.del(this.redisKey(key)).catch(() => {})
  }

  /**
   * Returns one attempt `take` reserved, for a budget that counts failures only where a reset would
   * forgive too much (one right sign-in must not wipe an address's failures on other emails).
   */
  async giveBack(key: string): Promise<void> {
    if (this.redis?.status === 'ready') {
      try {
        // a DECR of a key that expired meanwhile would leave a -1 without an expiry: only an existing one
        await this.redis.eval(GIVE_BACK, 1, this.redisKey(key))
        return
      } catch {
        /* Redis away: this instance's own count */
      }
    }
    this.local.remove(key)
  }

  /** The key's count after this attempt, and the milliseconds its window has left. */
  private async increment(key: string): Promise<{ n: number; ttl: number }> {
    // not ready: answer from this instance at once rather than wait for a command to time out
    if (this.redis?.status === 'ready') {
      try {
        const k = this.redisKey(key)
        // SET NX gives the window its expiry exactly once, in the same transaction as the INCR
        const res = await this.redis.multi().set(k, '0', 'PX', this.windowMs, 'NX').incr(k).pttl(k).exec()
        const n = res?.[1]?.[1]
        const ttl = res?.[2]?.[1]
        if (typeof n === 'number') return { n, ttl: typeof ttl === 'number' && ttl > 0 ? ttl : this.windowMs }
      } catch {
        /* Redis away: this instance's own count */
      }
    }
    return this.local.add(key, this.windowMs)
  }

  private redisKey(key: string) {
    return `kurz-throttle-${this.name}-${key}`
  }
}
