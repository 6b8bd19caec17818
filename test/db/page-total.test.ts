import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { asc, count, eq, sql } from 'drizzle-orm'
import { pixels } from '../../src/db/schema/index.js'
import { offsetOf, withTotal, type PageQuery } from '../../src/http/pagination.js'
import { appWith, type TestApp, type TestUser } from '../helpers/app.js'
import { makePixel } from '../helpers/fixtures.js'

/*
 * http/pagination.ts withTotal: a list's total is counted only when its page cannot tell it, on real
 * drizzle queries. A count that must not run divides by zero, so running it fails.
 */
describe('a page and its total', () => {
  let t: TestApp
  let five: TestUser
  let none: TestUser

  beforeAll(async () => {
    ;[t, five, none] = await appWith({}, {})
    for (let i = 0; i < 5; i++) await makePixel(t, five.user.id, `P${i}`)
  })
  afterAll(() => t.close())

  const page = (u: TestUser, q: PageQuery) =>
    t.app.db.select({ name: pixels.name }).from(pixels).where(eq(pixels.userId, u.user.id)).orderBy(asc(pixels.id)).limit(q.limit).offset(offsetOf(q))
  const counted = (u: TestUser) => t.app.db.select({ total: count() }).from(pixels).where(eq(pixels.userId, u.user.id))
  const exploding = () => t.app.db.select({ total: sql<number>`1 / 0` }).from(pixels)

  it('counts nothing when the page is the last one and not empty, or the first and empty', async () => {
    expect(await withTotal({ limit: 15, page: 1 }, page(five, { limit: 15, page: 1 }), exploding())).toEqual({
      rows: ['P0', 'P1', 'P2', 'P3', 'P4'].map((name) => ({ name })),
      total: 5,
    })
    expect(await withTotal({ limit: 2, page: 3 }, page(five, { limit: 2, page: 3 }), exploding())).toEqual({ rows: [{ name: 'P4' }], total: 5 })
    expect(await withTotal({ limit: 15, page: 1 }, page(none, { limit: 15, page: 1 }), exploding())).toEqual({ rows: [], total: 0 })
  })

  it('counts when the page is full or past the end', async () => {
    const full = await withTotal({ limit: 5, page: 1 }, page(five, { limit: 5, page: 1 }), counted(five))
    expect(full).toMatchObject({ total: 5 })
    expect(full.rows).toHaveLength(5)
    expect(await withTotal({ limit: 2, page: 2 }, page(five, { limit: 2, page: 2 }), counted(five))).toEqual({ rows: [{ name: 'P2' }, { name: 'P3' }], total: 5 })
    expect(await withTotal({ limit: 2, page: 9 }, page(five, { limit: 2, page: 9 }), counted(five))).toEqual({ rows: [], total: 5 })
    // and a count that fails then fails the list
    await expect(withTotal({ limit: 5, page: 1 }, page(five, { limit: 5, page: 1 }), exploding())).rejects.toThrow(/Failed query: select 1 \/ 0/)
  })
})
