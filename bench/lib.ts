/**
 * What every bench module shares: the sizes of the run (from the environment, with BENCH_QUICK=1 a
 * smoke run of small numbers), the table row, statistics, and autocannon for timed runs (GET bursts: load.ts).
 */
import autocannon from 'autocannon'

const QUICK = ['1', 'true', 'yes'].includes((process.env.BENCH_QUICK ?? '').toLowerCase())

function num(name: string, full: number, quick: number): number {
  const raw = process.env[name]
  const v = raw === undefined || raw.trim() === '' ? (QUICK ? quick : full) : Number(raw)
  if (!Number.isFinite(v) || v < 0) throw new Error(`${name} must be a number, got ${raw}`)
  return v
}

/** The sizes of one run; every figure is named after the variable that changes it. */
export const SIZES = {
  quick: QUICK,
  rounds: Math.max(3, num('BENCH_ROUNDS', 3, 3)),
  /** redirects of one round of the cached single-link comparison */
  redirects: num('BENCH_REDIRECTS', 150_000, 4_000),
  /** links seeded for the random-alias rows */
  links: num('BENCH_LINKS', 100_000, 2_000),
  /** visits of one cold round (aliases never visited before) */
  coldVisits: num('BENCH_COLD_VISITS', 5_000, 150),
  /** visits of one warm round (aliases at random, after the warm-up pass over all of them) */
  warmVisits: num('BENCH_WARM_VISITS', 50_000, 1_500),
  /** clients and seconds of the sustained-load and kill -9 rows */
  sustainClients: num('BENCH_SUSTAIN_CLIENTS', 200, 200),
  sustainSeconds: num('BENCH_SUSTAIN_SECONDS', 60, 6),
  /** seconds a server may take to write what it buffered or spooled before it is counted */
  drainSeconds: num('BENCH_DRAIN_SECONDS', 600, 120),
  /** seconds of API writes while /healthz is probed */
  healthSeconds: num('BENCH_HEALTH_SECONDS', 30, 5),
  creates: num('BENCH_CREATES', 2_000, 150),
  statsRequests: num('BENCH_STATS_REQUESTS', 2_000, 60),
  /** requests of one round of the list rows (a search, a sort by clicks) */
  listRequests: num('BENCH_LIST_REQUESTS', 200, 30),
  seededClicks: num('BENCH_CLICKS', 1_000_000, 20_000),
  /** BENCH_PIN=0: no taskset (servers and load generator share every core) */
  pin: (process.env.BENCH_PIN ?? '1') !== '0',
}

export const ADMIN_EMAIL = 'bench@example.com'
export const ADMIN_KEY = 'benchAdminKey0123456789abcdefghij'
export const SECRET = 'bench-secret-key-that-is-at-least-32-bytes-long'

export interface Row {
  figure: string
  measured: string
  target: string
  ok: boolean | null
}

export const log = (...args: unknown[]) => console.error('·', ...args)
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export const median = (xs: number[]) => {
  if (xs.length === 0) return NaN
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

/** The q-quantile (0..1) by nearest rank. */
export function quantile(xs: number[], q: number): number {
  if (xs.length === 0) return NaN
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.max(0, Math.ceil(s.length * q) - 1)]
}

export const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : 'n/a')

/** A V8 profile's call frame as the profilers print it: `function file:line`, and its file or npm package. */
export function frameSource(f: { functionName: string; url: string; lineNumber: number }): { name: string; group: string } {
  const where = f.url.replace(/^file:\/\//, '').replace(process.cwd() + '/', '') || '(native)'
  return {
    name: `${f.functionName || '(anonymous)'} ${where}:${f.lineNumber + 1}`,
    group: where.includes('node_modules/') ? where.replace(/.*node_modules\/((?:@[^/]+\/)?[^/]+).*/, 'npm:$1') : where,
  }
}

/** Starts autocannon; `done` settles with its result, `instance.stop()` ends it early. */
export function cannonRun(opts: autocannon.Options): { instance: autocannon.Instance; done: Promise<autocannon.Result> } {
  let instance!: autocannon.Instance
  const done = new Promise<autocannon.Result>((resolve, reject) => {
    // autocannon only notices the last answer at its next sample: sample often, so the elapsed time is exact
    instance = autocannon({ sampleInt: 10, timeout: 30, ...opts }, (err, result) => (err ? reject(err) : resolve(result)))
  })
  return { instance, done }
}

export const cannon = (opts: autocannon.Options) => cannonRun(opts).done

export { burst, type Burst } from './load.js'

/** A JSON API call as the bench's admin; throws unless it answers 200 within a minute (a stuck server fails the run, never hangs it). */
export async function api(baseUrl: string, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(baseUrl + path, {
    method,
    headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  })
  const json = (await res.json()) as Record<string, unknown>
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`)
  return json
}
