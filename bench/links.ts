/**
 * The API's figures: link creation rate (each backend with its server alone), /healthz latency while
 * 200 clients create links (PGlite, where a write runs in the server's process), and the detail and
 * statistics of a link with a million clicks (Postgres).
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { ADMIN_KEY, SIZES, api, cannon, cannonRun, fmt, log, median, quantile, sleep, type Row } from './lib.js'
import { seedClicks } from './seed.js'
import { postgresSettled, scrapeMetrics, startKurz, stopKurz, type Backend, type Server } from './servers.js'

const CREATE_TARGET = { PGlite: 500, Postgres: 1500 }

export function createOptions(s: Server) {
  return {
    url: s.url + '/api/url/add',
    method: 'POST' as const,
    headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: 'https://example.com/product/[<id>]?ref=bench' }),
    idReplacement: true,
  }
}

async function createRate(s: Server, amount: number): Promise<{ rate: number; failed: number }> {
  const t0 = performance.now()
  const r = await cannon({ ...createOptions(s), connections: 10, amount })
  const secs = (performance.now() - t0) / 1000
  return { rate: r['2xx'] / secs, failed: amount - r['2xx'] }
}

/**
 * The create rate of each backend, its rounds run with its server the only one up: a deployment
 * runs one backend, and the other server's work (PGlite's vacuum pass, two minutes after its start,
 * over the millions of clicks the rows before stored) would share the server core. The last
 * backend measured (Postgres when there is one) is left the only server up.
 */
export async function createRows(list: Backend[]): Promise<Row[]> {
  const labels = ['PGlite', 'Postgres'] as const
  const rows: Row[] = []
  for (const label of labels) {
    const b = list.find((x) => x.label === label)
    const target = `>= ${CREATE_TARGET[label]}/s`
    const figure = `link create via POST /api/url/add, ${label}`
    if (!b) {
      rows.push({ figure, measured: 'skipped (no Postgres)', target, ok: null })
      continue
    }
    for (const other of list) if (other !== b) await stopKurz(other)
    if (!b.server) await startKurz(b)
    await createRate(b.server!, Math.min(200, SIZES.creates)) // warm-up
    const rates: number[] = []
    for (let i = 0; i < SIZES.rounds; i++) {
      const r = await createRate(b.server!, SIZES.creates)
      if (r.failed) log(`${b.label}: ${r.failed} creates failed`)
      rates.push(r.rate)
      log(`round ${i + 1}: ${b.label} ${fmt(r.rate)} links/s`)
    }
    const rate = median(rates)
    rows.push({ figure, measured: `${fmt(rate)}/s`, target, ok: rate >= CREATE_TARGET[label] })
  }
  return rows
}

/** The longest event-loop delay the server saw since its previous scrape (prom-client resets it at each one). */
async function serverLoopMaxMs(s: Server): Promise<number> {
  return ((await scrapeMetrics(s)).kurz_nodejs_eventloop_lag_max_seconds ?? NaN) * 1000
}

/**
 * /healthz probed every 20 ms while BENCH_SUSTAIN_CLIENTS clients create links for
 * BENCH_HEALTH_SECONDS. Probes start on the clock, not after the previous answer, so a blocked
 * event loop shows in every probe that waited on it rather than in one. The probes are timed in
 * this process, which also drives the writers: the row also prints the longest event-loop delay of
 * the server (its own /metrics) and of this process, so a slow probe can be told apart from a
 * busy load generator.
 */
export async function healthUnderWritesRow(b: Backend): Promise<Row> {
  const s = b.server!
  await serverLoopMaxMs(s) // resets the server's delay histogram
  const here = monitorEventLoopDelay({ resolution: 5 })
  const writers = cannonRun({ ...createOptions(s), connections: SIZES.sustainClients, duration: SIZES.healthSeconds })
  let writing = true
  void writers.done.finally(() => (writing = false))
  const times: number[] = []
  const probes: Promise<void>[] = []
  await sleep(500) // the writers are connected and busy
  here.enable()
  while (writing) {
    const t0 = performance.now()
    probes.push(
      fetch(`${s.url}/healthz`, { signal: AbortSignal.timeout(60_000) })
        .then((res) => res.arrayBuffer())
        .then(() => void times.push(performance.now() - t0)),
    )
    await sleep(20)
  }
  await Promise.all(probes)
  here.disable()
  const r = await writers.done
  const serverMax = await serverLoopMaxMs(s)
  const p99 = quantile(times, 0.99)
  const delays = `event-loop delay max: server ${serverMax.toFixed(0)} ms, load generator ${(here.max / 1e6).toFixed(0)} ms`
  log(`${b.label}: /healthz p99 ${p99.toFixed(1)} ms over ${times.length} probes, ${fmt(r['2xx'] / r.duration)} links/s created meanwhile; ${delays}`)
  return {
    figure: `/healthz p99 while ${SIZES.sustainClients} clients create links, ${b.label}`,
    measured: `${p99.toFixed(1)} ms (${times.length} probes, max ${Math.max(...times).toFixed(0)} ms; ${delays})`,
    target: '< 50 ms',
    ok: p99 < 50,
  }
}

/** p95 of GET latency, measured per request with 8 in flight. */
export async function p95(s: Server, path: string, n: number): Promise<number> {
  const times: number[] = []
  let next = 0
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < n) {
        next++
        const t0 = performance.now()
        const res = await fetch(s.url + path, { headers: { authorization: `Bearer ${ADMIN_KEY}` }, signal: AbortSignal.timeout(60_000) })
        await res.arrayBuffer()
        if (res.status !== 200) throw new Error(`GET ${path}: ${res.status}`)
        times.push(performance.now() - t0)
      }
    }),
  )
  return quantile(times, 0.95)
}

export async function statsRows(b: Backend | undefined): Promise<Row[]> {
  const n = SIZES.seededClicks
  const label = `${fmt(n)} clicks, Postgres`
  if (!b) {
    return [
      { figure: `GET /api/url/:id p95, ${label}`, measured: 'skipped (no Postgres)', target: '< 50 ms', ok: null },
      { figure: `GET /api/url/:id/stats p95, a year by day, ${label}`, measured: 'skipped (no Postgres)', target: '< 50 ms', ok: null },
    ]
  }
  const s = b.server!
  const big = await api(s.url, 'POST', '/api/url/add', { url: 'https://example.com/popular', custom: 'popular' })
  log(`seeding ${fmt(n)} clicks`)
  await seedClicks(b.pgUrl!, big.id as number, n)
  await postgresSettled(b, { vacuum: false })
  const detail = await api(s.url, 'GET', `/api/url/${big.id}`)
  if ((detail.data as { clicks: number }).clicks !== n) throw new Error(`expected ${n} clicks, the API says ${(detail.data as { clicks: number }).clicks}`)
  const measure = async (path: string) => {
    await p95(s, path, Math.min(200, SIZES.statsRequests)) // warm-up
    const xs: number[] = []
    for (let i = 0; i < SIZES.rounds; i++) xs.push(await p95(s, path, SIZES.statsRequests))
    return median(xs)
  }
  const p = await measure(`/api/url/${big.id}`)
  // the dashboard's widest chart: a year by day (the seeded clicks span the last 365 days)
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)
  const year = `/api/url/${big.id}/stats?from=${day(Date.now() - 365 * 86_400_000)}&to=${day(Date.now())}`
  const totals = ((await api(s.url, 'GET', year)).data as { totals: { clicks: number } }).totals
  if (totals.clicks !== n) throw new Error(`expected ${n} clicks in the year's series, got ${totals.clicks}`)
  const sp = await measure(year)
  return [
    { figure: `GET /api/url/:id p95, ${label}`, measured: `${p.toFixed(1)} ms`, target: '< 50 ms', ok: p < 50 },
    { figure: `GET /api/url/:id/stats p95, a year by day, ${label}`, measured: `${sp.toFixed(1)} ms`, target: '< 50 ms', ok: sp < 50 },
  ]
}
