/**
 * The servers a bench run compares, each its own process on loopback as in production: starting
 * (pinned to one core), stopping, the throwaway Postgres database, and waiting for a Kurz to have
 * written every click it took.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServer, type AddressInfo } from 'node:net'
import { promisify } from 'node:util'
import pg from 'pg'
import { ADMIN_EMAIL, ADMIN_KEY, SECRET, SIZES, log, sleep } from './lib.js'

export interface Server {
  name: string
  child: ChildProcess
  port: number
  url: string
}

/** One Kurz setup: where its data lives, so it can be stopped, seeded and started again on the same data. */
export interface Backend {
  label: 'PGlite' | 'Postgres'
  dataDir: string
  /** the throwaway database (Postgres only) */
  pgUrl?: string
  dbName?: string
  server: Server | null
}

/** Pinned core numbers: the servers on the last core, the load generator (this process) on the others. */
function cores(): { server: string; load: string } | null {
  const n = availableParallelism()
  if (!SIZES.pin || n < 2) return null
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' })
  } catch {
    return null
  }
  return { server: String(n - 1), load: n === 2 ? '0' : `0-${n - 2}` }
}

const pinning = cores()

/** Pins this process (the load generator) away from the servers' core; says what it did. */
export function pinLoadGenerator(): string {
  if (!pinning) return SIZES.pin ? 'not pinned (taskset missing or one core)' : 'not pinned (BENCH_PIN=0)'
  execFileSync('taskset', ['-a', '-cp', pinning.load, String(process.pid)], { stdio: 'ignore' })
  return `servers on core ${pinning.server}, load generator on ${pinning.load}`
}

/** A free loopback port (asked of the kernel, then released for the server to take). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as AddressInfo).port
      srv.close(() => resolve(port))
    })
  })
}

/** Starts a server process on a free port, pinned, and resolves once it answers. */
export async function start(name: string, args: string[], env: Record<string, string> = {}): Promise<Server> {
  const port = await freePort()
  const [cmd, argv] = pinning ? ['taskset', ['-c', pinning.server, process.execPath, ...args]] : [process.execPath, args]
  const child = spawn(cmd, argv, {
    cwd: process.cwd(),
    env: { ...process.env, HOST: '127.0.0.1', ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const url = `http://127.0.0.1:${port}`
  for (let i = 0; i < 1200; i++) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`)
    try {
      await fetch(`${url}/healthz`, { redirect: 'manual', signal: AbortSignal.timeout(5_000) })
      return { name, child, port, url }
    } catch {
      await sleep(100)
    }
  }
  child.kill('SIGKILL')
  throw new Error(`${name} did not start`)
}

/** Stops a server; resolves with its exit code (null when killed by a signal). */
export function stop(s: Server, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  if (s.child.exitCode !== null || s.child.signalCode !== null) return Promise.resolve(s.child.exitCode)
  return new Promise((resolve) => {
    s.child.once('exit', (code) => resolve(code))
    s.child.kill(signal)
  })
}

export function kurzEnv(extra: Record<string, string>): Record<string, string> {
  return {
    SECRET_KEY: SECRET,
    ADMIN_EMAIL,
    ADMIN_API_KEY: ADMIN_KEY,
    RATE_LIMIT_MAX: '1000000000',
    V1_RATE_LIMIT_MAX: '1000000000',
    CREATE_LIMIT_PER_HOUR: '0',
    // the seeded links point at example.com: no background checker fetching them during a run
    HEALTH_CHECK_INTERVAL: '0',
    // at the default (info) every API request is logged (visits are not, http/logging.ts), so the
    // create rows would measure the log pipe; BENCH_LOG_LEVEL=info measures it
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    ...extra,
  }
}

/**
 * Kurz as `npm start` runs it (the compiled build, no TypeScript loader) on a backend's data;
 * `flags` go to node (a profiler's), `extra` to the environment.
 */
export async function startKurz(b: Backend, flags: string[] = [], extra: Record<string, string> = {}): Promise<Server> {
  const env: Record<string, string> = { DATA_DIR: b.dataDir, ...extra }
  if (b.pgUrl) env.DATABASE_URL = b.pgUrl
  b.server = await start(`kurz-${b.label.toLowerCase()}${flags.length ? '-profiled' : ''}`, [...flags, 'dist/src/server.js'], kurzEnv(env))
  return b.server
}

export async function stopKurz(b: Backend, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  if (!b.server) return null
  const code = await stop(b.server, signal)
  b.server = null
  return code
}

export async function build(): Promise<void> {
  log('building (npm run build)')
  await promisify(execFile)(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json']).catch((err: { stdout?: string }) => {
    // type errors in files being written elsewhere do not stop the emit
    if (!existsSync('dist/src/server.js')) throw err
    log('tsc reported errors; using what it emitted')
  })
}

/** BENCH_DATABASE_URL, DATABASE_URL, or a Postgres on 127.0.0.1:5432 if one answers. */
async function postgresUrl(): Promise<string | null> {
  const candidates = [process.env.BENCH_DATABASE_URL, process.env.DATABASE_URL, 'postgres://postgres@127.0.0.1:5432/postgres'].filter(Boolean) as string[]
  for (const url of candidates) {
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 })
    try {
      await c.connect()
      await c.query('select 1')
      return url
    } catch {
      /* try the next */
    } finally {
      await c.end().catch(() => {})
    }
  }
  return null
}

/** The two backends, each on fresh data; `cleanup` gets what removes them. */
export async function backends(cleanup: (() => unknown)[]): Promise<Backend[]> {
  const dir = () => {
    const d = mkdtempSync(join(tmpdir(), 'kurz-bench-'))
    cleanup.push(() => rmSync(d, { recursive: true, force: true }))
    return d
  }
  const list: Backend[] = [{ label: 'PGlite', dataDir: dir(), server: null }]
  const base = await postgresUrl()
  if (!base) {
    log('no Postgres reachable: Postgres figures skipped')
    return list
  }
  const name = `kurz_bench_${Date.now().toString(36)}`
  const admin = new pg.Client({ connectionString: base })
  await admin.connect()
  await admin.query(`create database ${name}`)
  await admin.end()
  cleanup.push(async () => {
    const c = new pg.Client({ connectionString: base })
    await c.connect()
    await c.query(`drop database if exists ${name} with (force)`)
    await c.end()
  })
  const u = new URL(base)
  u.pathname = `/${name}`
  list.push({ label: 'Postgres', dataDir: dir(), pgUrl: u.toString(), dbName: name, server: null })
  return list
}

const AUTOVACUUM_WORKERS = `select count(*)::int as n from pg_stat_activity where backend_type = 'autovacuum worker'`

/**
 * Quiets the Postgres server before a timed row: with `vacuum`, vacuums and analyses the bench
 * database now (the rows before may have left millions of fresh click rows, whose autovacuum
 * would otherwise start in the middle of the next row, on one of the two cores it uses); then
 * waits (at most two minutes) until no autovacuum worker runs. Says in the log what it did.
 */
export async function postgresSettled(b: Backend | undefined, o: { vacuum: boolean }): Promise<void> {
  if (!b?.pgUrl) return
  const c = new pg.Client({ connectionString: b.pgUrl })
  await c.connect()
  try {
    const t0 = Date.now()
    if (o.vacuum) {
      await c.query('vacuum (analyze)')
      log(`vacuumed the Postgres bench database in ${((Date.now() - t0) / 1000).toFixed(1)} s`)
    }
    const t1 = Date.now()
    let seen = 0
    for (;;) {
      const { rows } = await c.query<{ n: number }>(AUTOVACUUM_WORKERS)
      if (rows[0].n === 0 || Date.now() - t1 > 120_000) break
      seen = Math.max(seen, rows[0].n)
      await sleep(500)
    }
    if (seen > 0) log(`waited ${((Date.now() - t1) / 1000).toFixed(1)} s for ${seen} autovacuum worker(s) to finish`)
  } finally {
    await c.end()
  }
}

/** Counts the autovacuum workers once a second until stopped; resolves with the most seen at once. */
export function watchAutovacuum(b: Backend | undefined): { stop(): Promise<number> } {
  if (!b?.pgUrl) return { stop: async () => 0 }
  let most = 0
  let on = true
  const c = new pg.Client({ connectionString: b.pgUrl })
  const done = (async () => {
    await c.connect()
    try {
      while (on) {
        most = Math.max(most, (await c.query<{ n: number }>(AUTOVACUUM_WORKERS)).rows[0].n)
        await sleep(1_000)
      }
    } finally {
      await c.end()
    }
  })()
  return {
    stop: async () => {
      on = false
      await done.catch(() => {})
      return most
    },
  }
}

/** A server's GET /metrics: each metric's value, summed over its labels. */
export async function scrapeMetrics(s: Server): Promise<Record<string, number>> {
  const text = await (await fetch(`${s.url}/metrics`, { signal: AbortSignal.timeout(60_000) })).text()
  const out: Record<string, number> = {}
  for (const m of text.matchAll(/^(kurz_\w+)(?:\{[^}]*\})? (\S+)$/gm)) out[m[1]] = (out[m[1]] ?? 0) + Number(m[2])
  return out
}

/**
 * Waits until the server has written every click it took (nothing buffered, nothing waiting on
 * disk); resolves with the seconds it took, or rejects after BENCH_DRAIN_SECONDS.
 */
export async function drained(s: Server): Promise<number> {
  const t0 = Date.now()
  for (;;) {
    const c = await scrapeMetrics(s)
    const settled = (c.kurz_clicks_written_total ?? 0) + (c.kurz_clicks_discarded_total ?? 0) + (c.kurz_clicks_dropped_total ?? 0)
    if ((c.kurz_clicks_buffered ?? 0) === 0 && (c.kurz_clicks_spool_backlog ?? 0) === 0 && settled >= (c.kurz_clicks_recorded_total ?? 0)) return (Date.now() - t0) / 1000
    if (Date.now() - t0 > SIZES.drainSeconds * 1000) throw new Error(`${s.name}: clicks still buffered after ${SIZES.drainSeconds} s (${JSON.stringify(c)})`)
    await sleep(100)
  }
}

/** Spool segments left in a data directory (a clean stop leaves none with records). */
export function spoolFiles(dataDir: string): number {
  const dir = join(dataDir, 'spool')
  if (!existsSync(dir)) return 0
  return readdirSync(dir).filter((f) => f.endsWith('.spool') && readFileSync(join(dir, f), 'utf8').trim() !== '').length
}
