import { LRUCache } from 'lru-cache'

/** keys one instance remembers per counter; the least recently counted go first */
const MAX_KEYS = 50_000

interface Window {
  n: number
  until: number
}

/**
 * Fixed-window counts kept in this instance: what a throttle or a rate limit counts when there is
 * no Redis, or while it is away. The LRU is made on the first count, not up front: lru-cache
 * allocates its arrays for every entry it may hold (about 1.4 MB at 50,000 keys), and of the
 * server's dozen counters most count nothing on an idle instance or one backed by Redis.
 */
export class LocalWindows {
  private windows: LRUCache<string, Window> | null = null

  /** Counts one for `key`: the count in its window so far, and the milliseconds the window has left. */
  add(key: string, windowMs: number): { n: number; ttl: number } {
    const now = Date.now()
    const w = this.windows?.get(key)
    if (w && w.until > now) return { n: ++w.n, ttl: w.until - now }
    this.windows ??= new LRUCache({ max: MAX_KEYS })
    this.windows.set(key, { n: 1, until: now + windowMs })
    return { n: 1, ttl: windowMs }
  }

  /** The count in `key`'s current window, 0 where it has none. */
  count(key: string): number {
    const w = this.windows?.get(key)
    return w && w.until > Date.now() ? w.n : 0
  }

  /** Takes one back from `key`'s count in its current window. */
  remove(key: string): void {
    const w = this.windows?.get(key)
    if (w && w.n > 0) w.n--
  }

  delete(key: string): void {
    this.windows?.delete(key)
  }
}
