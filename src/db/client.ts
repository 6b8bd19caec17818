import { execFile } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { drizzle as drizzlePg, type NodePgDatabase } from 'drizzle-orm/node-postgres'
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
import pg from 'pg'
import { PgliteRemote, WASM_FLAGS } from './pglite-remote.js'
import * as schema from './schema/index.js'

export type Schema = typeof schema
/** Both drivers expose the same query builder; typed once so every repo takes one `Db`. */
export type Db = NodePgDatabase<Schema>
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0]

/** Rows of a raw statement (`db.execute`): both drivers answer `{ rows }`. */
export const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows

/** Rows a raw statement changed: `rowCount` on node-postgres, `affectedRows` on PGlite. */
export function affected(result: unknown): number {
  const r = result as { rowCount?: number | null; affectedRows?: number }
  return r.rowCount ?? r.affectedRows ?? 0
}

export interface DbHandle {
  db: Db
  /**
   * The click writer's database (clicks/recorder.ts): on Postgres its own connection, kept while
   * idle, so every batch runs on a backend that has compiled and planned write_click_batch() (a
   * fresh backend's first batch of 2,000 clicks cost ~60 ms of its CPU against ~10 ms, its next
   * five re-planned it), and batches never wait for a pool slot behind API queries nor hold one
   * from them. On PGlite, its one connection: `db`.
   */
  writer: Db
  kind: 'pg' | 'pglite'
  /** true once the database has answered a trivial query (for /readyz) */
  ping(): Promise<boolean>
  close(): Promise<void>
  /**
   * PGlite only: settles when its worker thread stopped without close() (every call fails from
   * then on); the server logs it and exits so that a supervisor restarts it.
   */
  lost?: Promise<Error>
}

/** How drizzle names columns on both drivers (`prepared.ts` builds statements the same way). */
export const CASING = 'snake_case'

export type DbConfig = { kind: 'pg'; url: string } | { kind: 'pglite'; dir?: string }

/**
 * PGlite runs in this process (in a worker thread), so its memory is ours (DECISIONS §9, idle RSS < 250 MB): Postgres'
 * default 128 MB of shared buffers is far more than one embedded instance needs. Its one connection
 * runs one statement at a time, so an ANALYZE (db/maintenance.ts) holds up cache misses and click
 * batches for as long as it takes, which grows with the statistics target: at Postgres' default of 100
 * it samples 30,000 rows (0.6 s for 100,000 links on a slow machine), at 30 it samples 9,000 (0.2 s).
 * The plans Kurz relies on are index lookups, which the smaller sample serves as well.
 */
export const PGLITE_CONF = ['shared_buffers=16MB', 'max_connections=10', 'default_statistics_target=30']

/**
 * The nice value of PGlite's worker thread. On one core (a small VPS, or the bench's pinned server)
 * the worker's batches otherwise take turns with the event loop, which stretches the loop's turns;
 * libuv accepts one new connection a turn, so new connections (a health probe among them) queued
 * for seconds behind a burst of clients. At 10 the worker gets about a tenth of a core the event
 * loop wants, and all of one it leaves idle: redirects and probes first, click writes (spooled, so
 * never lost) and cache misses in what is left. On two or more cores it changes nothing.
 */
const PGLITE_WORKER_NICE = 10

/**
 * initdb inside PGlite leaves about 600 MB allocated that the process never gets back, so a fresh
 * data directory is initialised by a short-lived child process; this one then only opens it.
 */
async function initPgliteDir(dir: string): Promise<void> {
  const url = import.meta.resolve('@electric-sql/pglite')
  const script = `const { PGlite } = await import(${JSON.stringify(url)}); const db = new PGlite(${JSON.stringify(dir)}); await db.waitReady; await db.close()`
  try {
    await promisify(execFile)(process.execPath, [...WASM_FLAGS, '--input-type=module', '-e', script], { timeout: 120_000 })
  } catch {
    // PGlite initialises the directory itself below; it only costs memory
  }
}

/**
 * Hot statements (the redirect's cache-miss loads) are planned once on the embedded database, where
 * planning them cost more than running them. Its driver takes no statement names, so this goes
 * through the worker (PREPARE / EXECUTE); on Postgres the loads are named statements instead.
 */
export function keepPlanned(db: Db, query: { sql: string }): void {
  pgliteOf(db)?.keepPlanned(query.sql)
}

/** Whether this drizzle instance talks to the embedded database. */
export function isPglite(db: Db): boolean {
  return pgliteOf(db) !== undefined
}

/** The embedded database's client behind a drizzle instance; undefined for Postgres (or a transaction). */
function pgliteOf(db: Db): PgliteRemote | undefined {
  const client = (db as unknown as { $client?: unknown }).$client
  return client instanceof PgliteRemote ? client : undefined
}

/** A Postgres pool whose clients losing their server never crash the process. */
function pgPool(url: string, o: Pick<pg.PoolConfig, 'max' | 'min' | 'idleTimeoutMillis'>): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, connectionTimeoutMillis: 5_000, ...o })
  // an idle client losing its server must not crash the process; queries report their own errors
  pool.on('error', () => {})
  // A checked-out client whose server goes away (restart, failover) emits 'error' with no pool
  // listener attached, which would crash the process; its query already rejects, so that is enough.
  pool.on('connect', (client) => client.on('error', () => {}))
  return pool
}

export async function createDb(config: DbConfig): Promise<DbHandle> {
  if (config.kind === 'pg') {
    // min 2: past a quiet spell, a cache miss or an API read still finds a backend that has its
    // catalogue and hot statements loaded (a new one is a connection start and their first parse)
    const pool = pgPool(config.url, { max: 10, min: 2 })
    // idleTimeoutMillis 0: never closed for idleness; one that fails is dropped and the next batch opens another
    const writerPool = pgPool(config.url, { max: 1, idleTimeoutMillis: 0 })
    const db = drizzlePg(pool, { schema, casing: CASING })
    return {
      db,
      writer: drizzlePg(writerPool, { schema, casing: CASING }),
      kind: 'pg',
      ping: async () => {
        try {
          await pool.query('select 1')
          return true
        } catch {
          return false
        }
      },
      close: async () => {
        await Promise.all([pool.end(), writerPool.end()])
      },
    }
  }
  if (config.dir) {
    mkdirSync(config.dir, { recursive: true })
    if (!existsSync(join(config.dir, 'PG_VERSION'))) await initPgliteDir(config.dir)
  }
  // PGlite runs in a worker thread (pglite-remote.ts): its writes never block this event loop, and
  // on a core both share it runs only when the event loop has nothing to do (PGLITE_WORKER_NICE)
  const client = await PgliteRemote.open({ dir: config.dir, conf: PGLITE_CONF, nice: PGLITE_WORKER_NICE })
  const db = drizzlePglite(client as never, { schema, casing: CASING }) as unknown as Db
  return {
    db,
    writer: db,
    kind: 'pglite',
    lost: client.lost,
    ping: async () => {
      if (!client.alive) return false
      try {
        await client.query('select 1')
        return true
      } catch {
        return false
      }
    },
    close: () => client.close(),
  }
}
