import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDb, type DbHandle } from '../../src/db/client.js'
import { runMigrations } from '../../src/db/migrate.js'
import { maintainTables } from '../../src/db/maintenance.js'

/*
 * PGlite has no autovacuum (src/db/maintenance.ts): the job's pass vacuums and analyses the tables
 * autovacuum's thresholds pick, so counter updates reuse the space of their old row versions
 * instead of growing the table, and a table nothing changed costs the pass nothing.
 */
describe('embedded database maintenance', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kurz-maintenance-'))
  let handle: DbHandle
  const rows = async <T>(q: ReturnType<typeof sql>) => (await handle.db.execute(q)).rows as T[]
  const size = async () => Number((await rows<{ n: string }>(sql`select pg_relation_size('counters') as n`))[0].n)
  const bump = async (times: number, where = sql`true`) => {
    for (let i = 0; i < times; i++) await handle.db.execute(sql`update counters set n = n + 1 where ${where}`)
  }
  const names = (work: { name: string }[]) => work.map((t) => t.name)

  beforeAll(async () => {
    handle = await createDb({ kind: 'pglite', dir })
    await runMigrations(handle)
    await handle.db.execute(sql`create table counters (id int primary key, n int not null)`)
    await handle.db.execute(sql`insert into counters select g, 0 from generate_series(1, 1000) g`)
  })
  afterAll(async () => {
    await handle.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('vacuums and analyses every table never vacuumed, the click tables and links included', async () => {
    const done = await maintainTables(handle.db, { firstPass: true })
    expect(names(done)).toEqual(expect.arrayContaining(['links', 'click_rollups', 'click_totals', 'click_hourly', 'qr_codes', 'counters']))
    expect(done.every((t) => t.vacuum && t.analyze)).toBe(true)
    const seen = await rows<{ name: string; vacuumed: boolean; analysed: boolean }>(
      sql`select relname as name, last_vacuum is not null as vacuumed, last_analyze is not null as analysed from pg_stat_user_tables where relname in ('links', 'counters')`,
    )
    expect(seen).toEqual(expect.arrayContaining([
      { name: 'links', vacuumed: true, analysed: true },
      { name: 'counters', vacuumed: true, analysed: true },
    ]))
    const [counters] = await rows<{ reltuples: number }>(sql`select reltuples from pg_class where relname = 'counters'`)
    expect(counters.reltuples).toBe(1000)
    // PGlite's smaller statistics target (db/client.ts PGLITE_CONF): 30 buckets, not Postgres' 100
    const [histogram] = await rows<{ bounds: number }>(sql`select array_length(histogram_bounds::text::int[], 1) as bounds from pg_stats where tablename = 'counters' and attname = 'id'`)
    expect(histogram.bounds).toBe(31)
  })

  it('leaves alone the tables that changed too little since', async () => {
    expect(await maintainTables(handle.db, { firstPass: false })).toEqual([])
    await bump(1, sql`id <= 40`) // 40 dead rows and 40 changed: under 50 + 20 % and 50 + 10 % of 1,000
    expect(await maintainTables(handle.db, { firstPass: false })).toEqual([])
  })

  it('after a pass, updates reuse the space of old row versions; without one the table keeps growing', async () => {
    await bump(20)
    const grown = await size()
    await bump(20)
    expect(await size()).toBeGreaterThan(grown) // nothing reclaims on its own
    expect(await maintainTables(handle.db, { firstPass: false })).toEqual([{ name: 'counters', vacuum: true, analyze: true }])
    const kept = await size()
    await bump(20)
    expect(await size()).toBe(kept)
  })

  it('takes inserts alone past their threshold: a vacuum, and an analyse once a tenth of the rows is new', async () => {
    await maintainTables(handle.db, { firstPass: false }) // the updates above
    await handle.db.execute(sql`insert into counters select g, 0 from generate_series(1001, 1200) g`)
    expect(await maintainTables(handle.db, { firstPass: false })).toEqual([{ name: 'counters', vacuum: false, analyze: true }])
    await handle.db.execute(sql`insert into counters select g, 0 from generate_series(1201, 3000) g`)
    expect(await maintainTables(handle.db, { firstPass: false })).toEqual([{ name: 'counters', vacuum: true, analyze: true }])
  })

  it('after a restart, whose counts start from nothing, the first pass takes the tables that grew', async () => {
    // more rows than the free space the updates above left: the file grows
    await handle.db.execute(sql`insert into counters select g, 0 from generate_series(3001, 80000) g`)
    await handle.close()
    handle = await createDb({ kind: 'pglite', dir })
    expect(await maintainTables(handle.db, { firstPass: false })).toEqual([]) // the counts are gone
    expect(await maintainTables(handle.db, { firstPass: true })).toEqual([{ name: 'counters', vacuum: true, analyze: true }])
    const [counters] = await rows<{ reltuples: number }>(sql`select reltuples from pg_class where relname = 'counters'`)
    expect(counters.reltuples).toBe(80000)
    expect(await maintainTables(handle.db, { firstPass: true })).toEqual([])
  })

  it('stops between statements when told to', async () => {
    await bump(2)
    expect(await maintainTables(handle.db, { firstPass: false, stop: () => true })).toEqual([])
    expect(names(await maintainTables(handle.db, { firstPass: false }))).toEqual(['counters'])
  })
})
