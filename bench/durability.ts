/**
 * Every answered redirect is a stored click: BENCH_SUSTAIN_CLIENTS (200) clients for
 * BENCH_SUSTAIN_SECONDS (60) over a thousand links, then the same with a `kill -9` half-way,
 * a restart on the same data (the spool is replayed) and a clean stop.
 *
 * The load generator knows what it got an answer to (answered) and what it sent; requests still in
 * flight when the run ends (or the server dies) may or may not have been recorded, so the stored
 * count must lie between the two. After a clean run the server's own count of recorded visits
 * (kurz_redirects_total) is exact, and the stored rows must equal it.
 */
import { SIZES, cannonRun, fmt, log, sleep, type Row } from './lib.js'
import { storedClicks } from './seed.js'
import { drained, scrapeMetrics, spoolFiles, startKurz, stopKurz, type Backend, type Server } from './servers.js'

export const SUSTAIN_PREFIX = 'sus-'
export const CRASH_PREFIX = 'k9-'
/** links each of the two rows spreads its visits over */
export const DURABILITY_LINKS = 1_000

async function redirectsTotal(s: Server): Promise<number> {
  return (await scrapeMetrics(s)).kurz_redirects_total ?? 0
}

/** Load over the prefix's links; `killAfterMs` sends SIGKILL to the server then and stops the load. */
async function load(s: Server, prefix: string, killAfterMs?: number) {
  const { instance, done } = cannonRun({
    url: s.url,
    connections: SIZES.sustainClients,
    duration: SIZES.sustainSeconds,
    requests: [
      {
        setupRequest: (req) => {
          req.path = `/${prefix}${Math.floor(Math.random() * DURABILITY_LINKS)}`
          return req
        },
      },
    ],
  })
  if (killAfterMs !== undefined) {
    void sleep(killAfterMs).then(() => {
      s.child.kill('SIGKILL')
      instance.stop()
    })
  }
  const r = await done
  return { answered: r.statusCodeStats?.['302']?.count ?? 0, sent: r.requests.sent, errors: r.errors + r.timeouts }
}

function verdict(stored: { rows: number; counter: number }, answered: number, sent: number): boolean {
  return stored.rows >= answered && stored.rows <= sent && stored.counter === stored.rows
}

async function sustained(b: Backend): Promise<Row> {
  const s = b.server!
  const before = await redirectsTotal(s)
  log(`${b.label}: ${SIZES.sustainClients} clients for ${SIZES.sustainSeconds} s`)
  const r = await load(s, SUSTAIN_PREFIX)
  const drainSecs = await drained(s)
  const recorded = (await redirectsTotal(s)) - before
  const exit = await stopKurz(b)
  const stored = await storedClicks(b, SUSTAIN_PREFIX)
  log(`${b.label}: ${r.answered} answered (${r.sent} sent, ${r.errors} errors), server recorded ${recorded}, stored ${stored.rows}, drained in ${drainSecs.toFixed(1)} s`)
  return {
    figure: `clicks stored vs redirects answered, ${SIZES.sustainClients} clients for ${SIZES.sustainSeconds} s, ${b.label}`,
    measured: `${(stored.rows / recorded).toFixed(4)} (${fmt(stored.rows)} stored, ${fmt(recorded)} answered by the server, ${fmt(r.answered)} of them received before the clients stopped; drained ${drainSecs.toFixed(0)} s after)`,
    target: 'exactly 1.0',
    ok: verdict(stored, r.answered, r.sent) && stored.rows === recorded && exit === 0,
  }
}

async function crashed(b: Backend): Promise<Row> {
  await startKurz(b)
  const s = b.server!
  const killAt = (SIZES.sustainSeconds * 1000) / 2
  log(`${b.label}: ${SIZES.sustainClients} clients, kill -9 after ${(killAt / 1000).toFixed(0)} s`)
  const r = await load(s, CRASH_PREFIX, killAt)
  b.server = null
  const left = spoolFiles(b.dataDir)
  const t0 = Date.now()
  const again = await startKurz(b)
  await drained(again)
  const replaySecs = (Date.now() - t0) / 1000
  const exit = await stopKurz(b)
  const stored = await storedClicks(b, CRASH_PREFIX)
  const leftAfter = spoolFiles(b.dataDir)
  log(`${b.label}: ${r.answered} answered before the kill (${r.sent} sent), ${left} spool segments left by it, stored ${stored.rows} after the restart (${leftAfter} segments left)`)
  return {
    figure: `clicks stored vs redirects answered, kill -9 mid-run, restart, ${b.label}`,
    measured: `${fmt(stored.rows)} stored, ${fmt(r.answered)} received + ${fmt(r.sent - r.answered)} cut off in flight (restart and replay ${replaySecs.toFixed(0)} s)`,
    target: 'received <= stored <= received + cut off',
    ok: verdict(stored, r.answered, r.sent) && exit === 0,
  }
}

/** Both rows for each backend; each server is running on entry and stopped on return. */
export async function durabilityRows(list: Backend[]): Promise<Row[]> {
  const rows: Row[] = []
  for (const b of list) rows.push(await sustained(b))
  for (const b of list) rows.push(await crashed(b))
  return rows
}
