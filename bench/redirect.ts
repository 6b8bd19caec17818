/**
 * Cached redirects against a bare Fastify 302, interleaved round by round, and what each redirect
 * costs in CPU including its click's share of the writer: the Kurz process's own accounting from
 * the start of a round until every click of it is written, and (Postgres) the database's backends.
 */
import { SIZES, api, burst, fmt, log, median, type Row } from './lib.js'
import { BackendSampler, coreShares, coreTimes, treeCpu } from './proc.js'
import { backends, build, drained, scrapeMetrics, start, startKurz, stop, stopKurz, type Backend, type Server } from './servers.js'

export const CACHED_ALIAS = 'bench1'
const RATIO_TARGET = { PGlite: 0.5, Postgres: 0.75 }

export async function createCachedLink(b: Backend): Promise<void> {
  await api(b.server!.url, 'POST', '/api/url/add', { url: 'https://example.com/landing', custom: CACHED_ALIAS })
}

/** The build, then the named backend holding the cached link, its server stopped: where the profilers start. */
export async function backendWithCachedLink(label: string, cleanup: (() => unknown)[]): Promise<Backend> {
  await build()
  const b = (await backends(cleanup)).find((x) => x.label === label)
  if (!b) throw new Error(`no ${label} backend here`)
  await startKurz(b)
  await createCachedLink(b)
  await stopKurz(b)
  return b
}

interface Measured {
  rps: number[]
  /** Kurz CPU µs per redirect, per round */
  cpu: number[]
  /** Postgres backends' CPU µs per click, per round */
  dbCpu: number[]
  /** the autovacuum workers' part of dbCpu */
  vacuumCpu: number[]
}

/** One round on one server; Kurz rounds last until their clicks are written, so the writer is counted. */
async function round(s: Server, b: Backend | null, m: Measured): Promise<void> {
  const sampler = b?.dbName ? new BackendSampler(b.dbName) : null
  const before = b ? await scrapeMetrics(s) : null
  const cpu0 = treeCpu(s.child.pid!)
  sampler?.begin()
  const cores0 = coreTimes()
  const r = await burst(s.url, SIZES.redirects, `/${CACHED_ALIAS}`)
  // the round's line after it gives the rates; this one what each core did meanwhile
  log(`${s.name}: ${coreShares(cores0, coreTimes())}`)
  if (before) {
    // how far the click writer kept up during the burst: what it wrote, and what waited at the end
    const after = await scrapeMetrics(s)
    const written = (after.kurz_clicks_written_total ?? 0) - (before.kurz_clicks_written_total ?? 0)
    log(`${s.name}: ${fmt(written)} of ${fmt(r.answered)} clicks written during the burst; at its end ${fmt(after.kurz_clicks_buffered ?? 0)} in memory, ${fmt(after.kurz_clicks_spool_backlog ?? 0)} only on disk`)
  }
  if (r.other) log(`${s.name}: ${r.other} answers that were not 302`)
  m.rps.push(r.rps)
  if (!b) return
  await drained(s)
  const cpu = treeCpu(s.child.pid!) - cpu0
  m.cpu.push((cpu / r.answered) * 1e6)
  if (sampler) {
    const db = sampler.end()
    m.dbCpu.push((db.total / r.answered) * 1e6)
    m.vacuumCpu.push((db.autovacuum / r.answered) * 1e6)
  }
}

export async function cachedRedirectRows(list: Backend[]): Promise<Row[]> {
  log('starting the bare Fastify yardstick')
  const bare = await start('bare', ['--import', 'tsx', 'bench/bare.ts'])
  const servers: [Server, Backend | null][] = [[bare, null], ...list.map((b) => [b.server!, b] as [Server, Backend])]
  const measured = new Map<Server, Measured>(servers.map(([s]) => [s, { rps: [], cpu: [], dbCpu: [], vacuumCpu: [] }]))
  try {
    log('warm-up')
    for (const [s] of servers) await burst(s.url, Math.min(20_000, SIZES.redirects), `/${CACHED_ALIAS}`)
    for (const [, b] of servers) if (b) await drained(b.server!)
    for (let i = 0; i < SIZES.rounds; i++) {
      const order = servers.map((_, k) => servers[(k + i) % servers.length])
      for (const [s, b] of order) await round(s, b, measured.get(s)!)
      log(`round ${i + 1}: ${servers.map(([s]) => `${s.name} ${fmt(measured.get(s)!.rps[i])}/s`).join(', ')}`)
    }
  } finally {
    await stop(bare)
  }
  const bareRps = measured.get(bare)!.rps
  const rows: Row[] = []
  for (const b of list) {
    const m = measured.get(b.server!)!
    const ratio = median(m.rps.map((v, i) => v / bareRps[i]))
    const target = RATIO_TARGET[b.label]
    rows.push({
      figure: `cached redirect vs bare Fastify 302, ${b.label} (median of ${SIZES.rounds})`,
      measured: `${ratio.toFixed(3)} (${fmt(median(m.rps))} vs ${fmt(median(bareRps))} req/s)`,
      target: `>= ${target}`,
      ok: ratio >= target,
    })
  }
  for (const b of list) {
    const m = measured.get(b.server!)!
    const cpu = median(m.cpu)
    // the issue's budget is for Postgres; PGlite's (the database in the process) is shown without one
    rows.push({
      figure: `Kurz CPU per redirect incl. its click's write, ${b.label}`,
      measured: `${fmt(cpu, 1)} µs`,
      target: b.label === 'Postgres' ? '<= 25 µs' : '(none)',
      ok: b.label === 'Postgres' ? cpu <= 25 : null,
    })
    if (b.dbName) {
      const db = median(m.dbCpu)
      // autovacuum of the rows a round adds is part of their cost; shown apart so the writer's own share is visible
      const measured = `${fmt(db, 1)} µs (autovacuum ${fmt(median(m.vacuumCpu), 1)} µs of it)`
      rows.push({ figure: 'Postgres backends CPU per click written', measured, target: '<= 6 µs', ok: db <= 6 })
    }
  }
  return rows
}
