import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import rateLimit from '@fastify/rate-limit'
import { ApiError } from './errors.js'
import { fallbackStore } from './rate-limit-store.js'
import { addressBlock } from '../lib/address-block.js'

/**
 * Per-key rate limit for one interface (management or v1), each with its own budget. It runs after
 * `authenticate` (a scope hook, so it comes first), which is what lets it key on the API key rather
 * than the IP; unauthenticated requests never reach it (they are answered 401 first). With REDIS_URL the counters live in Redis,
 * so every instance behind the load balancer spends one budget; while Redis is away, each instance counts on its own.
 */
export async function registerRateLimit(scope: FastifyInstance, opts: { max: number; sessionMax: number; name: string }) {
  // the plugin's `ctx.after` is the time left until reset, not the window: say the window itself
  const seconds = scope.config.rateLimit.windowSeconds
  const window = seconds === 60 ? '1 minute' : seconds % 60 === 0 ? `${seconds / 60} minutes` : `${seconds} seconds`
  await scope.register(rateLimit, {
    global: true,
    hook: 'onRequest',
    // dashboard sessions have their own budget (DECISIONS §10.1), counted per session
    max: (req: FastifyRequest) => (req.user?.sessionHash ? opts.sessionMax : opts.max),
    timeWindow: scope.config.rateLimit.windowSeconds * 1000,
    // Redis when it answers, this instance's own count when it does not (never no limit)
    store: fallbackStore(scope.redis, `kurz-rl-${opts.name}-`),
    // the key's HMAC, not its row id: unique even across installations that share one Redis
    keyGenerator: (req: FastifyRequest) =>
      req.user?.sessionHash ? `s${req.user.sessionHash.slice(0, 32)}` : req.user ? `k${req.user.keyHash?.slice(0, 32) ?? req.user.keyId}` : `ip${addressBlock(req.ip)}`,
    errorResponseBuilder: (_req, ctx) =>
      new ApiError(429, `Rate limit exceeded: at most ${ctx.max} requests per ${window}. Retry in ${Math.min(Math.ceil(ctx.ttl / 1000), seconds)} seconds.`),
  })
  // The plugin sends seconds-until-reset; DECISIONS §2 wants the reset moment as Unix seconds. The
  // store ends the time left on a whole second, so this second plus it is that second
  scope.addHook('onSend', async (_req: FastifyRequest, reply: FastifyReply, payload) => {
    const reset = reply.getHeader('x-ratelimit-reset')
    if (reset === undefined) return payload
    reply.header('x-ratelimit-reset', Math.floor(Date.now() / 1000) + Number(reset))
    // the plugin's own 429 (its Retry-After is the same seconds as the reset): that whole second can
    // be one past the window's length from now, and the wait is never longer than the window. Other
    // 429s (the hourly create limit, key guessing) keep their own Retry-After
    const retry = reply.getHeader('retry-after')
    if (retry !== undefined && Number(retry) === Number(reset) && Number(retry) > seconds) reply.header('retry-after', seconds)
    return payload
  })
}
