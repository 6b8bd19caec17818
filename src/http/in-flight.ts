import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify'
import { ApiError } from './errors.js'
import { whenRequestEnds } from './request-end.js'

/*
 * A fair share of the database for each API key and dashboard session. The rate limit bounds how
 * many requests a principal sends in a minute, not how many wait at once: 600 heavy requests (a
 * year of statistics, exports, wildcard searches) sent together by one session sat in the one
 * database queue for minutes, and every other account's requests waited behind them. Here each
 * principal has at most LIMIT requests being handled; its others wait their turn in a queue of
 * its own (before their bodies are read), so a busy principal delays itself, not everyone.
 * Per instance: it guards this instance's connections.
 */

/** Requests of one principal handled at once: more than a dashboard page asks for together. */
export const LIMIT = 6
/** Requests of one principal that may wait; past it the answer is 429. */
export const QUEUE = 200

interface Principal {
  running: number
  waiting: FastifyRequest[]
}

/** What a request holds: nothing yet (queued), a slot, or nothing any more. */
type Hold = { state: 'waiting'; go: () => void } | { state: 'running' } | { state: 'done' }

export class InFlightLimit {
  private readonly principals = new Map<string, Principal>()
  private readonly holds = new WeakMap<FastifyRequest, Hold & { key: string }>()

  constructor(
    private readonly limit = LIMIT,
    private readonly queue = QUEUE,
  ) {}

  /** The onRequest hook; it must run after authentication, which names the principal. */
  readonly hook: onRequestHookHandler = (req, reply, done) => {
    const key = principalOf(req)
    if (key === undefined) return done()
    // a client gone already (during authentication) takes no place
    if (!whenRequestEnds(req, reply, () => this.release(req))) return done()
    let p = this.principals.get(key)
    if (!p) this.principals.set(key, (p = { running: 0, waiting: [] }))
    if (p.running < this.limit) {
      p.running++
      this.holds.set(req, { key, state: 'running' })
      return done()
    }
    if (p.waiting.length >= this.queue) {
      // a second: by then the ones ahead have most likely been answered
      const refusal = `Too many requests at once: ${this.limit} are handled at a time and ${this.queue} more may wait. Wait for answers before sending more.`
      return done(new ApiError(429, refusal, undefined, undefined, 1))
    }
    p.waiting.push(req)
    this.holds.set(req, { key, state: 'waiting', go: () => done() })
  }

  /** Gives the request's place back (its answer is sent, or its client left); idempotent. */
  release(req: FastifyRequest): void {
    const hold = this.holds.get(req)
    if (!hold || hold.state === 'done') return
    const p = this.principals.get(hold.key)!
    if (hold.state === 'waiting') p.waiting.splice(p.waiting.indexOf(req), 1)
    else this.handOver(hold.key, p)
    this.holds.set(req, { key: hold.key, state: 'done' })
    if (p.running === 0 && p.waiting.length === 0) this.principals.delete(hold.key)
  }

  /** A slot freed: the next waiting request takes it, or it is returned. */
  private handOver(key: string, p: Principal): void {
    const next = p.waiting.shift()
    if (!next) {
      p.running--
      return
    }
    const hold = this.holds.get(next)!
    this.holds.set(next, { key, state: 'running' })
    if (hold.state === 'waiting') hold.go()
  }

  /** Adds the limit to `scope`, after its rate limit; `release` runs when each request ends. */
  register(scope: FastifyInstance): void {
    scope.addHook('onRequest', this.hook)
    // at once, where the socket's close would come later or (injected requests) not at all
    scope.addHook('onResponse', async (req) => this.release(req))
  }
}

/** The rate limit's key: one per dashboard session or API key. */
function principalOf(req: FastifyRequest): string | undefined {
  const u = req.user
  if (!u) return undefined
  return u.sessionHash ? `s${u.sessionHash}` : `k${u.keyHash ?? u.keyId}`
}
