// The embedded database's thread: PGlite runs here so that its WASM work (a write, a migration, a
// vacuum) never blocks the event loop that serves redirects and health probes. pglite-remote.ts is
// the other end. Plain JavaScript on purpose: Node loads it as is under tsx/vitest (from src/) and
// from the build (tsconfig.build.json's allowJs copies it to dist/), so no TypeScript loader is
// needed inside the worker.
import { getPriority, setPriority } from 'node:os'
import { parentPort, workerData } from 'node:worker_threads'
import { parse, PGlite, protocol } from '@electric-sql/pglite'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'

if (!parentPort) throw new Error('pglite-worker.mjs runs as a worker thread only')
const port = parentPort

// drizzle passes these parsers on every query: timestamps, dates, intervals and their arrays stay
// the text Postgres sent (its mappers parse them). Functions cannot cross threads, so they live here.
const keep = (/** @type {string} */ value) => value
const PARSERS = Object.fromEntries([1114, 1184, 1186, 1082, 1231, 1115, 1185, 1187, 1182].map((oid) => [oid, keep]))

/**
 * An error as a plain object: structured clone keeps only an Error's message and stack. Every
 * field PGlite set (code, constraint, detail, table, column...; name and errno of a file system
 * error such as ENOSPC) crosses, never the query's parameters.
 */
function plain(err) {
  if (!err || typeof err !== 'object') return { message: String(err) }
  const out = { name: err.name, message: err.message, stack: err.stack }
  for (const [key, value] of Object.entries(err)) if (key !== 'params' && (value === null || typeof value !== 'object')) out[key] = value
  return out
}

const { dir, conf, load, nice } = workerData

// On Linux a nice value belongs to the thread that sets it (setpriority with pid 0): this thread
// yields its core to the event loop whenever both could run. Added to the process's own (lowering a
// priority needs no privilege). Elsewhere it would renice the whole process, so it is left alone.
if (nice && process.platform === 'linux') setPriority(Math.min(19, getPriority() + nice))
// One options object: PGlite reads its second argument only when the first is a directory, so an
// in-memory database (tests) would silently drop the configuration and the extension.
// pg_trgm (15 KB, shipped in the package) indexes link search (migration 0014).
const pg = new PGlite({ dataDir: dir, postgresqlconf: conf, extensions: { pg_trgm }, ...(load ? { loadDataDir: new Blob([load]) } : {}) })

/** open transactions by id: the PGlite transaction and how to end it */
const open = new Map()
let nextTx = 1
const ROLLBACK = Symbol('rollback')

/** Opens a transaction and answers with its id once BEGIN ran; it lasts until `end`. */
function begin() {
  return new Promise((started, failed) => {
    const id = nextTx++
    const entry = { tx: null, commit: () => {}, rollback: () => {}, done: null }
    entry.done = pg
      .transaction((tx) => {
        entry.tx = tx
        open.set(id, entry)
        started(id)
        return new Promise((commit, rollback) => Object.assign(entry, { commit, rollback: () => rollback(ROLLBACK) }))
      })
      .finally(() => open.delete(id))
    // before `started` this reports a failed BEGIN; afterwards `end` reports the outcome
    entry.done.catch(failed)
  })
}

async function end(id, commit) {
  const entry = open.get(id)
  if (!entry) throw new Error(`transaction ${id} is not open`)
  if (commit) entry.commit()
  else entry.rollback()
  try {
    await entry.done
  } catch (err) {
    if (err !== ROLLBACK) throw err
  }
}

/**
 * Query options, built once. PGlite merges a query's `parsers` into a copy of its whole parser
 * table on every query (a fifth of this thread's time on small queries), so the fixed set goes into
 * that table once, when it is there to take them.
 */
let OPTIONS = { array: { rowMode: 'array', parsers: PARSERS }, object: { rowMode: 'object', parsers: PARSERS } }
function shareParsers() {
  if (!pg.parsers || typeof pg.parsers !== 'object') return
  Object.assign(pg.parsers, PARSERS)
  OPTIONS = { array: { rowMode: 'array' }, object: { rowMode: 'object' } }
}

/**
 * A statement's parameter as an SQL literal, for EXECUTE (which takes no bind parameters); undefined
 * for any other kind of value, which then goes the ordinary way. E'' with backslashes and quotes
 * doubled reads the same whatever standard_conforming_strings says.
 */
function literal(v) {
  if (v === null || v === undefined) return 'NULL'
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : undefined
  if (typeof v === 'boolean') return v ? 'true' : 'false'
  if (typeof v === 'string' && !v.includes('\0')) return `E'${v.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`
  if (Array.isArray(v)) {
    // a one-dimensional array as its text form ('{"a","b"}'), which the parameter's cast reads
    const items = v.map(arrayItem)
    return items.includes(undefined) ? undefined : literal(`{${items.join(',')}}`)
  }
  return undefined
}

/** An array element in an array's text form: double-quoted, with backslashes and quotes escaped. */
function arrayItem(v) {
  if (v === null) return 'NULL'
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : undefined
  if (typeof v === 'string' && !v.includes('\0')) return `"${v.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`
  return undefined
}

/** statements kept planned (pglite-remote.ts keepPlanned): their text → the prepared statement's name */
const planned = new Map()

/**
 * PGlite runs every query as an unnamed statement, planned anew each time; for the redirect's
 * cache-miss load (forty columns and four subselects) planning took longer than running it. Those
 * texts are prepared once in this session and run by EXECUTE; Postgres keeps their plan.
 */
async function plannedQuery(m, options) {
  const values = (m.params ?? []).map(literal)
  if (values.includes(undefined)) return null
  let name = planned.get(m.sql)
  if (!name) {
    name = `kurz_planned_${planned.size + 1}`
    await pg.query(`prepare ${name} as ${m.sql}`)
    planned.set(m.sql, name)
  }
  return onePass(values.length ? `execute ${name}(${values.join(', ')})` : `execute ${name}`, [], options, false)
}

/** parameter type oids by statement text: the one describe each text needs (see onePass) */
const paramTypes = new Map()
const PARAM_TYPES_MAX = 5_000
const { serialize } = protocol

function joined(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

/**
 * What PGlite's query() does, in one pass through its Postgres loop. query() hands the extended
 * protocol's messages over one at a time (parse, describe, bind, describe, execute, sync: six passes
 * and their JavaScript, about 100 µs of this thread for a `select 1`); sent together they cost about
 * 65. A value goes to text exactly as query() would turn it, by its parameter's type (a json
 * parameter gets JSON, an array its array text): those types come from one describe the first time
 * a text is run, which depends only on the text (the schema changes only in migrations, before
 * anything is served). Inside a transaction its lock is already held, and nothing is synced to disk
 * until it ends, as with query().
 */
async function onePass(text, params, options, inTx) {
  const run = async () => {
    try {
      let oids = params.length ? paramTypes.get(text) : []
      if (!oids) {
        const described = await pg.execProtocolStream(joined([serialize.parse({ text }), serialize.describe({ type: 'S' }), serialize.sync()]), { syncToFs: false })
        oids = parse.parseDescribeStatementResults(described)
        if (paramTypes.size >= PARAM_TYPES_MAX) paramTypes.clear()
        paramTypes.set(text, oids)
      }
      const values = params.map((v, i) => (v === null || v === undefined ? null : pg.serializers[oids[i]] ? pg.serializers[oids[i]](v) : v.toString()))
      const messages = await pg.execProtocolStream(
        joined([serialize.parse({ text }), serialize.bind({ values }), serialize.describe({ type: 'P' }), serialize.execute({}), serialize.sync()]),
        { syncToFs: !inTx },
      )
      return parse.parseResults(messages, pg.parsers, options)[0]
    } catch (err) {
      // as query() marks its errors (the parameters stay here: plain() leaves them out anyway)
      if (err && typeof err === 'object' && 'severity' in err) err.query = text
      throw err
    }
  }
  return inTx ? pg.runExclusive(run) : pg._runExclusiveTransaction(() => pg.runExclusive(run))
}

async function query(m) {
  const tx = m.tx ? open.get(m.tx)?.tx : null
  if (m.tx && !tx) throw new Error(`transaction ${m.tx} is not open`)
  // as PGlite's own transaction object refuses once it committed or rolled back
  if (tx?.closed) throw new Error('Transaction is closed')
  const options = m.array ? OPTIONS.array : OPTIONS.object
  const r = (m.planned && !m.tx && (await plannedQuery(m, options))) || (await onePass(m.sql, m.params ?? [], options, Boolean(tx)))
  const fields = r.fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID }))
  return { rows: r.rows, fields, command: r.command, affectedRows: r.affectedRows, rowCount: r.rowCount }
}

async function run(m) {
  switch (m.op) {
    case 'q':
      return [await query(m)]
    case 'begin':
      return [await begin()]
    case 'end':
      return [await end(m.tx, m.commit)]
    case 'dump': {
      const bytes = new Uint8Array(await (await pg.dumpDataDir(m.compression)).arrayBuffer())
      return [bytes, [bytes.buffer]]
    }
    case 'close':
      return [await pg.close()]
    default:
      throw new Error(`unknown operation ${m.op}`)
  }
}

port.on('message', (m) => {
  run(m).then(
    ([value, transfer]) => port.postMessage({ id: m.id, value }, transfer ?? []),
    (err) => port.postMessage({ id: m.id, error: plain(err) }),
  )
})

// id 0 answers the opening: ready, or why PGlite could not open the directory
pg.waitReady.then(
  () => {
    shareParsers()
    port.postMessage({ id: 0, value: true })
  },
  (err) => port.postMessage({ id: 0, error: plain(err) }),
)
