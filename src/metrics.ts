import { timingSafeEqual, createHash } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import { sql } from 'drizzle-orm'
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import { unfoldedDays } from './clicks/totals.js'
import { unauthorized } from './http/errors.js'

/**
 * GET /metrics (DECISIONS §10.7): Prometheus text. Visits cost nothing here: request durations are
 * observed by a hook on every route except the visit routes (added per route, so those routes run
 * no hook at all), and visits, clicks and queue depths are read from the click recorder's own
 * counters when Prometheus scrapes.
 */

/** routes that answer visits: counted by the recorder, never timed per request */
const VISIT_ROUTES = new Set(['/:alias', '/r/:slug', '/q/:alias'])

/** what a cache may report (the redirect cache, once it counts its hits) */
interface CacheCounts {
  hits: number
  misses: number
  size?: number
  fast?: number
}

const TIMED = Symbol('kurz.metrics.timed')

const sha = (s: string) => createHash('sha256').update(s).digest()

function metrics(app: FastifyInstance) {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, prefix: 'kurz_' })

  const duration = new Histogram({
    name: 'kurz_http_request_duration_seconds',
    help: 'Time to answer a request, by route pattern (visit routes are counted in kurz_redirects_total instead)',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  })
  const flush = new Histogram({
    name: 'kurz_click_flush_duration_seconds',
    help: 'Time to write one click batch (its whole transaction)',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
    registers: [registry],
  })

  const recorder = () => app.clicks
  const counter = (name: string, help: string, read: () => number) =>
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset()
        this.inc(read())
      },
    })
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read())
      },
    })

  new Counter({
    name: 'kurz_redirects_total',
    help: 'Visits answered and recorded (redirects, splash and frame pages), by source: link, rotator (campaign), qr (scan); HEAD requests are not counted',
    labelNames: ['source'],
    registers: [registry],
    collect() {
      this.reset()
      for (const [source, n] of Object.entries(recorder().bySource)) this.inc({ source }, n)
    },
  })
  counter('kurz_webhook_click_events_skipped_total', 'Click events this instance did not queue because the account had WEBHOOK_CLICK_BACKLOG deliveries pending', () => app.clickEventBacklog.skipped)
  counter('kurz_connections_refused_total', 'Connections closed on arrival because MAX_CONNECTIONS were open', () => app.connections.dropped)
  gauge('kurz_connections_max', 'The cap on open connections (MAX_CONNECTIONS, or derived from the open-file limit); 0: no cap', () => app.connections.cap ?? 0)
  counter('kurz_clicks_recorded_total', 'Clicks taken by the click pipeline', () => recorder().stats().recorded)
  counter('kurz_clicks_spooled_total', 'Clicks appended to the crash-safe spool before their answer', () => recorder().spoolStats().spooled)
  counter('kurz_clicks_unspooled_total', 'Clicks the spool could not take (disk full, no file descriptor left): kept in memory only', () => recorder().spoolStats().unspooled)
  counter('kurz_clicks_written_total', 'Clicks written to the database', () => recorder().stats().written)
  counter('kurz_clicks_discarded_total', 'Clicks of links or QR codes deleted before their batch was written', () => recorder().stats().discarded)
  counter('kurz_clicks_dropped_total', 'Clicks lost: memory and disk both full, or a batch the database kept refusing', () => recorder().stats().dropped)
  counter('kurz_click_write_failures_total', 'Click batches the database failed to write (retried)', () => recorder().stats().failures)
  gauge('kurz_clicks_buffered', 'Clicks waiting in memory for their batch', () => recorder().stats().buffered)
  gauge('kurz_clicks_spool_backlog', 'Clicks waiting only on disk (the memory buffer was full)', () => recorder().spoolStats().backlog)

  new Gauge({
    name: 'kurz_redirect_cache_hit_ratio',
    help: 'Share of link lookups the redirect cache answered since start',
    registers: [registry],
    collect() {
      const c = cacheCounts(app)
      if (c && c.hits + c.misses > 0) this.set(c.hits / (c.hits + c.misses))
    },
  })
  new Counter({
    name: 'kurz_redirect_cache_lookups_total',
    help: 'Link lookups of the redirect cache, by result: hit or miss',
    labelNames: ['result'],
    registers: [registry],
    collect() {
      const c = cacheCounts(app)
      this.reset()
      if (!c) return
      this.inc({ result: 'hit' }, c.hits)
      this.inc({ result: 'miss' }, c.misses)
    },
  })
  new Counter({
    name: 'kurz_redirect_fast_path_total',
    help: 'Visits answered from the redirect cache before Fastify saw them: plain redirects of cached links (redirect/fast-path.ts)',
    registers: [registry],
    collect() {
      const fast = cacheCounts(app)?.fast
      this.reset()
      if (fast) this.inc(fast)
    },
  })
  new Gauge({
    name: 'kurz_redirect_cache_links',
    help: 'Links the redirect cache holds now (at most REDIRECT_CACHE_SIZE)',
    registers: [registry],
    collect() {
      const size = cacheCounts(app)?.size
      if (size !== undefined) this.set(size)
    },
  })
  new Gauge({
    name: 'kurz_webhook_deliveries',
    help: 'Webhook deliveries in the outbox waiting to be sent (status="pending", the queue) or given up on (status="failed")',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      this.reset()
      try {
        // each through its partial index: the delivered rows kept beside them (30 days of every click event) are never read
        const res = await app.db.execute(sql`select (select count(*) from webhook_deliveries where status = 'pending')::int as pending,
          (select count(*) from webhook_deliveries where status = 'failed')::int as failed`)
        const [row] = (res as unknown as { rows: { pending: number; failed: number }[] }).rows
        this.set({ status: 'pending' }, Number(row.pending))
        this.set({ status: 'failed' }, Number(row.failed))
      } catch {
        /* no outbox yet, or the database is away: the other metrics still answer */
      }
    },
  })
  counter('kurz_webhook_deliveries_delivered_total', 'Webhook deliveries this instance sent and a receiver took (2xx)', () => app.webhooks.stats().delivered)
  counter('kurz_webhook_delivery_failures_total', 'Webhook delivery attempts of this instance that failed (retried, or given up on after the last)', () => app.webhooks.stats().failedAttempts)

  new Counter({
    name: 'kurz_link_health_checks_total',
    help: "Checks of links' long URLs this instance recorded (background and POST /api/url/:id/check), by result: ok, broken, unknown",
    labelNames: ['result'],
    registers: [registry],
    collect() {
      this.reset()
      for (const [result, n] of Object.entries(app.healthChecker.checks)) this.inc({ result }, n)
    },
  })

  new Gauge({
    name: 'kurz_click_totals_unfolded_days',
    help: 'Finished days (UTC) the daily fold has not yet added to the all-time click totals: 0 when up to date; statistics stay right, but read more rows while it grows',
    registers: [registry],
    async collect() {
      try {
        this.set(await unfoldedDays(app.db))
      } catch {
        /* the database is away: the other metrics still answer */
      }
    },
  })

  return { registry, duration, flush }
}

/** The redirect cache's counts when it keeps them (a `stats()` with hits and misses). */
function cacheCounts(app: FastifyInstance): CacheCounts | null {
  const cache = app.linkCache as unknown as { stats?: () => Partial<CacheCounts> }
  const s = typeof cache?.stats === 'function' ? cache.stats() : null
  return s && typeof s.hits === 'number' && typeof s.misses === 'number' ? { hits: s.hits, misses: s.misses, size: s.size, fast: s.fast } : null
}

export default fp(
  async (app: FastifyInstance) => {
    const m = metrics(app)
    app.clicks.onFlushed = (seconds) => m.flush.observe(seconds)

    // a hook on each timed route, none on visit routes: a visit runs no metrics code at all
    app.addHook('onRoute', (route: RouteOptions) => {
      // nor CORS preflights (`OPTIONS *`), which answer before any route's work
      if (VISIT_ROUTES.has(route.url) || route.url === '/metrics' || route.url === '*') return
      const existing = route.onResponse === undefined ? [] : Array.isArray(route.onResponse) ? route.onResponse : [route.onResponse]
      // the HEAD twin of a GET route arrives with the GET's hooks already in place
      if (existing.some((h) => (h as { [TIMED]?: true })[TIMED])) return
      const observe = Object.assign(
        async (req: FastifyRequest, reply: FastifyReply) => {
          m.duration.observe({ method: req.method, route: route.url, status_code: reply.statusCode }, reply.elapsedTime / 1000)
        },
        { [TIMED]: true as const },
      )
      route.onResponse = [...existing, observe]
    })

    // scrapes that arrive while one is rendered share it: the outbox and fold gauges are database
    // queries, and clients asking all at once must not each start their own
    let rendering: Promise<string> | null = null
    const render = () =>
      (rendering ??= m.registry.metrics().finally(() => {
        rendering = null
      }))
    const token = app.config.metricsToken ? sha(app.config.metricsToken) : null
    app.get('/metrics', async (req, reply) => {
      if (token) {
        const given = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? ''
        // compare digests: equal length whatever was sent, and no early exit on the first wrong byte
        if (!timingSafeEqual(sha(given), token)) {
          reply.header('www-authenticate', 'Bearer realm="metrics"')
          throw unauthorized('GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.')
        }
      }
      reply.header('content-type', m.registry.contentType)
      return render()
    })
  },
  { name: 'kurz-metrics' },
)
