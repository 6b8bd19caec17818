import type { FastifyReply, FastifyRequest } from 'fastify'
import { toApiError } from '../../http/errors.js'

const MEDIA_MESSAGE = 'Unsupported Content-Type: send application/x-www-form-urlencoded (or application/json).'

/**
 * The v1 failure shape (DECISIONS §2, §8): `{error: 1, message, status}`, and on a validation
 * failure a 422 with `errors: {field: [message, ...]}` beside them. Input the management interface
 * answers with 400 (and a taken alias, 409 there) is a 422 here. Field errors of the link write
 * service reach this already named in v1's words (fields.ts `v1Name`); a failure that names no
 * field is about the body as a whole (malformed JSON).
 */
export function v1ErrorHandler(err: unknown, req: FastifyRequest, reply: FastifyReply) {
  const e = toApiError(err, req)
  if (e.status === 400 || e.status === 409 || e.status === 422) {
    const errors = e.fields && Object.keys(e.fields).length ? e.fields : { body: [e.message] }
    return reply.code(422).send({ error: 1, message: e.message, errors, status: 422 })
  }
  const message = e.status === 415 ? MEDIA_MESSAGE : e.message
  if (e.retryAfter !== undefined) reply.header('retry-after', e.retryAfter)
  return reply.code(e.status).send({ error: 1, message, status: e.status })
}
