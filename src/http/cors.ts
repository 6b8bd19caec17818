import type { FastifyInstance, FastifyRequest } from 'fastify'
import cors, { type FastifyCorsOptions } from '@fastify/cors'

/** The key-authenticated interfaces: management and v1 under /api/, and v1's delete path. */
const isApiPath = (url: string) => url.startsWith('/api/') || /^\/links\/[^/?#]+\/destroy(?:[?#]|$)/.test(url)

/**
 * CORS for browser clients on the origins of CORS_ORIGINS, on the API only (DECISIONS §10.7).
 * Keys travel in the Authorization header, never in cookies, so credentials stay off; a
 * preflight may send Authorization and Content-Type. With no origins configured nothing is
 * registered. Everything else – short links, pages, the dashboard – never carries a CORS header:
 * its routes opt out of the plugin entirely (no Vary: Origin either), and an origin not on the
 * list gets no header at all (its preflight is the plain 404 of an unknown OPTIONS).
 */
export async function registerCors(app: FastifyInstance, origins: readonly string[]) {
  if (!origins.length) return
  const any = origins.includes('*')
  const allowed = new Set(origins)

  // Registered in the scope that wraps the API only (src/app.ts), so visits and pages carry no
  // CORS hook at all; a route of that scope outside the API paths is still marked CORS-free. The
  // plugin's own `OPTIONS *` route answers preflights of any path and decides per request.
  app.addHook('onRoute', (route) => {
    if (route.url === '*' || isApiPath(route.url)) return
    route.config = { ...route.config, cors: false } as typeof route.config
  })

  const options = (req: FastifyRequest): FastifyCorsOptions => {
    const origin = req.headers.origin
    if (!isApiPath(req.url) || !origin || !(any || allowed.has(origin))) return { origin: false }
    return {
      origin: any ? '*' : origin,
      methods: ['GET', 'POST', 'PUT', 'DELETE'],
      allowedHeaders: ['Authorization', 'Content-Type', 'Accept', 'X-Request-Id'],
      exposedHeaders: ['X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After'],
      credentials: false,
      maxAge: 600,
    }
  }
  await app.register(cors, { hook: 'onRequest', delegator: (req, cb) => cb(null, options(req)) })
}
