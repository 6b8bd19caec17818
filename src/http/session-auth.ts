import type { FastifyRequest } from 'fastify'
import { hmac, safeEqual, sha256 } from '../lib/crypto.js'
import type { Keys } from '../lib/crypto.js'
import { forbidden, unauthorized } from './errors.js'
import { findUserWithPlan } from '../accounts/effective-plan.js'
import { SESSION_COOKIE, sessionUser } from '../accounts/sessions.js'
import { readCookie } from './cookies.js'

export const CSRF_HEADER = 'x-csrf-token'

/**
 * The CSRF token is derived from the session (HMAC of its stored hash), so it needs no storage and
 * dies with the session; a page on another site can neither read it nor compute it.
 */
export const csrfTokenFor = (keys: Keys, sessionToken: string) => hmac(keys.cookie, `csrf:${sha256(sessionToken)}`)

/**
 * True when the request carries a dashboard session cookie and no API key: the session path of
 * `authenticate`. The one cookie is read from the header: the API scope parses no cookies.
 */
export function isSessionRequest(req: FastifyRequest): boolean {
  return req.headers.authorization === undefined && readCookie(req, SESSION_COOKIE) !== undefined
}

/**
 * Resolves the session cookie to its user (DECISIONS §10.1). A missing or wrong X-CSRF-Token is a
 * 403 before the session is even looked up: a request a browser sent on another site's behalf never
 * reaches a handler, and never falls back to another kind of authentication.
 */
export async function authenticateSession(req: FastifyRequest) {
  const token = readCookie(req, SESSION_COOKIE) as string
  const app = req.server
  const given = req.headers[CSRF_HEADER]
  if (typeof given !== 'string' || !safeEqual(given, csrfTokenFor(app.keys, token))) {
    throw forbidden('This request needs the X-CSRF-Token header of your dashboard session: reload the page and try again.')
  }
  const userId = await sessionUser(app.db, token)
  const found = userId ? await findUserWithPlan(app.db, userId) : undefined
  if (!found) throw unauthorized('Your session has ended: sign in again.')
  return { ...found.user, plan: found.plan, keyId: 0, sessionHash: sha256(token) }
}
