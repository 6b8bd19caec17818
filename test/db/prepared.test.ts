import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eq, sql } from 'drizzle-orm'
import { links } from '../../src/db/schema/index.js'
import { prepared, preparedRows } from '../../src/db/prepared.js'
import { findOwnedLink } from '../../src/resources/links/repo.js'
import { appWith, type TestApp, type TestUser } from '../helpers/app.js'

/*
 * src/db/prepared.ts keeps a query built once per database; a transaction must get its own, or its
 * reads would run on another connection of the pool and miss what the transaction wrote.
 */
describe('queries built once per database', () => {
  let t: TestApp
  let owner: TestUser

  beforeAll(async () => { [t, owner] = await appWith({}) })
  afterAll(() => t.close())

  const byAlias = (db: TestApp['app']['db']) => db.select({ id: links.id }).from(links).where(eq(links.alias, sql.placeholder('alias'))).prepare('')

  it('builds a query once per database and fills its placeholders on each call', async () => {
    const q = prepared(t.app.db, byAlias)
    expect(prepared(t.app.db, byAlias)).toBe(q)
    const [a] = await t.app.db.insert(links).values({ userId: owner.user.id, alias: 'prep-a', url: 'https://example.com/a' }).returning()
    const [b] = await t.app.db.insert(links).values({ userId: owner.user.id, alias: 'prep-b', url: 'https://example.com/b' }).returning()
    expect(await q.execute({ alias: 'prep-a' })).toEqual([{ id: a.id }])
    expect(await q.execute({ alias: 'prep-b' })).toEqual([{ id: b.id }])
    expect(await q.execute({ alias: 'prep-none' })).toEqual([])
  })

  const aliasesLike = () => sql`select ${links.alias} as alias from ${links} where ${links.alias} like ${sql.placeholder('pattern')} order by 1`

  it('runs a raw statement built once, its rows as the driver reads them', async () => {
    const q = preparedRows<{ alias: string }>(t.app.db, aliasesLike)
    expect(preparedRows(t.app.db, aliasesLike)).toBe(q)
    await t.app.db.insert(links).values([
      { userId: owner.user.id, alias: 'raw-1', url: 'https://example.com/1' },
      { userId: owner.user.id, alias: 'raw-2', url: 'https://example.com/2' },
    ])
    expect(await q.execute({ pattern: 'raw-%' })).toEqual([{ alias: 'raw-1' }, { alias: 'raw-2' }])
    expect(await q.execute({ pattern: 'raw-2' })).toEqual([{ alias: 'raw-2' }])
    const inside = await t.app.db.transaction(async (tx) => {
      await tx.insert(links).values({ userId: owner.user.id, alias: 'raw-3', url: 'https://example.com/3' })
      return preparedRows<{ alias: string }>(tx, aliasesLike).execute({ pattern: 'raw-3' })
    })
    expect(inside).toEqual([{ alias: 'raw-3' }])
  })

  it('reads inside a transaction see what it wrote, and another account reads nothing', async () => {
    const seen = await t.app.db.transaction(async (tx) => {
      const [row] = await tx.insert(links).values({ userId: owner.user.id, alias: 'prep-tx', url: 'https://example.com/tx' }).returning()
      const mine = await findOwnedLink(tx, owner.user.id, row.id)
      const theirs = await findOwnedLink(tx, owner.user.id + 1_000, row.id)
      return { id: row.id, mine: mine?.alias, theirs }
    })
    expect(seen).toEqual({ id: seen.id, mine: 'prep-tx', theirs: undefined })
    expect((await findOwnedLink(t.app.db, owner.user.id, seen.id))?.url).toBe('https://example.com/tx')
  })
})
