/**
 * npx tsx bench/webhooks.ts – how many webhook deliveries a second one instance sustains, and what
 * `link.clicked` adds to a click batch. A link is visited BENCH_WEBHOOK_CLICKS times (default
 * 20,000: two minutes of a link visited 10,000 times a minute) with a link.clicked webhook to a
 * local receiver answering 200 at once; the clicks are written (the batches queue one outbox row
 * per human click), then the worker sends them all. PGlite in memory unless BENCH_DATABASE_URL.
 * Never run by the tests.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { performance } from 'node:perf_hooks'
import { count } from 'drizzle-orm'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { createDb } from '../src/db/client.js'
import { webhookDeliveries } from '../src/db/schema/index.js'
import { createUser } from '../src/resources/admin/users.js'

const CLICKS = Number(process.env.BENCH_WEBHOOK_CLICKS ?? 20_000)
const CONCURRENCY = Number(process.env.BENCH_WEBHOOK_CONCURRENCY ?? 16)

let received = 0
const receiver = http.createServer((req, res) => {
  req.resume()
  req.on('end', () => {
    received++
    res.writeHead(200).end()
  })
})
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r))
const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`

const handle = await createDb(process.env.BENCH_DATABASE_URL ? { kind: 'pg', url: process.env.BENCH_DATABASE_URL } : { kind: 'pglite' })
const config = loadConfig({ PUBLIC_URL: 'http://kurz.bench', SECRET_KEY: 'bench-secret-key-that-is-at-least-32-bytes-long', LOG_LEVEL: 'warn', ALLOW_PRIVATE_TARGETS: 'true', DATA_DIR: '/tmp/kurz-bench-webhooks' })
// the worker is driven by hand below, so its timer stays out of the way
const app = await buildApp(config, { db: handle, webhooks: { concurrency: CONCURRENCY, pollMs: 3_600_000 } })
await app.ready()

const { user, apiKey } = await createUser(app.db, app.keys, { email: 'bench@example.com', username: 'bench', password: 'bench-password', admin: true })
const auth = { authorization: `Bearer ${apiKey}` }
const add = await app.inject({ method: 'POST', url: '/api/url/add', headers: auth, payload: { url: 'https://example.com/landing', custom: 'hot-link' } })
if (add.statusCode !== 200) throw new Error(add.body)

async function visitAll(n: number): Promise<number> {
  for (let i = 0; i < n; i++) {
    await app.inject({
      method: 'GET',
      url: '/hot-link',
      headers: { host: 'kurz.bench', 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36', referer: 'https://news.example.org/' },
      remoteAddress: `81.2.${(i >> 8) & 255}.${i & 255}`,
    })
  }
  const t0 = performance.now()
  await app.clicks.flush()
  return performance.now() - t0
}

// the click write without a webhook, then with one: the difference is the outbox's share
const plainFlush = await visitAll(CLICKS)
const hook = await app.inject({ method: 'POST', url: '/api/webhook/add', headers: auth, payload: { url: hookUrl, events: ['link.clicked'] } })
if (hook.statusCode !== 200) throw new Error(hook.body)
const hookedFlush = await visitAll(CLICKS)
const [{ queued }] = await app.db.select({ queued: count() }).from(webhookDeliveries)

const t0 = performance.now()
await app.webhooks.drain()
const seconds = (performance.now() - t0) / 1000

console.log(`clicks per run                  ${CLICKS}`)
console.log(`click batches, no webhook       ${plainFlush.toFixed(0)} ms to write ${CLICKS} buffered clicks`)
console.log(`click batches, link.clicked     ${hookedFlush.toFixed(0)} ms (${queued} outbox rows queued in the same transactions)`)
console.log(`deliveries sent                 ${received} in ${seconds.toFixed(1)} s = ${(received / seconds).toFixed(0)} deliveries/s (concurrency ${CONCURRENCY}, ${handle.kind}, user ${user.id})`)
console.log(`a link visited 10,000 times a minute needs ${(10_000 / 60).toFixed(0)} deliveries/s`)

await app.close()
await handle.close()
receiver.close()
