import type { Redis } from 'ioredis'
import { LocalWindows } from '../lib/local-windows.js'

/** One window per key: the first hit sets its expiry; answers the count and the time left. */
const INCR = `local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {n, redis.call('PTTL', KEYS[1])}`

type Result = { current: number; ttl: number }
type Callback = (err: Error | null, res: Result) => void

/**
 * The time left, stretched to the next whole second of the window's end: the plugin sends it as
 * whole seconds from now and rate-limit.ts adds the current second back, which then names the same
 * reset moment on every request of a window (it wobbled by a second when each part was rounded).
 */
function toWholeSecond(res: Result): Result {
  const now = Date.now()
  return { current: res.current, ttl: Math.ceil((now + res.ttl) / 1000) * 1000 - now }
}

/**
 * A @fastify/rate-limit store that counts in Redis while Redis is ready and in this instance
 * otherwise. The plugin's own Redis store fails open when Redis is away (`skipOnError`: no limit
 * at all) or makes every request wait for Redis (without it); this one keeps a per-instance limit
 * instead, and does not try Redis while it is known to be down (health.ts warns once).
 */
export function fallbackStore(redis: Redis | null, prefix: string) {
  return class FallbackStore {
    private readonly key: string
    private readonly local = new LocalWindows()

    // the plugin constructs the store with its settings; `child` passes a key prefix of its own
    constructor(key?: unknown) {
      this.key = typeof key === 'string' ? key : prefix
    }

    incr(id: string, cb: Callback, timeWindow: number) {
      if (redis?.status === 'ready') {
        redis.eval(INCR, 1, this.key + id, timeWindow).then(
          (res) => {
            const [n, ttl] = res as [number, number]
            cb(null, toWholeSecond({ current: n, ttl: ttl > 0 ? ttl : timeWindow }))
          },
          () => cb(null, this.localIncr(id, timeWindow)),
        )
        return
      }
      cb(null, toWholeSecond(this.localIncr(id, timeWindow)))
    }

    // the plugin's typings name route options; at run time it passes its merged settings, with the route under routeInfo
    child(routeOptions: object) {
      const route = (routeOptions as { routeInfo?: { method?: unknown; url?: string } }).routeInfo ?? {}
      return new FallbackStore(`${this.key}${String(route.method ?? '')}${route.url ?? ''}-`)
    }

    private localIncr(id: string, timeWindow: number): Result {
      const { n, ttl } = this.local.add(id, timeWindow)
      return { current: n, ttl }
    }
  }
}
