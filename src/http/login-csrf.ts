import { randomBytes } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { hmac, safeEqual } from '../lib/crypto.js'

const COOKIE = 'kurz_login'

/**
 * Keeps other sites from posting to /login (login CSRF: signing a victim into the attacker's
 * account). A browser's cross-site post names its origin (`Origin`, `Sec-Fetch-Site`), and those
 * are refused; the form also carries a token bound to a cookie set with it (double submit), checked
 * whenever it is sent. A post with neither browser header nor token (curl, scripts, the JSON
 * clients of DECISIONS §10.1) cannot come from a page on another site and is taken.
 */
export function loginCsrf(app: FastifyInstance) {
  const own = new URL(app.config.publicUrl).origin
  const tokenFor = (nonce: string) => hmac(app.keys.cookie, `login-csrf:${nonce}`)

  return {
    /**
     * The hidden field's value: bound to the visitor's login cookie, set here when they have none
     * yet (only on the GET: an answer to a failed post sets no cookie). Empty: no field.
     */
    issue(req: FastifyRequest, reply: FastifyReply): string {
      const have = req.cookies[COOKIE]
      if (typeof have === 'string' && /^[A-Za-z0-9_-]{24}$/.test(have)) return tokenFor(have)
      if (req.method !== 'GET') return ''
      const nonce = randomBytes(18).toString('base64url')
      reply.setCookie(COOKIE, nonce, { path: '/login', httpOnly: true, sameSite: 'strict', secure: app.config.secure, maxAge: 3600 })
      return tokenFor(nonce)
    },

    accepts(req: FastifyRequest, token: string | undefined): boolean {
      if (req.headers['sec-fetch-site'] === 'cross-site') return false
      const origin = req.headers.origin
      if (origin !== undefined && origin !== own && origin !== `${req.protocol}://${req.host}`) return false
      if (token === undefined) return true
      const nonce = req.cookies[COOKIE]
      return typeof nonce === 'string' && safeEqual(token, tokenFor(nonce))
    },
  }
}
