import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { sql } from 'drizzle-orm'
import pg from 'pg'
import { writeClickBatch } from '../../src/clicks/batch.js'
import type { BufferedHit } from '../../src/clicks/hit.js'
import { linkStats } from '../../src/clicks/stats.js'
import { links } from '../../src/db/schema/index.js'
import { foldTotals, TOTALS_LOCK } from '../../src/clicks/totals.js'
import { driverCode } from '../../src/db/query-errors.js'
import { toDay } from '../../src/http/format.js'
import { DAY } from '../../src/lib/time.js'
import type { Visitor } from '../../src/visit/visitor.js'
import { appWith, type TestApp, type TestUser } from '../helpers/app.js'
import { addLink } from '../helpers/fixtures.js'
import { UA } from '../redirect/user-agents.js'

/*
 * click_totals holds the rollups up to click_totals_through's day (migration 0011): a batch writes
 * profile rows (migration 0012), the fold moves finished days' profiles into the rollups and adds
 * them to the totals once, and a late click of a folded day waits in its profile for the next run.
 * All-time statistics read the three together, so they never change when a fold runs.
 */

const KEY = Buffer.alloc(32, 5)
const visitor = (ip: string, ua: string, referrer: string): Visitor => ({ ip, userAgent: ua, referrer, acceptLanguage: 'de', language: 'de', device: null, isBot: false, isCrawler: false })
const hit = (linkId: number, userId: number, v: Visitor, at: number): BufferedHit => ({ linkId, userId, source: 'link', visitor: v, at, human: true })

describe('click totals folded by day', () => {
  let t: TestApp
  let owner: TestUser

  beforeAll(async () => { [t, owner] = await appWith({ plan: 'pro' }) })
  /** the statistics as the API shows them: the link's row, read now, and its sums */
  const statsOf = async (id: number) => {
    const [row] = await t.app.db.select().from(links).where(eq(links.id, id))
    return linkStats(t.app.db, row)
  }
  afterAll(() => t.close())

  const through = async () => (await t.app.db.execute<{ day: string }>(sql`select day::text as day from click_totals_through`)).rows[0].day
  const totals = async (id: number) =>
    (await t.app.db.execute<{ dimension: string; label: string; count: number }>(sql`select dimension, label, count from click_totals where subject = ${`l${id}`} and dimension in ('total', 'browser', 'referrer') order by 1, 2`)).rows

  it('a fresh database has folded nothing after yesterday; today is written to its profiles only', async () => {
    const now = Date.now()
    expect(await through()).toBe(toDay(new Date(now - DAY)))
    const id = await addLink(owner, { url: 'https://example.com/fold', custom: 'fold-today' })
    const a = visitor('81.2.69.142', UA.windows, 'https://t.co/x')
    const b = visitor('8.8.8.8', UA.iPhone, '')
    expect(await writeClickBatch(t.app.db, KEY, [hit(id, owner.user.id, a, now), hit(id, owner.user.id, b, now), hit(id, owner.user.id, a, now)])).toBe(3)
    expect(await totals(id)).toEqual([])
    const before = await statsOf(id)
    expect(before).toMatchObject({ clicks: 3, uniqueClicks: 2, topBrowsers: { Edge: '2', 'Mobile Safari': '1' }, topReferrers: { 't.co': '2', Direct: '1' } })

    // the next day's fold adds today once; the statistics read the same
    const tomorrow = new Date(now + DAY)
    expect(await foldTotals(t.app.db, tomorrow)).toBe(toDay(new Date(now)))
    expect(await through()).toBe(toDay(new Date(now)))
    expect(await totals(id)).toEqual([
      { dimension: 'browser', label: 'Edge', count: 2 },
      { dimension: 'browser', label: 'Mobile Safari', count: 1 },
      { dimension: 'referrer', label: '', count: 1 },
      { dimension: 'referrer', label: 't.co', count: 2 },
      { dimension: 'total', label: '', count: 3 },
    ])
    expect(await statsOf(id)).toEqual(before)
    // nothing more to fold until another day ends
    expect(await foldTotals(t.app.db, tomorrow)).toBeUndefined()

    // a late click of the folded day (replayed from the spool after midnight) waits in its profile
    // row, counted by the statistics, until the fold's next run adds it to the rollups and totals
    expect(await writeClickBatch(t.app.db, KEY, [hit(id, owner.user.id, b, now)])).toBe(1)
    const late = { clicks: 4, topBrowsers: { Edge: '2', 'Mobile Safari': '2' }, topReferrers: { 't.co': '2', Direct: '2' } }
    expect(await statsOf(id)).toMatchObject(late)
    const series = (await owner.api.get(`/api/url/${id}/stats`)).json().data
    expect(series.topBrowsers).toEqual({ Edge: '2', 'Mobile Safari': '2' })
    expect(await totals(id)).toContainEqual({ dimension: 'total', label: '', count: 3 })
    expect(await foldTotals(t.app.db, tomorrow)).toBe(toDay(new Date(now)))
    expect(await totals(id)).toContainEqual({ dimension: 'total', label: '', count: 4 })
    expect(await statsOf(id)).toMatchObject(late)
    expect((await owner.api.get(`/api/url/${id}/stats`)).json().data.topBrowsers).toEqual({ Edge: '2', 'Mobile Safari': '2' })
    expect(await foldTotals(t.app.db, tomorrow)).toBeUndefined()

    // and the day after, only that day's clicks are added
    const later = now + DAY
    expect(await writeClickBatch(t.app.db, KEY, [hit(id, owner.user.id, a, later)])).toBe(1)
    expect(await totals(id)).toContainEqual({ dimension: 'total', label: '', count: 4 })
    expect(await foldTotals(t.app.db, new Date(later + DAY))).toBe(toDay(new Date(later)))
    expect(await totals(id)).toContainEqual({ dimension: 'total', label: '', count: 5 })
    expect(await statsOf(id)).toMatchObject({ clicks: 5, topBrowsers: { Edge: '3', 'Mobile Safari': '2' } })

    // a deleted link leaves no totals, folded or not
    expect((await owner.api.del(`/api/url/${id}/delete`)).statusCode).toBe(200)
    expect(await totals(id)).toEqual([])
  })

  // Migration 0012 moves nothing: the day's rollups a previous release wrote before the upgrade stay
  // where they are, and its clicks after it are profiles. Readers and the fold add the two.
  it('adds the rollups of a day written before the upgrade to the profiles written after it', async () => {
    // a day after every day the fold has reached so far in this file
    const now = Date.parse(`${await through()}T12:00:00Z`) + 2 * DAY
    const today = toDay(new Date(now))
    const id = await addLink(owner, { url: 'https://example.com/upgrade', custom: 'fold-upgrade' })
    const subject = `l${id}`
    // what the previous release's batch wrote for one click of a t.co visitor in Edge
    await t.app.db.execute(sql`insert into click_rollups (subject, link_id, day, dimension, label, count) values
      (${subject}, ${id}, ${today}, 'total', '', 1), (${subject}, ${id}, ${today}, 'unique', '', 1),
      (${subject}, ${id}, ${today}, 'browser', 'Edge', 1), (${subject}, ${id}, ${today}, 'referrer', 't.co', 1)`)
    const a = visitor('81.2.69.142', UA.windows, 'https://t.co/x')
    const b = visitor('8.8.8.8', UA.iPhone, '')
    expect(await writeClickBatch(t.app.db, KEY, [hit(id, owner.user.id, a, now), hit(id, owner.user.id, b, now)])).toBe(2)
    const expected = { topBrowsers: { Edge: '2', 'Mobile Safari': '1' }, topReferrers: { 't.co': '2', Direct: '1' } }
    expect(await statsOf(id)).toMatchObject(expected)
    const series = async () => (await owner.api.get(`/api/url/${id}/stats?from=${today}&to=${today}`)).json().data
    expect(await series()).toMatchObject({ ...expected, totals: { clicks: 3, uniqueClicks: 3 } })

    // the day's fold adds the profiles to the day's rollups and both to the totals, once
    expect(await foldTotals(t.app.db, new Date(now + DAY))).toBe(today)
    const rollups = (await t.app.db.execute<{ dimension: string; label: string; count: number }>(
      sql`select dimension, label, count from click_rollups where subject = ${subject} and dimension in ('total', 'unique', 'browser') order by 1, 2`,
    )).rows
    expect(rollups).toEqual([
      { dimension: 'browser', label: 'Edge', count: 2 },
      { dimension: 'browser', label: 'Mobile Safari', count: 1 },
      { dimension: 'total', label: '', count: 3 },
      { dimension: 'unique', label: '', count: 3 },
    ])
    expect((await t.app.db.execute(sql`select 1 from click_profiles where subject = ${subject}`)).rows).toEqual([])
    expect(await totals(id)).toContainEqual({ dimension: 'total', label: '', count: 3 })
    expect(await statsOf(id)).toMatchObject(expected)
    expect(await series()).toMatchObject({ ...expected, totals: { clicks: 3, uniqueClicks: 3 } })
  })

  it('folds a day of many links a hundred profiles a transaction, each link once', async () => {
    const now = Date.parse(`${await through()}T12:00:00Z`) + 2 * DAY
    const rows = await t.app.db.insert(links).values(Array.from({ length: 300 }, (_, i) => ({ userId: owner.user.id, alias: `fold-many-${i}`, url: 'https://example.com/' }))).returning({ id: links.id })
    const a = visitor('81.2.69.142', UA.windows, 'https://t.co/x')
    const b = visitor('8.8.8.8', UA.iPhone, '')
    // two profiles a link (two browsers and referrers): 600 in all
    expect(await writeClickBatch(t.app.db, KEY, rows.flatMap(({ id }) => [hit(id, owner.user.id, a, now), hit(id, owner.user.id, b, now)]))).toBe(600)
    const before = await statsOf(rows[7].id)
    // a run stopped once the day has moved (the server closing) leaves its profiles as late ones,
    // which the statistics count as before
    const day = toDay(new Date(now))
    const unfolded = async () => (await t.app.db.execute(sql`select 1 from click_profiles where day <= ${day}`)).rows.length
    expect(await foldTotals(t.app.db, new Date(now + DAY), () => true)).toBe(day)
    expect(await through()).toBe(day)
    expect(await unfolded()).toBe(600)
    expect(await statsOf(rows[7].id)).toEqual(before)
    let transactions = 0
    const counting = new Proxy(t.app.db, {
      get: (db, key, receiver) => (key === 'transaction' ? (...args: Parameters<typeof db.transaction>) => (transactions++, db.transaction(...args)) : Reflect.get(db, key, receiver)),
    })
    expect(await foldTotals(counting, new Date(now + DAY))).toBe(day)
    expect(transactions).toBeGreaterThanOrEqual(600 / 100)
    expect(await unfolded()).toBe(0)
    const folded = await t.app.db.execute<{ n: number; links: number }>(sql`select sum(count)::int as n, count(distinct subject)::int as links from click_totals
      where subject = any(${sql.param(rows.map(({ id }) => `l${id}`))}::text[]) and dimension = 'total'`)
    expect(folded.rows[0]).toEqual({ n: 600, links: 300 })
    expect(await statsOf(rows[7].id)).toEqual(before)
    expect(await foldTotals(t.app.db, new Date(now + DAY))).toBeUndefined()
  })

  // Two sessions on one Postgres: the fold waits a moment for a batch under way, then gives way to
  // it and tries again at its next run. (PGlite has one session: nothing can interleave.)
  it.skipIf(!process.env.TEST_DATABASE_URL)('gives way to a batch that holds the lock, and folds once it is gone', async () => {
    const url = (t.app.db as unknown as { $client: pg.Pool }).$client.options.connectionString
    const batchSession = new pg.Client({ connectionString: url })
    await batchSession.connect()
    const day = await through()
    const next = new Date(Date.parse(`${day}T12:00:00Z`) + 2 * DAY)
    try {
      await batchSession.query('begin')
      await batchSession.query('select pg_advisory_xact_lock_shared($1)', [TOTALS_LOCK])
      const refused = await foldTotals(t.app.db, next).catch((err: unknown) => driverCode(err))
      expect(refused).toBe('55P03')
      expect(await through()).toBe(day)
      await batchSession.query('commit')
      expect(await foldTotals(t.app.db, next)).toBe(toDay(new Date(next.getTime() - DAY)))
    } finally {
      await batchSession.end()
    }
  })
})
