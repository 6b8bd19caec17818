import type { FastifyInstance, FastifyReply } from 'fastify'

/**
 * Compatibility switches for clients written against other installations (DECISIONS §10.7). They
 * rewrite the finished JSON rather than each route's answer, so every list (including ones added
 * later) is covered and the default answers stay exactly the contract's.
 */
const isJson = (reply: FastifyReply, payload: unknown): payload is string =>
  typeof payload === 'string' && String(reply.getHeader('content-type') ?? '').startsWith('application/json')

/** COMPAT_LIST_ERROR=number: list and query answers carry `error: 0` instead of `"0"`. */
export function listErrorAsNumber(app: FastifyInstance): void {
  app.addHook('onSend', async (_req, reply, payload) => {
    // only list answers carry the string, so everything else is passed through unparsed
    if (!isJson(reply, payload) || !payload.includes('"error":"0"')) return payload
    const body = JSON.parse(payload) as unknown
    if (!body || typeof body !== 'object' || (body as { error?: unknown }).error !== '0') return payload
    return JSON.stringify({ ...body, error: 0 })
  })
}

/** COMPAT_V1=phpshort: the v1 interface answers without the `error` key, as phpShort does. */
export function withoutErrorKey(scope: FastifyInstance): void {
  scope.addHook('onSend', async (_req, reply, payload) => {
    if (!isJson(reply, payload) || !payload.includes('"error"')) return payload
    const body = JSON.parse(payload) as unknown
    if (!body || typeof body !== 'object' || Array.isArray(body) || !('error' in body)) return payload
    const { error: _error, ...rest } = body as Record<string, unknown>
    return JSON.stringify(rest)
  })
}
