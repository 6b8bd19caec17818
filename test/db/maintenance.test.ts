import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDb, type DbHandle } from '../../src/db/client.js'
import { runMigrations } from '../../src/db/migrate.js'
import { vacuumTables } from '../../src/db/maintenance.js'

/*
 * PGlite has no autovacuum (src/db/maintenance.ts): the job's pass vacuums and analyses every
 * table, so counter updates reuse the space of their old row versions instead of growing the table.
 */
describe('embedded database maintenance', () => {
  let handle: DbHandle
  const rows = async <T>(q: ReturnType<typeof sql>) => (await handle.db.execute(q)).rows as T[]
  const size = async () => Number((await rows<{ n: string }>(sql`select pg_relation_size('counters') as n`))[0].n)
  const bump = async (times: number) => {
    for (let i = 0; i < times; i++) await handle.db.execute(sql`update counters set n = n + 1`)
  }

  beforeAll(async () => {
    handle = await createDb({ kind: 'pglite' })
    await runMigrations(handle)
    await handle.db.execute(sql`create table counters (id int primary key, n int not null)`)
    await handle.db.execute(sql`insert into counters select g, 0 from generate_series(1, 1000) g`)
  })
  afterAll(() => handle.close())

  it('vacuums and analyses every table of the schema, the click tables and links included', async () => {
    const done = await vacuumTables(handle.db)
    expect(done).toEqual(expect.arrayContaining(['links', 'click_rollups', 'click_totals', 'click_hourly', 'qr_codes', 'counters']))
    const seen = await rows<{ name: string; vacuumed: boolean; analysed: boolean }>(
      sql`select relname as name, last_vacuum is not null as vacuumed, last_analyze is not null as analysed from pg_stat_user_tables where relname in ('links', 'counters')`,
    )
    expect(seen).toEqual(expect.arrayContaining([
      { name: 'links', vacuumed: true, analysed: true },
      { name: 'counters', vacuumed: true, analysed: true },
    ]))
    const [counters] = await rows<{ reltuples: number }>(sql`select reltuples from pg_class where relname = 'counters'`)
    expect(counters.reltuples).toBe(1000)
  })

  it('after a pass, updates reuse the space of old row versions; without one the table keeps growing', async () => {
    await bump(20)
    const grown = await size()
    await bump(20)
    expect(await size()).toBeGreaterThan(grown) // nothing reclaims on its own
    await vacuumTables(handle.db)
    const kept = await size()
    await bump(20)
    expect(await size()).toBe(kept)
  })

  it('stops between tables when told to', async () => {
    expect(await vacuumTables(handle.db, () => true)).toEqual([])
  })
})
