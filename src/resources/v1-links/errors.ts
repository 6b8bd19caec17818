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
  const rename = (key: string) => {
    const [head, ...rest] = key.split('.')
    const v1 = names[head]
    if (!v1) return key
    // geotarget.0.location → country.0.key, geotarget.0.link → country.0.value
    const tail = rest.map((part) => (/^(location|device|language|name)$/.test(part) ? 'key' : part === 'link' || part === 'url' ? 'value' : part))
    return [v1, ...tail].join('.')
  }
  const fields: Record<string, string[]> = {}
  let message = err.message
  for (const [key, messages] of Object.entries(err.fields ?? {})) {
    const to = rename(key)
    ;(fields[to] ??= []).push(...messages.map((m) => renameLead(m, key, to)))
  }
  message = err.fields ? renameLead(message, Object.keys(err.fields)[0], rename(Object.keys(err.fields)[0])) : message
  if (!Object.keys(fields).length) {
    const to = rename(guessField(message))
    if (to !== 'body') fields[to] = [message]
  }
  return new ApiError(422, message, fields)
}

/** "custom: that alias is taken" → "alias: that alias is taken" (only the leading field name). */
function renameLead(message: string, from: string, to: string): string {
  if (from === to) return message
  const head = from.split('.')[0]
  if (message.startsWith(`${from}`)) return to + message.slice(from.length)
  if (message.startsWith(`${head} `) || message.startsWith(`${head}:`)) return to.split('.')[0] + message.slice(head.length)
  return message
}
