/**
 * npx tsx bench/in-flight.ts – how long one account waits while another sends a burst of slow
 * requests. Account A (50,000 links) sends BENCH_BURST list requests sorted by clicks at once (each
 * reads all its links); account B, with a few links, lists them one request after another
 * meanwhile. Prints B's latencies and how long A's burst took. BENCH_NO_IN_FLIGHT=1 leaves out the
 * per-key limit (http/in-flight.ts) for comparison. PGlite in memory. Never run by the tests.
 */
import { performance } from 'node:perf_hooks'
import { sql } from 'drizzle-orm'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { createDb } from '../src/db/client.js'
import { InFlightLimit } from '../src/http/in-flight.js'
import { createUser } from '../src/resources/admin/users.js'

const BURST = Number(process.env.BENCH_BURST ?? 60)
if (process.env.BENCH_NO_IN_FLIGHT) InFlightLimit.prototype.register = () => {}

const handle = await createDb({ kind: 'pglite' })
const config = loadConfig({ PUBLIC_URL: 'http://kurz.bench', SECRET_KEY: 'bench-secret-key-that-is-at-least-32-bytes-long', LOG_LEVEL: 'warn', RATE_LIMIT_MAX: '100000', DATA_DIR: '/tmp/kurz-bench-in-flight' })
const app = await buildApp(config, { db: handle })
await app.ready()

const a = await createUser(app.db, app.keys, { email: 'a@example.com', username: 'a', password: 'bench-password', admin: false })
const b = await createUser(app.db, app.keys, { email: 'b@example.com', username: 'b', password: 'bench-password', admin: false })
await app.db.execute(sql`insert into links (user_id, alias, custom_alias, url, clicks)
  select ${a.user.id}, 'a' || g, true, 'https://example.com/p/' || g, g % 97 from generate_series(1, 50000) g`)
await app.db.execute(sql`insert into links (user_id, alias, custom_alias, url) select ${b.user.id}, 'b' || g, true, 'https://example.com/b/' || g from generate_series(1, 20) g`)
await app.db.execute(sql`analyze links`)

const get = (key: string, url: string) => app.inject({ method: 'GET', url, headers: { host: 'kurz.bench', authorization: `Bearer ${key}` } })
const one = await get(a.apiKey, '/api/urls?order=clicks&limit=50')
if (one.statusCode !== 200) throw new Error(one.body)

let burstDone = false
const t0 = performance.now()
const burst = Promise.all(Array.from({ length: BURST }, () => get(a.apiKey, '/api/urls?order=clicks&limit=50'))).then((rs) => {
  burstDone = true
  if (rs.some((r) => r.statusCode !== 200)) throw new Error(`burst: ${rs.find((r) => r.statusCode !== 200)!.body}`)
  return performance.now() - t0
})
const waits: number[] = []
while (!burstDone) {
  const s = performance.now()
  const r = await get(b.apiKey, '/api/urls')
  if (r.statusCode !== 200) throw new Error(r.body)
  waits.push(performance.now() - s)
}
const burstMs = await burst
waits.sort((x, y) => x - y)
const q = (p: number) => Math.round(waits[Math.min(waits.length - 1, Math.floor(p * waits.length))])
console.log(JSON.stringify({ limit: !process.env.BENCH_NO_IN_FLIGHT, burst: BURST, burstMs: Math.round(burstMs), bRequests: waits.length, bP50: q(0.5), bP95: q(0.95), bMax: q(1) }))
await app.close()
await handle.close()
