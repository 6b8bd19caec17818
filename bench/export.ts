/**
 * npx tsx bench/export.ts – the CSV exports stay flat in memory: BENCH_EXPORT_ROWS (default
 * 1,000,000) links and as many click rows of one link are seeded, then both exports are read over
 * a real socket while the server's RSS is sampled. PGlite in memory unless BENCH_DATABASE_URL.
 * Never run by the tests.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { performance } from 'node:perf_hooks'
import { sql } from 'drizzle-orm'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { createDb } from '../src/db/client.js'
import { createUser } from '../src/resources/admin/users.js'

const ROWS = Number(process.env.BENCH_EXPORT_ROWS ?? 1_000_000)
const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MiB`

const handle = await createDb(process.env.BENCH_DATABASE_URL ? { kind: 'pg', url: process.env.BENCH_DATABASE_URL } : { kind: 'pglite' })
const config = loadConfig({ PUBLIC_URL: 'http://kurz.bench', SECRET_KEY: 'bench-secret-key-that-is-at-least-32-bytes-long', LOG_LEVEL: 'warn', DATA_DIR: '/tmp/kurz-bench-export' })
const app = await buildApp(config, { db: handle })
const { user, apiKey } = await createUser(app.db, app.keys, { email: 'bench@example.com', username: 'bench', password: 'bench-password', admin: true })

console.error(`· seeding ${ROWS} links and ${ROWS} click rows`)
for (let from = 0; from < ROWS; from += 100_000) {
  const to = Math.min(ROWS, from + 100_000)
  await app.db.execute(sql`insert into links (user_id, alias, url, title, clicks, created_at)
    select ${user.id}::int, 'b' || g, 'https://example.com/page/' || g || '?utm_source=bench', 'Title, "quoted" ' || g, g % 1000,
      now() - interval '1 year' + (g || ' seconds')::interval
    from generate_series(${from}::int, ${to - 1}::int) g`)
  await app.db.execute(sql`insert into clicks (link_id, source, created_at, country, referrer, browser, os, device, language, bot, visitor_hash)
    select (select min(id) from links), 'link', now() - (g || ' seconds')::interval, 'DE', 'news.example.org', 'Chrome', 'Windows', null, 'de', g % 10 = 0, md5(g::text)
    from generate_series(${from}::int, ${to - 1}::int) g`)
}
const first = ((await app.db.execute(sql`select min(id)::int as first from links`)) as unknown as { rows: { first: number }[] }).rows[0].first

await app.listen({ port: 0, host: '127.0.0.1' })
const port = (app.server.address() as AddressInfo).port

async function measure(path: string): Promise<void> {
  global.gc?.()
  const before = process.memoryUsage().rss
  const heapBefore = process.memoryUsage().heapUsed
  let peak = before
  let heapPeak = heapBefore
  const sampler = setInterval(() => {
    const m = process.memoryUsage()
    peak = Math.max(peak, m.rss)
    heapPeak = Math.max(heapPeak, m.heapUsed)
  }, 20)
  const t0 = performance.now()
  const { bytes, lines } = await new Promise<{ bytes: number; lines: number }>((done, fail) => {
    http.get({ port, path, headers: { authorization: `Bearer ${apiKey}` } }, (res) => {
      let bytes = 0
      let lines = 0
      res.on('data', (c: Buffer) => {
        bytes += c.length
        for (const b of c) if (b === 10) lines++
      })
      res.on('end', () => done({ bytes, lines }))
      res.on('error', fail)
    })
  })
  clearInterval(sampler)
  const s = (performance.now() - t0) / 1000
  console.log(`${path.padEnd(36)} ${lines - 1} rows, ${mb(bytes)} in ${s.toFixed(1)} s; RSS before ${mb(before)}, peak ${mb(peak)} (+${mb(peak - before)}); JS heap peak +${mb(heapPeak - heapBefore)}`)
}

await measure('/api/urls/export')
await measure(`/api/url/${first}/clicks/export`)
await app.close()
await handle.close()
