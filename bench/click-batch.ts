/**
 * The click writer alone (issue 14): BENCH_BATCHES batches of BENCH_BATCH_SIZE (500) hits through writeClickBatch, on
 * PGlite and on Postgres (BENCH_DATABASE_URL / DATABASE_URL, else 127.0.0.1:5432), one link and
 * then spread over 1,000 links. Prints µs per click of wall time, of this process's CPU (PGlite runs
 * in it), and of the Postgres backends' CPU read from /proc. Not part of `npm run bench`:
 * `npx tsx bench/click-batch.ts`.
 */
import pg from 'pg'
import { sql } from 'drizzle-orm'
import { writeClickBatch } from '../src/clicks/batch.js'
import { enrich } from '../src/clicks/enrich.js'
import type { BufferedHit } from '../src/clicks/hit.js'
import { createDb, type DbHandle } from '../src/db/client.js'
import { runMigrations } from '../src/db/migrate.js'
import type { Visitor } from '../src/visit/visitor.js'
import { BackendSampler } from './proc.js'

const BATCHES = Number(process.env.BENCH_BATCHES ?? 50)
const SIZE = Number(process.env.BENCH_BATCH_SIZE ?? 500)
const KEY = Buffer.alloc(32, 7)
const UAS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148',
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
]
const REFS = ['', 'https://www.google.com/', 'https://t.co/x', 'https://news.example.org/a']

let serial = 0
function visitor(i: number): Visitor {
  const ua = UAS[i % UAS.length]
  return { ip: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, userAgent: ua, referrer: REFS[i % REFS.length], acceptLanguage: 'en', language: i % 3 ? 'en' : 'de', device: null, isBot: ua.includes('Googlebot'), isCrawler: false }
}

/** One batch: `spread` links, distinct visitors out of `visitors`, enriched before the clock starts. */
function batch(linkIds: number[], userId: number, visitors: number): BufferedHit[] {
  const now = Date.now()
  return Array.from({ length: SIZE }, (_, i) => {
    const n = serial++
    const h: BufferedHit = { linkId: linkIds[n % linkIds.length], userId, source: 'link', visitor: visitor(n % visitors), at: now - (i % 60) * 1000, human: true }
    h.enriched = enrich(KEY, h.visitor, h.at)
    return h
  })
}

async function seed(handle: DbHandle, links: number): Promise<{ userId: number; linkIds: number[] }> {
  const db = handle.db
  const u = await db.execute<{ id: number }>(sql.raw(`insert into users (email, username, password_hash, admin, plan_id) values ('b${links}@example.com', 'b${links}', 'x', false, (select id from plans where not free order by id limit 1)) returning id`))
  const userId = Number(u.rows[0].id)
  const r = await db.execute<{ id: number }>(sql.raw(`insert into links (user_id, alias, url) select ${userId}, 'cb${links}_' || g, 'https://example.com/' || g from generate_series(1, ${links}) g returning id`))
  return { userId, linkIds: r.rows.map((x) => Number(x.id)) }
}

async function measure(label: string, handle: DbHandle, dbName: string | null, links: number, visitors: number) {
  const { userId, linkIds } = await seed(handle, links)
  for (let i = 0; i < 3; i++) await writeClickBatch(handle.db, KEY, batch(linkIds, userId, visitors))
  const batches = Array.from({ length: BATCHES }, () => batch(linkIds, userId, visitors))
  const sampler = dbName ? new BackendSampler(dbName) : null
  sampler?.begin()
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  for (const b of batches) await writeClickBatch(handle.db, KEY, b)
  const wall = performance.now() - t0
  const cpu = process.cpuUsage(cpu0)
  const server = sampler?.end().total ?? null
  const clicks = BATCHES * SIZE
  const per = (us: number) => (us / clicks).toFixed(1)
  console.log(
    `${label.padEnd(9)} ${String(links).padStart(5)} link(s): wall ${per(wall * 1000)} µs/click, process CPU ${per(cpu.user + cpu.system)} µs/click` +
      (server === null ? '' : `, Postgres backends ${per(server * 1e6)} µs/click`),
  )
}

async function main() {
  const pgl = await createDb({ kind: 'pglite' })
  await runMigrations(pgl)
  await measure('PGlite', pgl, null, 1, 100)
  await measure('PGlite', pgl, null, 1000, 1_000_000)
  await pgl.close()

  const base = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
  const name = `kurz_cb_${process.pid}`
  const admin = new pg.Client({ connectionString: base })
  await admin.connect()
  await admin.query(`create database ${name}`)
  try {
    const url = new URL(base)
    url.pathname = `/${name}`
    const h = await createDb({ kind: 'pg', url: url.toString() })
    await runMigrations(h)
    await measure('Postgres', h, name, 1, 100)
    await measure('Postgres', h, name, 1000, 1_000_000)
    await h.close()
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`)
    await admin.end()
  }
}

await main()
