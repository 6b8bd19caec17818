import type { FastifyInstance, FastifyRequest } from 'fastify'
import sjson from 'secure-json-parse'
import { ApiError } from './errors.js'

export const BODY_LIMIT = 1024 * 1024

/**
 * JSON bodies as real clients of the original product send them (DECISIONS §2): an empty body with
 * a JSON content type is {}, and JSON with no or a text/plain content type is still JSON.
 * `__proto__` and `constructor.prototype` keys are stripped, so they can never reach an object.
 */
export const NOT_JSON = 'Request body is not valid JSON.'

function parseJson(_req: FastifyRequest, body: string | Buffer, done: (err: Error | null, value?: unknown) => void) {
  const text = typeof body === 'string' ? body : body.toString('utf8')
  if (text.trim() === '') return done(null, undefined)
  try {
    done(null, sjson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' }))
  } catch {
    done(new ApiError(400, NOT_JSON))
  }
}

export function registerBodyParsers(app: FastifyInstance) {
  app.removeContentTypeParser(['application/json', 'text/plain'])
  app.addContentTypeParser(['application/json', 'text/plain'], { parseAs: 'string', bodyLimit: BODY_LIMIT }, parseJson)
  // Anything else: JSON when no content type was sent at all, otherwise 415.
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (req, body, done) => {
    if (req.headers['content-type'] === undefined) return parseJson(req, body, done)
    done(new ApiError(415, `Unsupported Content-Type "${String(req.headers['content-type']).slice(0, 100)}": send application/json.`))
  })
}
