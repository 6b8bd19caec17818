import type { FastifyReply, FastifyRequest } from 'fastify'
import { ApiError, toApiError } from '../../http/errors.js'

const MEDIA_MESSAGE = 'Unsupported Content-Type: send application/x-www-form-urlencoded (or application/json).'

/**
 * The v1 failure shape (DECISIONS §2, §8): `{error: 1, message, status}`, and on a validation
 * failure a 422 with `errors: {field: [message, ...]}` beside them. Input the management interface
 * answers with 400 (and a taken alias, 409 there) is a 422 here.
 */
export function v1ErrorHandler(err: unknown, req: FastifyRequest, reply: FastifyReply) {
  const e = toApiError(err, req)
  if (e.status === 400 || e.status === 409 || e.status === 422) {
    // "per_page: per_page must be…" (the shared zod formatter) reads better without the prefix
    const message = e.message.replace(/^([\w.]+): (?=\1 )/, '')
    const errors = e.fields && Object.keys(e.fields).length ? e.fields : { [guessField(message)]: [message] }
    return reply.code(422).send({ error: 1, message, errors, status: 422 })
  }
  const message = e.status === 415 ? MEDIA_MESSAGE : e.message
  return reply.code(e.status).send({ error: 1, message, status: e.status })
}

/** A failure with no field attached: malformed JSON names the body. */
function guessField(message: string): string {
  const m = /^([a-z_]+(?:\.\d+(?:\.[a-z_]+)?)?)(?::| must| is| needs)/.exec(message)
  return m ? m[1] : 'body'
}

/** Management field names (and LinkInput keys) of a service error, renamed to the v1 names sent. */
export function renameServiceError(err: unknown, names: Record<string, string>): unknown {
  if (!(err instanceof ApiError) || !(err.status === 400 || err.status === 409)) return err
  const rename = (path: string) => {
    const [head, ...rest] = path.split('.')
    const v1 = names[head] ?? head
    // geotarget.0.location → country.0.key, geotarget.0.link → country.0.value
    const tail = rest.map((part) => (/^(location|device|language|name)$/.test(part) ? 'key' : part === 'link' || part === 'url' ? 'value' : part))
    return [v1, ...tail].join('.')
  }
  const field = Object.keys(err.fields ?? {})[0] as string | undefined
  // the service starts every message with the field, or a path inside it: "geotarget.0.link: …"
  const lead = /^([A-Za-z_]+(?:\.[A-Za-z0-9_]+)*)(:?)( [\s\S]*)$/.exec(err.message)
  let message = err.message
  let key = field ? rename(field) : undefined
  if (lead && (field === undefined ? names[lead[1].split('.')[0]] !== undefined : lead[1] === field || lead[1].startsWith(`${field}.`))) {
    key = rename(lead[1])
    message = `${key}${lead[2]}${lead[3]}`
  }
  return new ApiError(422, message, key ? { [key]: [message] } : undefined)
}
