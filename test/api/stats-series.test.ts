import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { sql } from 'drizzle-orm'
import { PgDialect } from 'drizzle-orm/pg-core'
import { dailyCountsSql, type DayCounts } from '../../src/clicks/series.js'
import { CASING } from '../../src/db/client.js'
import { foldTotals } from '../../src/clicks/totals.js'
import { toDay } from '../../src/http/format.js'
import { appWith, expectError, type TestApp, type TestUser } from '../helpers/app.js'
import { visitAt as visitAtTime } from '../helpers/visits.js'
import { UA } from '../redirect/user-agents.js'

/* GET /api/url/:id/stats and GET /api/qr/:id/stats (DECISIONS §10.2), over HTTP. */

const zero = (date: string) => ({ date, clicks: 0, uniqueClicks: 0, botClicks: 0 })

describe('statistics over time', () => {
  let t: TestApp
  let a: TestUser
  let b: TestUser
  beforeAll(async () => { [t, a, b] = await appWith({}, {}) })
  afterAll(() => t.close())
  afterEach(() => vi.useRealTimers())

  const visitAt = (at: string, path: string, o: { ip: string; ua?: string; referer?: string }) => visitAtTime(t, at, path, o)

  async function addLink(user: TestUser, alias: string): Promise<number> {
    const res = await user.api.post('/api/url/add', { url: 'https://example.com/stats', custom: alias })
    expect(res.statusCode, res.body).toBe(200)
    return res.json().id
  }

  let linkId: number
  beforeAll(async () => {
    linkId = await addLink(a, 'series1')
    // visitor X three times (two hours), Y once, on 1 March; a bot on the 2nd; X again on the 3rd
    await visitAt('2026-03-01T10:15:00Z', '/series1', { ip: '8.8.8.8', referer: 'https://www.facebook.com/x' })
    await visitAt('2026-03-01T10:40:00Z', '/series1', { ip: '8.8.8.8', referer: 'https://www.facebook.com/x' })
    await visitAt('2026-03-01T11:30:00Z', '/series1', { ip: '8.8.8.8', referer: 'https://www.facebook.com/x' })
    await visitAt('2026-03-01T11:05:00Z', '/series1', { ip: '81.2.69.142', ua: UA.windows })
    await visitAt('2026-03-02T08:00:00Z', '/series1', { ip: '66.249.66.1', ua: UA.googlebot })
    await visitAt('2026-03-03T23:59:00Z', '/series1', { ip: '8.8.8.8' })
    await t.app.clicks.flush()
  })

  it('answers every day of the range, zeros included, with totals equal to the link\'s clicks and bots apart', async () => {
    const res = await a.api.get(`/api/url/${linkId}/stats?from=2026-02-28&to=2026-03-04`)
    expect(res.statusCode, res.body).toBe(200)
    const { data } = res.json()
    expect(data.series).toEqual([
      zero('2026-02-28'),
      { date: '2026-03-01', clicks: 4, uniqueClicks: 2, botClicks: 0 },
      { date: '2026-03-02', clicks: 0, uniqueClicks: 0, botClicks: 1 },
      { date: '2026-03-03', clicks: 1, uniqueClicks: 1, botClicks: 0 },
      zero('2026-03-04'),
    ])
    expect(data).toMatchObject({ from: '2026-02-28', to: '2026-03-04', interval: 'day', totals: { clicks: 5, uniqueClicks: 3, botClicks: 1 } })
    const link = (await a.api.get(`/api/url/${linkId}`)).json().data
    expect({ clicks: link.clicks, uniqueClicks: link.uniqueClicks, botClicks: link.botClicks }).toEqual(data.totals)
    expect(data.topCountries).toEqual({ 'United States': '4', 'United Kingdom': '1' })
    expect(data.topReferrers).toEqual({ 'facebook.com': '3', Direct: '2' })
    expect(data.topBrowsers).toEqual({ 'Mobile Safari': '4', Edge: '1' })
    expect(data.topOs).toEqual({ iOS: '4', Windows: '1' })
    expect(data.topDevices).toEqual({ mobile: '4', Unknown: '1' })
    expect(data.topLanguages).toEqual({ de: '5' })
  })

  it('limits the totals and top lists to the range', async () => {
    const { data } = (await a.api.get(`/api/url/${linkId}/stats?from=2026-03-02&to=2026-03-03`)).json()
    expect(data.series.map((p: { date: string }) => p.date)).toEqual(['2026-03-02', '2026-03-03'])
    expect(data.totals).toEqual({ clicks: 1, uniqueClicks: 1, botClicks: 1 })
    expect(data.topReferrers).toEqual({ Direct: '1' })
    const empty = (await a.api.get(`/api/url/${linkId}/stats?from=2025-01-01&to=2025-01-02`)).json().data
    expect(empty).toMatchObject({ series: [zero('2025-01-01'), zero('2025-01-02')], totals: { clicks: 0, uniqueClicks: 0, botClicks: 0 }, topCountries: 0, topDevices: 0 })
  })

  it('reads the top lists of a range holding every day of clicks from the all-time totals, of a shorter one from the days', async () => {
    const id = await addLink(a, 'series-totals')
    await visitAt('2026-05-01T10:00:00Z', '/series-totals', { ip: '8.8.8.8' })
    await visitAt('2026-05-03T10:00:00Z', '/series-totals', { ip: '81.2.69.142', ua: UA.windows })
    await t.app.clicks.flush()
    const tops = async (from: string, to: string) => (await a.api.get(`/api/url/${id}/stats?from=${from}&to=${to}`)).json().data.topBrowsers
    // days long folded: the clicks wait in their profiles until the fold's next run, and read the same
    expect(await tops('2026-04-01', '2026-05-31')).toEqual({ 'Mobile Safari': '1', Edge: '1' })
    expect(await tops('2026-05-03', '2026-05-31')).toEqual({ Edge: '1' })
    expect(await foldTotals(t.app.db)).toBeDefined()
    expect(await tops('2026-04-01', '2026-05-31')).toEqual({ 'Mobile Safari': '1', Edge: '1' })
    expect(await tops('2026-05-03', '2026-05-31')).toEqual({ Edge: '1' })
    // a count only the totals table holds shows where the whole life is asked for, and only there
    await t.app.db.execute(sql`update click_totals set count = count + 5 where subject = ${`l${id}`} and dimension = 'browser' and label = 'Edge'`)
    expect(await tops('2026-05-01', '2026-05-03')).toEqual({ Edge: '6', 'Mobile Safari': '1' })
    expect(await tops('2026-05-02', '2026-05-03')).toEqual({ Edge: '1' })
  })

  it('answers every hour with interval=hour, unique visitors counted per hour', async () => {
    const res = await a.api.get(`/api/url/${linkId}/stats?from=2026-03-01&to=2026-03-02&interval=hour`)
    expect(res.statusCode, res.body).toBe(200)
    const { data } = res.json()
    expect(data.series).toHaveLength(48)
    expect(data.series[0]).toEqual(zero('2026-03-01 00:00:00'))
    expect(data.series[47]).toEqual(zero('2026-03-02 23:00:00'))
    const busy = data.series.filter((p: { clicks: number; botClicks: number }) => p.clicks || p.botClicks)
    expect(busy).toEqual([
      { date: '2026-03-01 10:00:00', clicks: 2, uniqueClicks: 1, botClicks: 0 },
      { date: '2026-03-01 11:00:00', clicks: 2, uniqueClicks: 2, botClicks: 0 },
      { date: '2026-03-02 08:00:00', clicks: 0, uniqueClicks: 0, botClicks: 1 },
    ])
    expect(data).toMatchObject({ interval: 'hour', totals: { clicks: 4, uniqueClicks: 2, botClicks: 1 } })
    const last = (await a.api.get(`/api/url/${linkId}/stats?from=2026-03-03&to=2026-03-03&interval=hour`)).json().data
    expect(last.series[23]).toEqual({ date: '2026-03-03 23:00:00', clicks: 1, uniqueClicks: 1, botClicks: 0 })
  })

  it('defaults to the last 30 days by day', async () => {
    const { data } = (await a.api.get(`/api/url/${linkId}/stats`)).json()
    const today = toDay(new Date())
    expect(data.interval).toBe('day')
    expect(data.to).toBe(today)
    expect(data.series).toHaveLength(30)
    expect(data.series[0].date).toBe(data.from)
    expect(data.series[29].date).toBe(today)
  })

  it('refuses bad and inverted ranges with 400 naming the field', async () => {
    const bad = async (query: string, field: string) => {
      const body = expectError(await a.api.get(`/api/url/${linkId}/stats?${query}`), 400)
      expect(body.message).toMatch(new RegExp(`^${field}\\b`))
    }
    await bad('from=2026-02-30', 'from')
    await bad('from=yesterday', 'from')
    await bad('to=2026-3-1', 'to')
    await bad('from=2026-03-05&to=2026-03-01', 'to')
    await bad('from=2025-01-01&to=2026-02-06', 'from and to')
    await bad('interval=week', 'interval')
    await bad('from=2026-03-01&to=2026-03-08&interval=hour', 'interval')
    // the longest ranges allowed
    expect((await a.api.get(`/api/url/${linkId}/stats?from=2025-01-01&to=2026-02-05`)).json().data.series).toHaveLength(401)
    expect((await a.api.get(`/api/url/${linkId}/stats?from=2026-03-01&to=2026-03-07&interval=hour`)).json().data.series).toHaveLength(168)
  })

  it('answers 404 for another account\'s link and QR code, and for unknown ids', async () => {
    expectError(await b.api.get(`/api/url/${linkId}/stats`), 404)
    expectError(await a.api.get('/api/url/999999/stats'), 404)
    const qr = (await a.api.post('/api/qr/add', { type: 'link', data: 'https://example.com/qr' })).json()
    expectError(await b.api.get(`/api/qr/${qr.id}/stats`), 404)
    expectError(await b.api.get(`/api/qr/${qr.id}/stats?from=bad`), 404)
  })

  it('gives a QR code its scans over time', async () => {
    const qr = (await a.api.post('/api/qr/add', { type: 'link', data: 'https://example.com/qr2' })).json()
    const alias = new URL(qr.link).pathname.split('/').pop()!
    await visitAt('2026-04-10T07:00:00Z', `/q/${alias}`, { ip: '8.8.8.8', referer: 'https://www.instagram.com/p/1' })
    await visitAt('2026-04-10T07:10:00Z', `/q/${alias}`, { ip: '8.8.4.4' })
    await visitAt('2026-04-11T12:00:00Z', `/q/${alias}`, { ip: '66.249.66.1', ua: UA.googlebot })
    await t.app.clicks.flush()
    const res = await a.api.get(`/api/qr/${qr.id}/stats?from=2026-04-09&to=2026-04-11`)
    expect(res.statusCode, res.body).toBe(200)
    const { data } = res.json()
    expect(data.series).toEqual([
      zero('2026-04-09'),
      { date: '2026-04-10', clicks: 2, uniqueClicks: 2, botClicks: 0 },
      { date: '2026-04-11', clicks: 0, uniqueClicks: 0, botClicks: 1 },
    ])
    const details = (await a.api.get(`/api/qr/${qr.id}`)).json().data
    expect({ clicks: details.clicks, uniqueClicks: details.uniqueClicks, botClicks: details.botClicks }).toEqual(data.totals)
    expect(data.topReferrers).toEqual({ 'instagram.com': '1', Direct: '1' })
    const hourly = (await a.api.get(`/api/qr/${qr.id}/stats?from=2026-04-10&to=2026-04-10&interval=hour`)).json().data
    expect(hourly.series[7]).toEqual({ date: '2026-04-10 07:00:00', clicks: 2, uniqueClicks: 2, botClicks: 0 })
  })
})

/** The daily series reads the partial index of migration 0008, even in a generic plan. */
describe('the daily series query', () => {
  let t: TestApp
  beforeAll(async () => {
    ;[t] = await appWith()
  })
  afterAll(() => t?.close())

  it('is answered from click_rollups_series_idx, not by reading every label of the range', async () => {
    // a year of rollups for a few subjects, a dozen labels a day: enough for an index to matter
    await t.app.db.execute(sql`insert into click_rollups (subject, day, dimension, label, count)
      select 'l' || (900000 + s), d::date, v.dim, v.lab, 1
      from generate_series(date '2026-01-01', date '2026-12-31', interval '1 day') d, generate_series(1, 3) s,
        (values ('total', ''), ('unique', ''), ('bot', ''), ('country', 'US'), ('country', 'DE'), ('browser', 'Chrome'),
          ('browser', 'Firefox'), ('os', 'Linux'), ('referrer', ''), ('device', ''), ('language', 'en'), ('social', 'google')) v(dim, lab)`)
    await t.app.db.execute(sql`analyze click_rollups`)
    const q = new PgDialect({ casing: CASING }).sqlToQuery(dailyCountsSql('l900002', { from: '2026-01-01', to: '2026-12-31' }))
    const literals = q.params.map((p) => `'${String(p).replace(/'/g, "''")}'`).join(', ')
    const plan = await t.app.db.transaction(async (tx) => {
      await tx.execute(sql`set local plan_cache_mode = force_generic_plan`)
      await tx.execute(sql`set local enable_seqscan = off`)
      await tx.execute(sql.raw(`prepare kurz_series_probe as ${q.sql}`))
      try {
        const res = (await tx.execute(sql.raw(`explain execute kurz_series_probe(${literals})`))) as unknown as { rows: Record<string, string>[] }
        return res.rows.map((r) => Object.values(r)[0]).join('\n')
      } finally {
        await tx.execute(sql`deallocate kurz_series_probe`)
      }
    })
    expect(plan).toContain('click_rollups_series_idx')
    // one row a day, each of the three counts summed from its own rollup row
    const res = await t.app.db.execute<DayCounts>(dailyCountsSql('l900002', { from: '2026-03-01', to: '2026-03-31' }))
    expect(res.rows.map((r) => r.day).sort()).toEqual(Array.from({ length: 31 }, (_, i) => `2026-03-${String(i + 1).padStart(2, '0')}`))
    expect(res.rows.every((r) => Number(r.clicks) === 1 && Number(r.uniques) === 1 && Number(r.bots) === 1)).toBe(true)
  })
})
