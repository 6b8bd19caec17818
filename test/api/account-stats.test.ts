import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { foldTotals } from '../../src/clicks/totals.js'
import { toDay } from '../../src/http/format.js'
import { appWith, expectError, type TestApp, type TestUser } from '../helpers/app.js'
import { visitAt as visitAtTime } from '../helpers/visits.js'
import { UA } from '../redirect/user-agents.js'

/* GET /api/account/stats: the statistics over time of all an account's links, over HTTP. */

const zero = (date: string) => ({ date, clicks: 0, uniqueClicks: 0, botClicks: 0 })
type Point = { date: string; clicks: number; uniqueClicks: number; botClicks: number }

describe('account statistics over time', () => {
  let t: TestApp
  let a: TestUser
  let b: TestUser
  beforeAll(async () => { [t, a, b] = await appWith({}, {}) })
  afterAll(() => t.close())
  afterEach(() => vi.useRealTimers())

  const visitAt = (at: string, path: string, o: { ip: string; ua?: string; referer?: string }) => visitAtTime(t, at, path, o)

  async function addLink(user: TestUser, alias: string, title?: string): Promise<number> {
    const res = await user.api.post('/api/url/add', { url: 'https://example.com/overview', custom: alias, ...(title ? { title } : {}) })
    expect(res.statusCode, res.body).toBe(200)
    return res.json().id
  }

  const stats = async (user: TestUser, query: string) => {
    const res = await user.api.get(`/api/account/stats${query ? `?${query}` : ''}`)
    expect(res.statusCode, res.body).toBe(200)
    return res.json().data
  }

  let one: number
  let two: number
  let three: number
  beforeAll(async () => {
    one = await addLink(a, 'acct-one', 'First')
    two = await addLink(a, 'acct-two')
    three = await addLink(a, 'acct-three')
    // a: one has 3 human clicks (2 visitors) on 1 March, two has 1 on 1 March and a bot on the 2nd,
    // three has 2 on the 3rd; the same visitor on one and two counts once per link
    await visitAt('2026-03-01T10:15:00Z', '/acct-one', { ip: '8.8.8.8', referer: 'https://www.facebook.com/x' })
    await visitAt('2026-03-01T10:40:00Z', '/acct-one', { ip: '8.8.8.8', referer: 'https://www.facebook.com/x' })
    await visitAt('2026-03-01T11:30:00Z', '/acct-one', { ip: '81.2.69.142', ua: UA.windows })
    await visitAt('2026-03-01T11:45:00Z', '/acct-two', { ip: '8.8.8.8' })
    await visitAt('2026-03-02T08:00:00Z', '/acct-two', { ip: '66.249.66.1', ua: UA.googlebot })
    await visitAt('2026-03-03T09:00:00Z', '/acct-three', { ip: '8.8.8.8' })
    await visitAt('2026-03-03T09:30:00Z', '/acct-three', { ip: '81.2.69.142', ua: UA.windows })
    // another account's link, clicked on the same days, and a's own QR code scanned: neither counts
    await addLink(b, 'acct-other')
    for (const ip of ['8.8.4.4', '1.1.1.1', '9.9.9.9']) await visitAt('2026-03-01T12:00:00Z', '/acct-other', { ip })
    await visitAt('2026-03-03T12:00:00Z', '/acct-other', { ip: '8.8.4.4' })
    const qr = (await a.api.post('/api/qr/add', { type: 'link', data: 'https://example.com/qr-overview' })).json()
    await visitAt('2026-03-01T13:00:00Z', `/q/${new URL(qr.link).pathname.split('/').pop()}`, { ip: '8.8.8.8' })
    await t.app.clicks.flush()
  })

  const expected = {
    series: [
      zero('2026-02-28'),
      { date: '2026-03-01', clicks: 4, uniqueClicks: 3, botClicks: 0 },
      { date: '2026-03-02', clicks: 0, uniqueClicks: 0, botClicks: 1 },
      { date: '2026-03-03', clicks: 2, uniqueClicks: 2, botClicks: 0 },
      zero('2026-03-04'),
    ],
    totals: { clicks: 6, uniqueClicks: 5, botClicks: 1 },
  }

  it('sums every link of the account per day, zeros included, with the top lists and top links', async () => {
    const data = await stats(a, 'from=2026-02-28&to=2026-03-04')
    expect(Object.keys(data).sort()).toEqual(
      ['from', 'to', 'interval', 'series', 'totals', 'topCountries', 'topReferrers', 'topBrowsers', 'topOs', 'topDevices', 'topLanguages', 'topLinks'].sort(),
    )
    expect(data).toMatchObject({ from: '2026-02-28', to: '2026-03-04', interval: 'day', ...expected })
    expect(data.topCountries).toEqual({ 'United States': '4', 'United Kingdom': '2' })
    expect(data.topReferrers).toEqual({ Direct: '4', 'facebook.com': '2' })
    expect(data.topBrowsers).toEqual({ 'Mobile Safari': '4', Edge: '2' })
    expect(data.topLanguages).toEqual({ de: '6' })
    // most clicks first; equal counts by id
    expect(data.topLinks).toEqual([
      { id: one, alias: 'acct-one', shorturl: 'http://kurz.test/acct-one', title: 'First', clicks: 3 },
      { id: three, alias: 'acct-three', shorturl: 'http://kurz.test/acct-three', title: '', clicks: 2 },
      { id: two, alias: 'acct-two', shorturl: 'http://kurz.test/acct-two', title: '', clicks: 1 },
    ])
  })

  it('reads the same figures once the days are folded into the rollups', async () => {
    expect(await foldTotals(t.app.db)).toBeDefined()
    const data = await stats(a, 'from=2026-02-28&to=2026-03-04')
    expect(data).toMatchObject(expected)
    expect(data.topLinks.map((l: { id: number; clicks: number }) => [l.id, l.clicks])).toEqual([[one, 3], [three, 2], [two, 1]])
    // a late click of a folded day waits in its profile, and adds to the folded figures
    await visitAt('2026-03-03T18:00:00Z', '/acct-two', { ip: '9.9.9.9' })
    await visitAt('2026-03-03T18:10:00Z', '/acct-two', { ip: '1.1.1.1' })
    await t.app.clicks.flush()
    const late = await stats(a, 'from=2026-03-03&to=2026-03-03')
    expect(late.totals).toEqual({ clicks: 4, uniqueClicks: 4, botClicks: 0 })
    // equal counts: the older link (lower id) first
    expect(late.topLinks.map((l: { id: number; clicks: number }) => [l.id, l.clicks])).toEqual([[two, 2], [three, 2]])
    await foldTotals(t.app.db)
    expect((await stats(a, 'from=2026-03-03&to=2026-03-03')).totals).toEqual({ clicks: 4, uniqueClicks: 4, botClicks: 0 })
  })

  it('counts only the caller\'s links', async () => {
    const data = await stats(b, 'from=2026-02-28&to=2026-03-04')
    expect(data.totals).toEqual({ clicks: 4, uniqueClicks: 4, botClicks: 0 })
    expect(data.topLinks.map((l: { alias: string }) => l.alias)).toEqual(['acct-other'])
    const mine = await stats(a, 'from=2026-03-01&to=2026-03-01')
    expect(mine.totals.clicks).toBe(4)
    expect(mine.topLinks.map((l: { alias: string }) => l.alias)).not.toContain('acct-other')
    // a new account has nothing, every bucket present
    const c = await t.makeUser()
    const empty = await stats(c, 'from=2026-03-01&to=2026-03-02')
    expect(empty).toMatchObject({ series: [zero('2026-03-01'), zero('2026-03-02')], totals: { clicks: 0, uniqueClicks: 0, botClicks: 0 }, topCountries: 0, topLinks: [] })
  })

  it('answers every hour with interval=hour', async () => {
    const data = await stats(a, 'from=2026-03-01&to=2026-03-02&interval=hour')
    expect(data.series).toHaveLength(48)
    expect(data.series[0]).toEqual(zero('2026-03-01 00:00:00'))
    expect(data.series.filter((p: Point) => p.clicks || p.botClicks)).toEqual([
      { date: '2026-03-01 10:00:00', clicks: 2, uniqueClicks: 1, botClicks: 0 },
      { date: '2026-03-01 11:00:00', clicks: 2, uniqueClicks: 2, botClicks: 0 },
      { date: '2026-03-02 08:00:00', clicks: 0, uniqueClicks: 0, botClicks: 1 },
    ])
    expect(data).toMatchObject({ interval: 'hour', totals: { clicks: 4, uniqueClicks: 3, botClicks: 1 } })
  })

  it('defaults to the last 30 days by day', async () => {
    const data = await stats(a, '')
    expect(data).toMatchObject({ interval: 'day', to: toDay(new Date()) })
    expect(data.series).toHaveLength(30)
    expect(data.series[0].date).toBe(data.from)
  })

  it('refuses bad and inverted ranges with 400 naming the field, as the link route does', async () => {
    const bad = async (query: string, field: string) => {
      const body = expectError(await a.api.get(`/api/account/stats?${query}`), 400)
      expect(body.message).toMatch(new RegExp(`^${field}\\b`))
      expect(body.message).toBe(expectError(await a.api.get(`/api/url/${one}/stats?${query}`), 400).message)
    }
    await bad('from=2026-02-30', 'from')
    await bad('to=2026-3-1', 'to')
    await bad('from=2026-03-05&to=2026-03-01', 'to')
    await bad('from=2025-01-01&to=2026-02-06', 'from and to')
    await bad('interval=week', 'interval')
    await bad('from=2026-03-01&to=2026-03-08&interval=hour', 'interval')
    expectError(await t.api().get('/api/account/stats'), 401)
  })

  it('drops a deleted link\'s clicks', async () => {
    expect((await a.api.del(`/api/url/${one}/delete`)).statusCode).toBe(200)
    const data = await stats(a, 'from=2026-03-01&to=2026-03-01')
    expect(data.totals).toEqual({ clicks: 1, uniqueClicks: 1, botClicks: 0 })
    expect(data.topLinks.map((l: { id: number }) => l.id)).toEqual([two])
    expect(data.topCountries).toEqual({ 'United States': '1' })
  })

  it('is in the OpenAPI document', async () => {
    const doc = (await t.api().get('/openapi.json')).json()
    const op = doc.paths['/api/account/stats'].get
    expect(op.summary).toMatch(/all your links/)
    expect(op.description).toMatch(/sum of each link's unique visitors/)
    expect(op.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['from', 'interval', 'to'])
  })
})
