import type { FastifyReply, FastifyRequest } from 'fastify'

/**
 * Runs `fn` once when the request ends, however it ends: answered, or its client gone. The
 * response's 'close' is the one signal for both; `onResponse` misses a client that left after
 * sending its whole request (a browser cancelling a fetch), and `onRequestAbort` needs an
 * unfinished body. False, and `fn` never runs, when the client has already gone (its 'close' came
 * before this was called): a place taken for it would never be given back.
 */
export function whenRequestEnds(req: FastifyRequest, reply: FastifyReply, fn: () => void): boolean {
  const socket = req.raw.socket
  if (socket == null || socket.destroyed === true) return false
  reply.raw.once('close', fn)
  return true
}
