import type { FastifyReply, FastifyRequest } from 'fastify'
import { and, count, eq, type SQL } from 'drizzle-orm'
import type { PgTable } from 'drizzle-orm/pg-core'
import type { Db, Tx } from '../db/client.js'
import type { CountedFeature, Feature } from '../db/schema/index.js'
import { findByApiKey } from '../accounts/api-keys.js'
import { effectivePlan } from '../accounts/effective-plan.js'
import type { Plan, User } from '../accounts/types.js'
import { featureCap, hasFeature } from '../accounts/plan-rules.js'
import { ApiError, forbidden, unauthorized } from './errors.js'
import { Throttle } from '../lib/throttle.js'
import { addressBlock } from '../lib/address-block.js'
import { MINUTE } from '../lib/time.js'
import { authenticateSession, isSessionRequest } from './session-auth.js'

export interface AuthUser extends User {
  plan: Plan
  keyId: number
  /** HMAC of the key used (set by authenticate): the rate limiter's counter key */
  keyHash?: string
  /** set instead of keyHash when a dashboard session authenticated (its own rate budget) */
  sessionHash?: string
}

declare module 'fastify' {
  interface FastifyRequest {
    user: AuthUser
  }
}

// Generated keys are 32 URL-safe characters; ADMIN_API_KEY may be any visible ASCII, so accept that.
const KEY_SHAPE = /^[\x21-\x7e]{1,256}$/

/** `Bearer <key>`, `Token <key>` or a bare key (DECISIONS §2, §3); the scheme is case-insensitive. */
export function keyFromHeader(header: unknown): string | null {
  if (typeof header !== 'string') return null
  const value = header.trim()
  const m = /^(?:(bearer|token)\s+)?(\S+)$/i.exec(value)
  if (!m) return null
  return KEY_SHAPE.test(m[2]) ? m[2] : null
}

function authorizationHeaders(raw: string[]): number {
  let n = 0
  for (let i = 0; i < raw.length; i += 2) if (raw[i].length === 13 && raw[i].toLowerCase() === 'authorization') n++
  return n
}

/** Wrong API keys per client address in 10 minutes before the address gets 429s without a lookup. */
export const KEY_GUESSES = 30
const KEY_GUESS_WINDOW = 10 * MINUTE
const keyGuesses = new WeakMap<object, Throttle>()

/** onRequest hook of every key-authenticated route: resolves the key to req.user or answers 401/403. */
export async function authenticate(req: FastifyRequest, reply: FastifyReply) {
  // the dashboard's own requests: session cookie + X-CSRF-Token, no key (DECISIONS §10.1). The
  // "api" plan switch governs keys; the dashboard of a plan without it still works.
  if (isSessionRequest(req)) {
    req.user = await authenticateSession(req)
    return
  }
  // Node keeps the first of two Authorization headers; which one a proxy on the way read is anyone's guess
  if (authorizationHeaders(req.raw.rawHeaders) > 1) throw unauthorized('Send one Authorization header, not several.')
  const key = keyFromHeader(req.headers.authorization)
  if (!key) throw unauthorized()
  const app = req.server
  // one throttle per app, made on first use: req.server is the plugin's scope, app.keys the app's own object
  let guesses = keyGuesses.get(app.keys)
  if (!guesses) keyGuesses.set(app.keys, (guesses = new Throttle('api-key', KEY_GUESSES, KEY_GUESS_WINDOW, app.redis)))
  // the key is looked up first: an address that has sent too many wrong keys (one stale client
  // behind a shared NAT or an untrusted proxy) must not lock out the right keys sent from it
  const found = await findByApiKey(app.db, app.keys, key, app.keyCache)
  if (!found) {
    const address = addressBlock(req.ip)
    if (await guesses.spent(address)) {
      reply.header('retry-after', KEY_GUESS_WINDOW / 1000)
      throw new ApiError(429, 'Too many wrong API keys from this address. Try again in 10 minutes.')
    }
    await guesses.miss(address)
    throw unauthorized('That API key is not valid.')
  }
  if (found.revoked) throw unauthorized('That API key has expired: use the current key of the account.')
  const { user, plan } = await effectivePlan(app.db, found.user, found.plan)
  // an ended subscription was just moved to the default plan: the kept lookup is out of date
  if (user !== found.user) app.keyCache.forget(found.keyHash)
  req.user = { ...user, plan, keyId: found.keyId, keyHash: found.keyHash }
  if (!hasFeature(user, plan, 'api')) {
    throw forbidden('Your plan does not include the "api" feature: API access is switched off.')
  }
}

export async function requireAdmin(req: FastifyRequest) {
  if (!req.user?.admin) throw forbidden('This endpoint needs an account with admin privileges.')
}

/** 403 naming the feature when the caller's plan has it switched off; admins are never limited. */
export function requireFeature(user: AuthUser, feature: Feature) {
  if (!hasFeature(user, user.plan, feature)) {
    throw forbidden(`Your plan does not include the "${feature}" feature.`)
  }
}

/**
 * For counted features (the 6th pixel on Free): 403 once the caller already owns `count` of them.
 * A count of "0" means unlimited.
 */
export async function requireCount(db: Db | Tx, user: AuthUser, feature: CountedFeature, table: PgTable & { userId: any }, where?: SQL) {
  requireFeature(user, feature)
  const limit = featureCap(user, user.plan, feature)
  if (!limit) return
  const [{ n }] = await db
    .select({ n: count() })
    .from(table)
    .where(where ? and(eq(table.userId, user.id), where) : eq(table.userId, user.id))
  if (n >= limit) throw forbidden(`Your plan allows ${limit} of the "${feature}" feature; delete one or upgrade.`)
}
