import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import { badRequest } from './errors.js'

/**
 * preValidation hook of the interfaces: a query value holding a NUL byte (`%00`) is refused before
 * any handler reads it. Postgres cannot store or compare a NUL in text, so a search for one was a
 * 500 from the driver. Bodies are covered by their fields' own rules (no control characters).
 * Callback-style: most requests hold no `%00` and leave at once, with no promise to settle.
 */
export function refuseNulInQuery(req: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) {
  const query = req.query as Record<string, unknown> | undefined
  if (query && req.url.includes('%00')) {
    for (const [key, value] of Object.entries(query)) {
      const values = Array.isArray(value) ? value : [value]
      if (values.some((v) => typeof v === 'string' && v.includes('\u0000'))) {
        return done(badRequest(`${key} must not contain a NUL character (%00).`, key))
      }
    }
  }
  done()
}
