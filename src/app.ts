import { randomUUID } from 'node:crypto'
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import type { Redis } from 'ioredis'
import { connectRedis } from './lib/redis.js'
import { deploymentId } from './db/deployment-settings.js'
import type { Config } from './config.js'
import { createDb, type Db, type DbHandle } from './db/client.js'
import { errSerializer } from './db/query-errors.js'
import { runMigrations } from './db/migrate.js'
import type { Keys } from './lib/crypto.js'
import { deploymentKeys } from './accounts/deployment-secret.js'
import { errorHandler, frameworkErrorHandler, notFoundHandler } from './http/errors.js'
import { clientErrorHandler } from './http/client-errors.js'
import { AccessLog, logsVisits, REDACT_PATHS, requestSerializer } from './http/logging.js'
import { listErrorAsNumber, withoutErrorKey } from './http/compat.js'
import { validatorCompiler } from './http/zod.js'
import { BODY_LIMIT, registerBodyParsers } from './http/body.js'
import { authenticate } from './http/auth.js'
import { InFlightLimit } from './http/in-flight.js'
import { registerRateLimit } from './http/rate-limit.js'
import { refuseUnreadBodies } from './http/unread-body.js'
import { refuseNulInQuery } from './http/nul-bytes.js'
import openapi from './openapi/index.js'
import { connectionCap, limitConnections, openFileLimit } from './http/connections.js'
import metrics from './metrics.js'
import { registerCors } from './http/cors.js'
import { seedPlans } from './resources/admin/plans.js'
import { bootstrapAdmin, type CreatedAdmin } from './resources/admin/bootstrap.js'
import health, { watchRedis } from './health.js'
import account from './resources/account/index.js'
import admin from './resources/admin/index.js'
import domains from './resources/domains/index.js'
import campaigns from './resources/campaigns/index.js'
import channels from './resources/channels/index.js'
import links from './resources/links/index.js'
import pixels from './resources/pixels/index.js'
import qr from './resources/qr/index.js'
import pages from './resources/pages/index.js'
import v1Links from './resources/v1-links/index.js'
import dashboard from './dashboard/index.js'
import dashboardApi from './dashboard/api.js'
import redirect from './redirect/index.js'
import { routedPaths, serveCachedVisits } from './redirect/fast-path.js'
import { trustProxyOf } from './http/trust.js'
import qrPublic from './resources/qr/public.js'
import { createClickRecorder } from './clicks/recorder.js'
import { ClickSpool } from './clicks/spool.js'
import { startRetentionJob } from './clicks/retention.js'
import { startExpiredLoginSweep } from './accounts/expired-logins.js'
import { startTotalsJob } from './clicks/totals.js'
import { startPgliteMaintenance } from './db/maintenance.js'
import { LinkCache } from './redirect/cache.js'
import campaignPages from './resources/campaigns/public.js'
import overlayResponses from './resources/pages/public.js'
import webhooks from './resources/webhooks/index.js'
import { DeliveryWorker, type DeliveryOptions } from './resources/webhooks/deliver.js'
import { DAY } from './lib/time.js'
import { ClickEventBacklog } from './resources/webhooks/backlog.js'
import { clickEvents } from './resources/webhooks/clicks.js'
import { registerWebhookSubscriptions } from './resources/webhooks/subscriptions.js'
import { registerKeyCache } from './resources/account/key-cache.js'
import { HealthChecker, type HealthOptions } from './link-health/checker.js'
import { invalidateLinks } from './resources/redirect-cache.js'
import blocklist from './resources/blocklist/index.js'
import reports from './resources/reports/index.js'
import reportPages from './resources/reports/public.js'
import transfer from './resources/transfer/index.js'

declare module 'fastify' {
  interface FastifyInstance {
    config: Config
    db: Db
    dbHandle: DbHandle
    keys: Keys
    /** shared Redis connection when REDIS_URL is set */
    redis: Redis | null
    /** the admin ADMIN_EMAIL created on this start, with what was generated for it */
    createdAdmin: CreatedAdmin | null
  }
}

export interface Deps {
  /** an already-open database (tests); otherwise one is opened from config */
  db: DbHandle
  /** where pino writes the logs (tests capture them); stdout otherwise */
  logStream: NodeJS.WritableStream
  /** append each visit to the crash-safe click spool in DATA_DIR (the server; tests opt in) */
  spool: boolean
  /** webhook delivery settings (tests: short backoff, fast polling) */
  webhooks: Partial<DeliveryOptions>
  /** health checker pacing (tests: fast polling, no spacing) */
  health: Partial<HealthOptions>
}

/**
 * A request's logger that becomes a real pino child (with the request id) only when a line is
 * written at an enabled level: at LOG_LEVEL=warn a visit logs nothing, so it makes none.
 */
type Bindings = Parameters<FastifyBaseLogger['child']>[0]
type ChildLoggerOptions = Parameters<FastifyBaseLogger['child']>[1]
/** the root logger is pino's, which answers this */
type RootLogger = FastifyBaseLogger & { isLevelEnabled(level: string): boolean }

class LazyChildLogger {
  private real: FastifyBaseLogger | null = null
  constructor(private readonly parent: RootLogger, private readonly bindings: Bindings) {}
  get level() {
    return this.parent.level
  }
  private line(level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace', args: unknown[]) {
    if (!this.parent.isLevelEnabled(level)) return
    this.real ??= this.parent.child(this.bindings)
    ;(this.real[level] as (...a: unknown[]) => void)(...args)
  }
  fatal(...a: unknown[]) { this.line('fatal', a) }
  error(...a: unknown[]) { this.line('error', a) }
  warn(...a: unknown[]) { this.line('warn', a) }
  info(...a: unknown[]) { this.line('info', a) }
  debug(...a: unknown[]) { this.line('debug', a) }
  trace(...a: unknown[]) { this.line('trace', a) }
  silent() {}
  isLevelEnabled(level: string) {
    return this.parent.isLevelEnabled(level)
  }
  child(bindings: Bindings, opts?: ChildLoggerOptions) {
    this.real ??= this.parent.child(this.bindings)
    return this.real.child(bindings, opts)
  }
}

/**
 * A request id without a random draw per request: random once per process, then a counter, in the
 * 36-character form of a UUID that log readers and clients already expect.
 */
const idPrefix = randomUUID().slice(0, 24)
let idCounter = 0
const nextRequestId = () => idPrefix + (idCounter++ % 0x1000000000000).toString(16).padStart(12, '0')

export async function buildApp(config: Config, deps: Partial<Deps> = {}): Promise<FastifyInstance> {
  const trust = trustProxyOf(config.trustProxy)
  const app = Fastify({
    logger: {
      level: config.logLevel,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      serializers: { req: requestSerializer(config.logIps), err: errSerializer },
      ...(deps.logStream ? { stream: deps.logStream } : {}),
    },
    // the one reading of TRUST_PROXY, shared with the cached visit path (redirect/fast-path.ts)
    trustProxy: trust ?? false,
    bodyLimit: BODY_LIMIT,
    connectionTimeout: 120_000,
    requestTimeout: 60_000,
    genReqId: (req) => {
      const given = req.headers['x-request-id']
      return typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : nextRequestId()
    },
    routerOptions: { maxParamLength: 2048 },
    frameworkErrors: frameworkErrorHandler,
    logController: new AccessLog(logsVisits(config.logLevel)),
    clientErrorHandler,
    childLoggerFactory: (logger, bindings, opts) => (opts.level ? logger.child(bindings, opts) : (new LazyChildLogger(logger as RootLogger, bindings) as unknown as FastifyBaseLogger)),
  })

  limitConnections(app, connectionCap(config.maxConnections, openFileLimit()))
  // before any route: the single-segment paths that are not visits
  const routed = routedPaths(app)

  const handle = deps.db ?? (await createDb(config.db))
  await runMigrations(handle)
  await seedPlans(handle.db)

  app.decorate('config', config)
  app.decorate('db', handle.db)
  app.decorate('dbHandle', handle)
  app.decorate('keys', await deploymentKeys(handle.db, config))
  // Redis away must cost a request nothing: no queue of commands waiting for a reconnect (each
  // fails at once and its caller counts in this instance), and a short timeout for a Redis that hangs
  // (not shorter: the timer also runs while this event loop is busy, and every timeout splits a count)
  app.decorate(
    'redis',
    config.redisUrl
      ? connectRedis(config.redisUrl, await deploymentId(handle.db), { maxRetriesPerRequest: 1, enableOfflineQueue: false, commandTimeout: 500, connectTimeout: 2_000 })
      : null,
  )
  if (app.redis) watchRedis(app.redis, app.log)
  registerKeyCache(app)
  registerWebhookSubscriptions(app, handle.db)
  if (config.trustProxy === true) {
    app.log.warn('TRUST_PROXY=true believes any forwarded address a request names, so a client can choose its own and get past every per-IP limit: set the number of proxies in front of Kurz (TRUST_PROXY=1) or their addresses instead')
  }

  // Close order matters: stop serving, then (hooks added later run first) drain, then the DB.
  app.addHook('onClose', async () => {
    app.redis?.disconnect()
    if (!deps.db) await handle.close()
  })

  // The click pipeline and the redirect cache. Their onClose hook is added after the one above,
  // so it runs first: buffered clicks are written before the database closes.
  const spool = deps.spool ? new ClickSpool(config.dataDir) : undefined
  app.decorate('clickEventBacklog', new ClickEventBacklog(config.webhookClickBacklog))
  app.decorate(
    'clicks',
    createClickRecorder({
      db: handle.writer,
      visitorKey: app.keys.visitor,
      log: app.log,
      ping: () => handle.ping(),
      onBatch: clickEvents(config.publicUrl, app.webhookSubscriptions, app.clickEventBacklog),
      spool,
      // a batch's fixed cost spread over many clicks (PGlite's worker: about 1.8 ms a batch and 9 µs
      // a click of one link, bench/click-batch.ts); on PGlite a miss waits behind the batch, so
      // while not behind a batch names at most 500 links (their first clicks of a day cost ~200 µs)
      batchSize: 2000,
      batchSubjects: handle.kind === 'pglite' ? 500 : undefined,
      // PGlite's one connection: a cache miss would wait behind the batch (Postgres has a pool)
      visitsWaiting: handle.kind === 'pglite' ? () => app.linkCache?.waiting() === true : undefined,
    }),
  )
  await app.clicks.replay()
  app.decorate('linkCache', new LinkCache({ db: handle.db, defaultHost: config.defaultHost, liveClicks: app.clicks.live, log: app.log, redis: app.redis, maxLinks: config.redirect.cacheSize }))
  await app.linkCache.start()
  const stopRetention = startRetentionJob(handle.db, app.log)
  const stopLoginSweep = startExpiredLoginSweep(handle.db, app.log)
  const stopTotals = startTotalsJob(handle.db, app.log)
  const stopMaintenance = handle.kind === 'pglite' ? startPgliteMaintenance(handle.db, app.log) : () => {}
  app.addHook('onClose', async () => {
    stopRetention()
    stopLoginSweep()
    stopTotals()
    stopMaintenance()
    await app.linkCache.close()
    await app.clicks.close()
  })
  // added after the clicks' hook, so it runs first: events the last click batch queues wait in the outbox for the next start
  app.decorate('webhooks', new DeliveryWorker(handle.db, app.log, { allowPrivate: config.allowPrivateTargets, keepMs: config.webhookKeepDays * DAY, ...deps.webhooks }))
  app.addHook('onReady', async () => app.webhooks.start())
  app.addHook('onClose', async () => app.webhooks.close())
  const healthOptions = { intervalSec: config.healthCheckInterval, allowPrivate: config.allowPrivateTargets, ...deps.health }
  app.decorate('healthChecker', new HealthChecker(handle.db, app.log, config.publicUrl, (id) => invalidateLinks(app, [id]), healthOptions))
  app.addHook('onReady', async () => app.healthChecker.start())
  // added after the clicks' hook, so it runs first: no check writes once the database is closing
  app.addHook('onClose', async () => app.healthChecker.close())

  app.setValidatorCompiler(validatorCompiler)
  // the request id goes out where someone may quote it: API answers (their scope's hook) and errors
  app.setErrorHandler(function (err, req, reply) {
    reply.header('x-request-id', req.id)
    return errorHandler.call(this, err, req, reply)
  })
  registerBodyParsers(app)
  await app.register(openapi) // before every route: it collects them for /openapi.json
  await app.register(metrics) // before every route: it times each (visit routes excepted)

  // Everything behind an API key: authenticate first, then each interface's own rate budget.
  const apiScope = async (api: FastifyInstance) => {
    // only API answers carry `"error":"0"`: the rewrite stays off every other reply
    if (config.compat.listError === 'number') listErrorAsNumber(api)
    api.addHook('onRequest', (req, reply, done) => {
      reply.header('x-request-id', req.id)
      done()
    })
    api.addHook('onRequest', authenticate)
    api.addHook('preValidation', refuseNulInQuery)
    // after each interface's rate limit: a principal's requests are handled a few at a time (in-flight.ts)
    const inFlight = new InFlightLimit()
    await api.register(async (management) => {
      await registerRateLimit(management, { max: config.rateLimit.max, sessionMax: config.rateLimit.dashboardMax, name: 'api' })
      inFlight.register(management)
      for (const plugin of [account, admin, domains, campaigns, channels, links, pixels, qr, pages, webhooks, transfer, blocklist, reports, dashboardApi]) {
        await management.register(plugin)
      }
    })
    await api.register(async (v1) => {
      await registerRateLimit(v1, { max: config.rateLimit.v1Max, sessionMax: config.rateLimit.dashboardMax, name: 'v1' })
      inFlight.register(v1)
      if (config.compat.v1 === 'phpshort') withoutErrorKey(v1)
      await v1.register(v1Links)
    })
  }

  // CORS (when configured) wraps the API alone, so a visit runs no CORS hook; unrouted paths are
  // answered from this scope too, so an API path's 404 stays readable by an allowed origin.
  await app.register(async (cross) => {
    await registerCors(cross, config.corsOrigins)
    refuseUnreadBodies(cross)
    cross.setNotFoundHandler(notFoundHandler)
    await cross.register(apiScope)
  })
  await app.register(health)
  await app.register(dashboard)
  await app.register(campaignPages)
  await app.register(overlayResponses)
  await app.register(qrPublic) // /qr/:alias, /q/:alias, /:alias/qr – before the redirect's /:alias
  await app.register(reportPages) // /:alias/report
  await app.register(redirect) // last: it owns /:alias and friends
  // in front of Fastify: a cached plain redirect answered from the server's request event
  serveCachedVisits(app, { cache: app.linkCache, clicks: app.clicks, trust, defaultStatus: config.redirect.status, routed })

  // shown once on the console by the server (src/server.ts), never logged
  app.decorate('createdAdmin', await bootstrapAdmin(app))
  return app
}
