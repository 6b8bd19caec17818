import type { IncomingMessage, ServerResponse } from 'node:http'
import type { FastifyInstance, RouteOptions } from 'fastify'
import type { ClickRecorder } from '../clicks/recorder.js'
import { isApiPath } from '../http/errors.js'
import { logsVisits } from '../http/logging.js'
import { clientAddress, clientHost, type TrustProxy } from '../http/trust.js'
import { visitorFromRequest } from '../visit/visitor.js'
import type { LinkCache } from './cache.js'
import { visitContext } from './context.js'
import { liveClicks } from './loader.js'
import { recordVisit } from './record.js'
import { resolve } from './resolve.js'
import { cacheControlOf, destinationPage, directPolicy } from './respond.js'

/**
 * The cached redirect without Fastify. Most visits are a GET of a link the cache holds that goes
 * straight to its destination: those are answered here, from the server's `request` event, before
 * Fastify makes its request and reply objects, finds a route and runs its reply pipeline (about a
 * third of a redirect's CPU). Everything else (a miss, an unknown host, a page, a password, a capped
 * or expired link, a crawler) is left to Fastify's visit handler (`redirect/index.ts`), which
 * decides it again from the start: nothing here has a side effect until the answer is certain.
 *
 * The answer is the one Fastify's handler gives byte for byte (test/redirect/fast-path.test.ts
 * compares them): the same decision (`resolve`), the same click (`recordVisit`), the same client
 * address and host (`http/trust.ts`, the function Fastify itself is given), the same headers.
 * `app.inject` goes straight to Fastify, so tests that inject always take the full path.
 */

/** A single-segment path of alias characters, with or without a query. */
const VISIT = /^\/([A-Za-z0-9_-]{1,128})(?:\?|$)/

export interface FastPathOptions {
  cache: LinkCache
  clicks: ClickRecorder
  trust: TrustProxy | null
  /** REDIRECT_STATUS, for a link without its own */
  defaultStatus: number
  /** the single-segment paths other routes own (`/login`, `/healthz`): Fastify routes them, never `/:alias` */
  routed: ReadonlySet<string>
}

/** Answers the request when it is a cached plain redirect and returns true; false leaves it untouched. */
export function cachedVisit(o: FastPathOptions): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const method = req.method
    if (method !== 'GET' && method !== 'HEAD') return false
    const url = req.url ?? ''
    const m = VISIT.exec(url)
    if (m === null || o.routed.has(m[1]) || isApiPath(url)) return false
    const domain = o.cache.domainFor(clientHost(req, o.trust))
    // a host not read yet: Fastify's handler asks again and joins the read this call started
    if (domain instanceof Promise) return false
    const link = o.cache.peek(domain?.id ?? null, m[1])
    // a password is checked against a cookie; a click cap is claimed in the database
    if (link === undefined || link.passwordHash !== null || link.expirationClicks || destinationPage(link) !== 'direct') return false
    const visitor = visitorFromRequest({ headers: req.headers, ip: clientAddress(req, o.trust) })
    const q = url.indexOf('?')
    const outcome = resolve(link, visitContext(link, visitor, q < 0 ? '' : url.slice(q + 1), false, liveClicks(link)), Date.now())
    if (outcome.kind !== 'go') return false

    o.cache.countFastHit()
    recordVisit(o.clicks, o.cache, method, link, visitor, 'link', outcome.rotation)
    const policy = directPolicy(link, o.defaultStatus)
    const send = () => {
      res.writeHead(policy.status, ['location', outcome.url, 'cache-control', cacheControlOf(policy.cacheTtl, policy.perVisitor), 'content-length', '0'])
      res.end()
    }
    // as answerWhenSpooled: a recorded visit is answered once its click is in the spool
    if (o.clicks.spoolWaiting()) o.clicks.afterSpool(send)
    else send()
    return true
  }
}

/**
 * The single-segment GET paths of every route registered after this call, which Fastify routes to
 * them rather than to `/:alias` (its static routes win). Call before the routes are registered.
 */
export function routedPaths(app: FastifyInstance): Set<string> {
  const paths = new Set<string>()
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    const m = /^\/([^/:*]+)$/.exec(route.url)
    if (m && methods.some((x) => x === 'GET' || x === 'HEAD')) paths.add(m[1])
  })
  return paths
}

/**
 * Puts the cached visit in front of Fastify on the app's server: Fastify's own `request` listener
 * runs for whatever it leaves. Off while the app closes (Fastify answers 503 then) and at
 * LOG_LEVEL=debug, where every request gets its access lines.
 */
export function serveCachedVisits(app: FastifyInstance, o: FastPathOptions): void {
  // Fastify writes a visit's access lines: it must see every visit
  if (logsVisits(app.config.logLevel)) return
  const visit = cachedVisit(o)
  let closing = false
  app.addHook('preClose', (done) => {
    closing = true
    done()
  })
  const server = app.server
  const [fastify] = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[]
  server.removeListener('request', fastify)
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    let answered = false
    try {
      answered = !closing && visit(req, res)
    } catch {
      // a bug here must not lose the visit: Fastify's handler decides it again, and logs what throws
    }
    if (!answered) fastify.call(server, req, res)
  })
}
