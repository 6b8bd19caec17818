import type { FastifyInstance, FastifyRequest } from 'fastify'
import { notFoundHandler } from './errors.js'

/*
 * Bodies nobody will read. A request the API refuses in `onRequest` (no key, a wrong one, the rate
 * limit) is answered before Fastify reads its body, but Node then reads the rest off the wire to
 * keep the connection for a next request: 330 unauthenticated 1 MiB bodies a second cost the event
 * loop as much as accepted ones (redirect p99 600 ms). Answered with `Connection: close`, Node reads
 * only what has already arrived and closes once the answer is out.
 */

/** The request announced a body that has not all been read (`complete` is set once it has). */
function bodyUnread(req: FastifyRequest): boolean {
  const raw = req.raw
  if (raw.complete || raw.httpVersionMajor !== 1) return false
  const length = raw.headers['content-length']
  return raw.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')
}

/**
 * For a scope (the API and the 404 handler): an answer sent before the body was read closes the
 * connection, and an unrouted path is answered before its body is read, as nothing would use it
 * (the 404 parsed up to 1 MiB of JSON first: a way around the refusals).
 */
export function refuseUnreadBodies(scope: FastifyInstance): void {
  scope.addHook('onRequest', (req, reply, done) => {
    if (req.is404) return void notFoundHandler(req, reply)
    done()
  })
  scope.addHook('onSend', (req, reply, payload, done) => {
    if (bodyUnread(req)) reply.header('connection', 'close')
    done(null, payload)
  })
}
