/**
 * npx tsx bench/webhook-flood.ts – what an account's click webhooks cost everyone's click writes when
 * its receivers never answer. One account has 50 `link.clicked` webhooks (the per-account cap) and
 * floods its own link; another account's link is visited beside it. The visits are answered first,
 * then the buffered clicks are written, timed; the delivery worker is kept idle, as if every receiver
 * hung. Run with WEBHOOK_CLICK_BACKLOG set very high to see the writer without the ceiling.
 * PGlite in memory unless BENCH_DATABASE_URL. Never run by the tests.
 */
import { performance } from 'node:perf_hooks'
import { count, eq } from 'drizzle-orm'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { createDb } from '../src/db/client.js'
import { webhookDeliveries } from '../src/db/schema/index.js'
import { createUser } from '../src/resources/admin/users.js'

const CLICKS = Number(process.env.BENCH_FLOOD_CLICKS ?? 20_000)
const HOOKS = Number(process.env.BENCH_FLOOD_HOOKS ?? 50)

const handle = await createDb(process.env.BENCH_DATABASE_URL ? { kind: 'pg', url: process.env.BENCH_DATABASE_URL } : { kind: 'pglite' })
const config = loadConfig({
  PUBLIC_URL: 'http://kurz.bench',
  SECRET_KEY: 'bench-secret-key-that-is-at-least-32-bytes-long',
  LOG_LEVEL: 'warn',
  ALLOW_PRIVATE_TARGETS: 'true',
  RATE_LIMIT_MAX: '100000',
  DATA_DIR: '/tmp/kurz-bench-webhook-flood',
  WEBHOOK_CLICK_BACKLOG: process.env.WEBHOOK_CLICK_BACKLOG,
})
const app = await buildApp(config, { db: handle, webhooks: { pollMs: 3_600_000 } })
await app.ready()

async function account(name: string, alias: string) {
  const { apiKey } = await createUser(app.db, app.keys, { email: `${name}@example.com`, username: name, password: 'bench-password', admin: true })
  const auth = { authorization: `Bearer ${apiKey}` }
  const add = await app.inject({ method: 'POST', url: '/api/url/add', headers: auth, payload: { url: 'https://example.com/landing', custom: alias } })
  if (add.statusCode !== 200) throw new Error(add.body)
  return auth
}
const flooder = await account('flooder', 'flooded')
await account('bystander', 'bystander')
for (let i = 0; i < HOOKS; i++) {
  const res = await app.inject({ method: 'POST', url: '/api/webhook/add', headers: flooder, payload: { url: `http://127.0.0.1:9/hook-${i}`, events: ['link.clicked'] } })
  if (res.statusCode !== 200) throw new Error(res.body)
}

const ua = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36'
const t0 = performance.now()
for (let i = 0; i < CLICKS; i++) {
  // one bystander visit for every ten of the flood
  const alias = i % 10 === 0 ? 'bystander' : 'flooded'
  const res = await app.inject({ method: 'GET', url: `/${alias}`, headers: { host: 'kurz.bench', 'user-agent': ua }, remoteAddress: `81.2.${(i >> 8) & 255}.${i & 255}` })
  if (res.statusCode !== 302) throw new Error(`visit answered ${res.statusCode}`)
}
const answered = performance.now() - t0
const t1 = performance.now()
await app.clicks.flush()
const written = performance.now() - t1

const [pending] = await app.db.select({ n: count() }).from(webhookDeliveries).where(eq(webhookDeliveries.status, 'pending'))
console.log(
  JSON.stringify({
    backlogCap: config.webhookClickBacklog,
    clicks: CLICKS,
    answeredMs: Math.round(answered),
    writeMs: Math.round(written),
    clicksWrittenPerSecond: Math.round(CLICKS / (written / 1000)),
    pendingDeliveries: pending.n,
    skippedClickEvents: app.clickEventBacklog.skipped,
    rssMB: Math.round(process.memoryUsage().rss / 2 ** 20),
  }),
)
await app.close()
await handle.close()
