import type { FastifyInstance } from 'fastify'
import type { AuthUser } from '../../http/auth.js'
import { ApiError } from '../../http/errors.js'
import { Throttle } from '../../lib/throttle.js'
import { HOUR } from '../../lib/time.js'

// keyed by the database: every encapsulated instance of one app shares it, so one count per app
const throttles = new WeakMap<object, Throttle>()

function throttleOf(app: FastifyInstance, max: number): Throttle {
  let t = throttles.get(app.db)
  if (!t) throttles.set(app.db, (t = new Throttle('link-create', max, HOUR, app.redis)))
  return t
}

/**
 * The per-account creation throttle (DECISIONS §10.6): at most CREATE_LIMIT_PER_HOUR creates an
 * hour per non-admin account, beside the plan's `links` cap, counted in Redis when it is set. A
 * create is counted before it runs, so a burst of simultaneous creates cannot pass the limit;
 * one refused later (a taken alias, a bad field) still counts. An import through the API counts
 * each row (transfer/import.ts); the CLI's, an operator's act, does not. A refusal carries `Retry-After`: the
 * seconds until the account's window closes and its creates count from zero again.
 */
export async function requireCreateRoom(app: FastifyInstance, user: AuthUser): Promise<void> {
  const max = app.config.createLimitPerHour
  if (user.admin || !max) return
  // id and creation time: ids start again in another database that shares the same Redis
  const { ok, retryMs } = await throttleOf(app, max).attempt(`${user.id}-${user.createdAt.getTime()}`)
  if (!ok) {
    const seconds = Math.max(1, Math.ceil(retryMs / 1000))
    throw new ApiError(429, `Too many links created: an account may create at most ${max} links an hour (CREATE_LIMIT_PER_HOUR). Try again in ${seconds} seconds.`, undefined, undefined, seconds)
  }
}
