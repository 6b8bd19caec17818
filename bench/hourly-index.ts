/**
 * What migration 0018's BRIN index on click_hourly(hour) costs the click writer on PGlite, where
 * every first click of a link in an hour inserts a row (and an index entry). Cold clicks only: each
 * batch of BENCH_BATCH_SIZE (200) visits links never clicked before, through writeClickBatch, in
 * rounds alternating with and without the index (BENCH_ROUNDS, 16; 50 batches each). Prints this
 * process's CPU per click of each round. Not part of `npm run bench`: `npx tsx bench/hourly-index.ts`.
 */
import { sql } from 'drizzle-orm'
import { writeClickBatch } from '../src/clicks/batch.js'
import { enrich } from '../src/clicks/enrich.js'
import type { BufferedHit } from '../src/clicks/hit.js'
import { createDb } from '../src/db/client.js'
import { runMigrations } from '../src/db/migrate.js'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 16)
const SIZE = Number(process.env.BENCH_BATCH_SIZE ?? 200)
const BATCHES = 50
const KEY = Buffer.alloc(32, 7)
const UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36'

const handle = await createDb({ kind: 'pglite' })
await runMigrations(handle)
const db = handle.db
const user = await db.execute<{ id: number }>(
  sql.raw(`insert into users (email, username, password_hash, admin, plan_id) values ('hi@example.com', 'hi', 'x', false, (select id from plans where not free order by id limit 1)) returning id`),
)
const userId = Number(user.rows[0].id)
const made = await db.execute<{ id: number }>(
  sql.raw(`insert into links (user_id, alias, url) select ${userId}, 'hi_' || g, 'https://example.com/' || g from generate_series(1, ${ROUNDS * BATCHES * SIZE}) g returning id`),
)
const linkIds = made.rows.map((r) => Number(r.id))

let next = 0
/** One batch of first clicks: each hit a link not clicked before, by a visitor not seen before. */
function coldBatch(): BufferedHit[] {
  const now = Date.now()
  return Array.from({ length: SIZE }, () => {
    const n = next++
    const visitor = { ip: `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`, userAgent: UA, referrer: '', acceptLanguage: 'en', language: 'en', device: null, isBot: false, isCrawler: false }
    const hit: BufferedHit = { linkId: linkIds[n], userId, source: 'link', visitor, at: now, human: true }
    hit.enriched = enrich(KEY, visitor, now)
    return hit
  })
}

const perClick: Record<'with' | 'without', number[]> = { with: [], without: [] }
for (let round = 0; round < ROUNDS; round++) {
  const indexed = round % 2 === 0
  await db.execute(sql.raw(indexed ? 'create index if not exists click_hourly_hour_brin on click_hourly using brin (hour)' : 'drop index if exists click_hourly_hour_brin'))
  const batches = Array.from({ length: BATCHES }, coldBatch)
  const cpu0 = process.cpuUsage()
  for (const b of batches) await writeClickBatch(db, KEY, b)
  const cpu = process.cpuUsage(cpu0)
  perClick[indexed ? 'with' : 'without'].push((cpu.user + cpu.system) / (BATCHES * SIZE))
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
for (const [label, xs] of Object.entries(perClick)) {
  console.log(`${label.padEnd(7)} the index: median ${median(xs).toFixed(1)} µs/click, rounds ${xs.map((x) => x.toFixed(0)).join(', ')}`)
}
await handle.close()
