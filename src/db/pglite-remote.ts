import { existsSync } from 'node:fs'
import { setFlagsFromString } from 'node:v8'
import { Worker } from 'node:worker_threads'

/**
 * The main thread's end of the embedded database: PGlite runs in a worker thread
 * (pglite-worker.mjs), and this client gives drizzle what its PGlite driver calls, `query` and
 * `transaction`, as messages to that thread. One listener for every answer; calls wait by id.
 */

/** PGlite's Results, as its query() returns them */
export interface RemoteResult {
  rows: unknown[]
  fields: { name: string; dataTypeID: number }[]
  command?: string
  affectedRows?: number
  rowCount?: number
}

interface QueryOptions {
  rowMode?: 'object' | 'array'
}

interface WireError {
  message?: string
  [field: string]: unknown
}

type Answer = { id: number; value?: unknown; error?: WireError }

/** A worker's error rebuilt on this thread with every field it carried (name, stack, code, constraint, errno...). */
function rebuild(wire: WireError): Error {
  const { message, ...fields } = wire
  return Object.assign(new Error(message), fields)
}

/** Same message as PGlite's own after close(), which src/http/errors.ts reads as "database away". */
const closedError = (why?: string) => new Error(why ? `PGlite is closed: ${why}` : 'PGlite is closed')

/** The worker from src/ (tsx, vitest) or dist/ (the build copies it), beside this module. */
function workerFile(): URL {
  const url = new URL('./pglite-worker.mjs', import.meta.url)
  if (!existsSync(url)) throw new Error(`${url.pathname} is missing: run npm run build`)
  return url
}

/**
 * PGlite's WASM stays on V8's baseline compiler (Liftoff). Tiering hot functions up to TurboFan
 * kept about 70 MB more resident in an idle server (300-309 against 230 MB, DECISIONS §9 allows
 * 250) for about 10 % more link creates a second once warm, and compiling them cost as much CPU as
 * that saved over a short run (a test file, a CLI command). The flag is process-wide and read when a module
 * compiles, so it is set before the first worker starts; PGlite is the only WASM here.
 */
export const WASM_FLAGS = ['--liftoff-only']
let flagsSet = false

export interface RemoteOptions {
  /** data directory; none for an in-memory database */
  dir?: string
  conf: string[]
  /** a dump (dumpDataDir) to load into an empty directory */
  load?: Uint8Array
  /** the worker thread's nice value on Linux (the thread's alone); 0 or absent leaves it as is */
  nice?: number
}

export class PgliteRemote {
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>()
  private seq = 0
  private readonly planned = new Set<string>()
  private ending = false
  private down: Error | null = null
  /** settles once, when the worker stops without close(): the reason every call now fails with */
  readonly lost: Promise<Error>
  private notifyLost!: (err: Error) => void

  private constructor(private readonly worker: Worker) {
    this.lost = new Promise((resolve) => (this.notifyLost = resolve))
    let crash: unknown
    worker.on('message', (m: Answer) => this.answer(m))
    worker.on('error', (err) => (crash = err))
    worker.on('exit', (code) => {
      const why = this.ending ? undefined : `its worker thread stopped (exit code ${code}${crash ? `: ${(crash as Error).message}` : ''})`
      this.down = closedError(why)
      for (const p of this.pending.values()) p.reject(this.down)
      this.pending.clear()
      if (!this.ending) this.notifyLost(this.down)
    })
  }

  static async open(options: RemoteOptions): Promise<PgliteRemote> {
    if (!flagsSet) for (const flag of WASM_FLAGS) setFlagsFromString(flag)
    flagsSet = true
    // a small young generation: the worker's garbage is query results handed straight on
    const worker = new Worker(workerFile(), { workerData: options, resourceLimits: { maxYoungGenerationSizeMb: 8 } })
    const remote = new PgliteRemote(worker)
    try {
      await remote.call(0, undefined)
    } catch (err) {
      remote.ending = true
      await worker.terminate()
      throw err
    }
    return remote
  }

  /** Whether the worker still runs and close() was not called. */
  get alive(): boolean {
    return this.down === null && !this.ending
  }

  query(sql: string, params?: unknown[], options?: QueryOptions): Promise<RemoteResult> {
    return this.send({ op: 'q', sql, params, array: options?.rowMode === 'array', planned: this.planned.has(sql) }) as Promise<RemoteResult>
  }

  /** Runs this statement text, outside transactions, as a statement prepared once (see the worker's plannedQuery). */
  keepPlanned(sql: string): void {
    this.planned.add(sql)
  }

  /** Queries carrying this transaction's id run inside it; a throw here rolls it back and is rethrown. */
  async transaction<T>(fn: (tx: RemoteTransaction) => Promise<T>): Promise<T> {
    const id = (await this.send({ op: 'begin' })) as number
    let result: T
    try {
      result = await fn(new RemoteTransaction(this, id))
    } catch (err) {
      await this.send({ op: 'end', tx: id, commit: false }).catch(() => {})
      throw err
    }
    await this.send({ op: 'end', tx: id, commit: true })
    return result
  }

  /** PGlite's dump of its data directory (a tar, gzipped or not). */
  async dump(compression: 'gzip' | 'none' = 'gzip'): Promise<Uint8Array> {
    return (await this.send({ op: 'dump', compression })) as Uint8Array
  }

  /** Ends PGlite (its files are synced and closed), then the thread. */
  async close(): Promise<void> {
    if (this.ending) return
    try {
      if (this.down === null) await this.send({ op: 'close' })
    } finally {
      this.ending = true
      await this.worker.terminate()
    }
  }

  /** @internal a message with a fresh id */
  send(message: Record<string, unknown>): Promise<unknown> {
    if (this.down) return Promise.reject(this.down)
    if (this.ending) return Promise.reject(closedError())
    return this.call(++this.seq, message)
  }

  private call(id: number, message: Record<string, unknown> | undefined): Promise<unknown> {
    // the thread keeps the process alive only while an answer is awaited, as in-process PGlite did
    if (this.pending.size === 0) this.worker.ref()
    const answer = new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }))
    if (message) this.worker.postMessage({ id, ...message })
    return answer
  }

  private answer(m: Answer) {
    const p = this.pending.get(m.id)
    if (!p) return
    this.pending.delete(m.id)
    if (this.pending.size === 0) this.worker.unref()
    if (m.error) p.reject(rebuild(m.error))
    else p.resolve(m.value)
  }
}

export class RemoteTransaction {
  constructor(
    private readonly remote: PgliteRemote,
    private readonly id: number,
  ) {}

  query(sql: string, params?: unknown[], options?: QueryOptions): Promise<RemoteResult> {
    return this.remote.send({ op: 'q', tx: this.id, sql, params, array: options?.rowMode === 'array' }) as Promise<RemoteResult>
  }
}
