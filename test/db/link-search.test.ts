import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sql } from 'drizzle-orm'
import { appWith, type TestApp, type TestUser } from '../helpers/app.js'
import { addLink } from '../helpers/fixtures.js'

/*
 * Migration 0014: each searched column of `links` has a pg_trgm index, so a search reads the links
 * whose text holds its trigrams instead of every link of the account. Checked on the database the
 * tests run on (PGlite loads the extension in its worker; Postgres has it from contrib).
 */
describe('link search indexes', () => {
  let t: TestApp
  let owner: TestUser

  beforeAll(async () => {
    ;[t, owner] = await appWith({})
    await addLink(owner, { url: 'https://shop.example/winter-sale', custom: 'winter', metatitle: 'Winter sale' })
  })
  afterAll(() => t.close())

  const plan = (where: string) =>
    t.app.db.transaction(async (tx) => {
      // a few rows cost less to read than an index: take the scan away to see what else could answer
      await tx.execute(sql`set local enable_seqscan = off`)
      const res = await tx.execute(sql.raw(`explain select id from links where ${where}`))
      return (res.rows as Record<string, string>[]).map((r) => Object.values(r)[0]).join('\n')
    })

  it.each(['alias', 'url', 'title', 'description'])('a contains-search of %s can be answered by its trigram index', async (column) => {
    expect(await plan(`${column} ilike '%inter%'`)).toContain(`links_${column}_trgm_idx`)
  })

  it('keeps their pending lists small, so merging one never holds PGlite for long', async () => {
    const res = await t.app.db.execute(sql`select relname, reloptions from pg_class where relname like 'links_%_trgm_idx' order by relname`)
    expect(res.rows).toEqual(
      ['alias', 'description', 'title', 'url'].map((c) => ({ relname: `links_${c}_trgm_idx`, reloptions: ['gin_pending_list_limit=256'] })),
    )
  })

  it('finds by any of them, ignoring case, through both interfaces', async () => {
    const urls = (await owner.api.get('/api/urls?q=WINTER-s')).json()
    expect(urls.data.urls.map((u: { alias: string }) => u.alias)).toEqual(['winter'])
    const v1 = (await owner.api.get('/api/v1/links?search=Sale&by=title')).json()
    expect(v1.data.map((l: { alias: string }) => l.alias)).toEqual(['winter'])
  })
})
