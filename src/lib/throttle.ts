import type { Redis } from 'ioredis'
import { LRUCache } from 'lru-cache'

/**
 * Counts failures per key in a fixed window (wrong passwords, logins). Checked before any argon2
 * work, so guessing costs the attacker a 429, not us a CPU. Shared through Redis when there is one.
 */
export class Throttle {
  private readonly local: LRUCache<string, { n: number; until: number }>

  constructor(
    private readonly name: string,
    readonly max: number,
    readonly windowMs: number,
    private readonly redis: Redis | null = null,
  ) {
    this.local = new LRUCache({ max: 50_000 })
  }

  /** true while `key` has used up its failures in the current window */
  async blocked(key: string): Promise<boolean> {
    return (await this.count(key)) >= this.max
  }

  async count(key: string): Promise<number> {
    if (this.redis) {
      try {
        return Number((await this.redis.get(this.redisKey(key))) ?? 0)
      } catch {
        /* Redis away: fall back to this instance's count */
      }
    }
    const e = this.local.get(key)
    return e && e.until > Date.now() ? e.n : 0
  }

  async fail(key: string): Promise<void> {
    if (this.redis) {
      try {
        const k = this.redisKey(key)
        const n = await this.redis.incr(k)
        if (n === 1) await this.redis.pexpire(k, this.windowMs)
        return
      } catch {
        /* fall through to local */
      }
    }
    const now = Date.now()
    const e = this.local.get(key)
    if (e && e.until > now) e.n++
    else this.local.set(key, { n: 1, until: now + this.windowMs })
  }

  async reset(key: string): Promise<void> {
    this.local.delete(key)
    if (this.redis) await this.redis.del(this.redisKey(key)).catch(() => {})
  }

  private redisKey(key: string) {
    return `kurz-throttle-${this.name}-${key}`
  }
}
