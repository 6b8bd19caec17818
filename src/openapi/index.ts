import type { FastifyPluginAsync } from 'fastify'
import fp from 'fastify-plugin'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { OpenAPIV3_1 } from 'openapi-types'
import { completeDocument, transformRoute } from './document.js'
import { COMPONENTS, DESCRIPTION, TAGS } from './components.js'
import { packageVersion } from './version.js'

/**
 * The viewer's own policy: Swagger UI is three script files and a stylesheet served from /docs,
 * with no inline script; it fetches the document (and "Try it out" calls the API) on this origin
 * and PUBLIC_URL, and shows data: images (its logo, icons). Nothing else loads.
 */
function docsCsp(publicUrl: string): string {
  const origin = new URL(publicUrl).origin
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    `connect-src 'self' ${origin}`,
    "form-action 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ')
}

/** The viewer's top bar shows this instead of the library's own logo. */
const LOGO = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="150" height="40" viewBox="0 0 150 40">' +
    '<text x="0" y="30" font-family="system-ui,sans-serif" font-size="28" font-weight="700" fill="#fff">Kurz API</text></svg>',
)

/**
 * GET /openapi.json: the OpenAPI 3.1 document of both interfaces, built from the schemas of the
 * routes as they are registered (a route added later is in it without a change here);
 * GET /docs: Swagger UI over it, served from the package, no CDN.
 */
const openapi: FastifyPluginAsync = async (app) => {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Kurz API', version: packageVersion(), description: DESCRIPTION },
      servers: [{ url: app.config.publicUrl }],
      security: [{ apiKey: [] }],
      tags: TAGS,
      components: COMPONENTS,
    },
    transform: transformRoute as never,
    transformObject: (documentObject) => completeDocument((documentObject as { openapiObject: OpenAPIV3_1.Document }).openapiObject),
  })

  // the document is fixed once the routes are registered: serialised once, not per request (about
  // 5 ms of the event loop each, which a client asking in a loop turned into everyone's latency)
  let text: string | undefined
  app.get('/openapi.json', { schema: { summary: 'This document' } }, async (_req, reply) => {
    text ??= JSON.stringify(app.swagger())
    reply.header('cache-control', 'no-cache').type('application/json; charset=utf-8')
    return text
  })

  await app.register(swaggerUi, {
    routePrefix: '/docs',
    staticCSP: docsCsp(app.config.publicUrl),
    uiConfig: { deepLinking: true, docExpansion: 'list', defaultModelsExpandDepth: 0, tryItOutEnabled: false },
    theme: { title: 'Kurz API' },
    logo: { type: 'image/svg+xml', content: LOGO },
  })
}

export default fp(openapi, { name: 'kurz-openapi' })
