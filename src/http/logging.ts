import { LogController, type FastifyReply, type FastifyRequest } from 'fastify'

/**
 * What a request log line says about the request (DECISIONS §10.7). Visitors' addresses are
 * personal data the database never stores, so the logs leave them out unless LOG_IPS=true; secrets
 * that can travel in a URL (an SSO token in the path, a key or password in the query) are masked.
 */
const SECRET_PARAM = /^(key|api_?key|token|access_token|password|pass|secret|session|sig|signature)$/i
const MASK = '[redacted]'

export function safeUrl(url: string): string {
  const [path, query] = splitOnce(url, '?')
  const safePath = path.replace(/^\/sso\/[^/?#]+/, `/sso/${MASK}`)
  if (query === undefined) return safePath
  const parts = query.split('&').map((pair) => {
    const [name] = splitOnce(pair, '=')
    let decoded = name
    try {
      decoded = decodeURIComponent(name.replace(/\+/g, ' '))
    } catch {
      /* keep the raw name */
    }
    return SECRET_PARAM.test(decoded.replace(/\[\]$/, '')) ? `${name}=${MASK}` : pair
  })
  return `${safePath}?${parts.join('&')}`
}

function splitOnce(s: string, sep: string): [string, string | undefined] {
  const i = s.indexOf(sep)
  return i < 0 ? [s, undefined] : [s.slice(0, i), s.slice(i + 1)]
}

export function requestSerializer(logIps: boolean) {
  return (req: FastifyRequest) => ({
    method: req.method,
    url: safeUrl(req.url),
    host: req.host,
    ...(logIps ? { remoteAddress: req.ip, remotePort: req.socket?.remotePort } : {}),
  })
}

/** pino redact paths: a header or a field that holds a secret, wherever something logs it */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'headers.authorization',
  'headers.cookie',
  '*.password',
  '*.apikey',
  '*.apiKey',
  '*.token',
  '*.secret',
]

/** The management side: the API (v1 included), the dashboard and signing in. */
const MANAGEMENT = /^\/(?:api|dashboard|login|logout|sso)(?:[/?]|$)/

/** Whether visits get their access lines at this LOG_LEVEL: at `debug` and `trace` every request does. */
export const logsVisits = (level: string) => level === 'debug' || level === 'trace'

/**
 * Fastify's two access lines per request ("incoming request", "request completed"), at `info` for
 * the people who manage Kurz and at `debug` for its visitors: short links and their pages, QR
 * images, statistics and campaign pages, health and metrics probes. A visit is already a click in
 * the database; two JSON lines more for each one cost as much CPU as the redirect itself and, at a
 * thousand clicks a second, a hundred gigabytes of log a day. A visit answered 5xx still gets its
 * line, with the request, at `warn`; error lines are untouched.
 */
export class AccessLog extends LogController {
  constructor(private readonly visits: boolean) {
    super()
  }

  private logged(req: FastifyRequest): boolean {
    return this.visits || MANAGEMENT.test(req.url)
  }

  override incomingRequest(req: FastifyRequest, reply: FastifyReply, metadata?: Record<string, unknown>): void {
    if (this.logged(req)) super.incomingRequest(req, reply, metadata)
  }

  override requestCompleted(error: Error | null | undefined, req: FastifyRequest, reply: FastifyReply, metadata?: Record<string, unknown>): void {
    if (error || this.logged(req)) super.requestCompleted(error, req, reply, metadata)
    else if (reply.statusCode >= 500) reply.log.warn({ req, res: reply, responseTime: reply.elapsedTime }, 'request completed')
  }
}
