import type { FastifyBaseLogger, FastifyPluginAsync } from 'fastify'
import type { Redis } from 'ioredis'
import { secretRotatedAway } from './accounts/deployment-secret.js'
import { notFoundHandler } from './http/errors.js'

/**
 * A Redis that cannot be reached fails every reconnect attempt, each with an 'error' event: one
 * warning when it goes away and one line when it is back, not one per attempt.
 */
export function watchRedis(redis: Redis, log: FastifyBaseLogger, name = 'redis'): void {
  let down = false
  redis.on('error', (err: Error) => {
    if (down) return
    down = true
    log.warn({ err: err.message }, `${name} is not reachable; Kurz goes on without it (per-instance rate limits and caches) and retries in the background`)
  })
  redis.on('ready', () => {
    if (!down) return
    down = false
    log.info(`${name} is reachable again`)
  })
}

const health: FastifyPluginAsync = async (app) => {
  // GET /healthz – the process lives
  app.get('/healthz', async () => ({ status: 'ok' }))

  // GET /readyz – 200 only while the database answers and still takes this instance's secret;
  // Redis is optional, so without it the instance still serves and says it is degraded
  let rotationLogged = false
  app.get('/readyz', async (_req, reply) => {
    if (!(await app.dbHandle.ping())) {
      return reply.code(503).send({ status: 'unavailable', error: 1, message: 'The database is not answering.' })
    }
    if (await secretRotatedAway(app.db, app.keys).catch(() => false)) {
      const message = 'secret:rotate gave this deployment a new secret: this instance finds no API key until it restarts with the new SECRET_KEY.'
      if (!rotationLogged) app.log.error(message)
      rotationLogged = true
      return reply.code(503).send({ status: 'unavailable', error: 1, message })
    }
    if (app.redis && app.redis.status !== 'ready') return { status: 'degraded', redis: 'down' }
    return { status: 'ok' }
  })

  // /api itself names no endpoint; without this route the short-link handler would take it for an
  // alias and answer with an HTML page where API clients expect the JSON envelope
  app.all('/api', notFoundHandler)
}
export default health
