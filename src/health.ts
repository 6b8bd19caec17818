import type { FastifyPluginAsync } from 'fastify'

const health: FastifyPluginAsync = async (app) => {
  // GET /healthz – the process lives
  app.get('/healthz', async () => ({ status: 'ok' }))

  // GET /readyz – 200 only while the database answers
  app.get('/readyz', async (_req, reply) => {
    if (await app.dbHandle.ping()) return { status: 'ok' }
    return reply.code(503).send({ status: 'unavailable', error: 1, message: 'The database is not answering.' })
  })
}
export default health
