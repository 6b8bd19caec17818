import type { FastifyPluginAsync } from 'fastify'
import { notFoundHandler } from './http/errors.js'

const health: FastifyPluginAsync = async (app) => {
  // GET /healthz – the process lives
  app.get('/healthz', async () => ({ status: 'ok' }))

  // GET /readyz – 200 only while the database answers
  app.get('/readyz', async (_req, reply) => {
    if (await app.dbHandle.ping()) return { status: 'ok' }
    return reply.code(503).send({ status: 'unavailable', error: 1, message: 'The database is not answering.' })
  })

  // /api itself names no endpoint; without this route the short-link handler would take it for an
  // alias and answer with an HTML page where API clients expect the JSON envelope
  app.all('/api', notFoundHandler)
}
export default health
