import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { links, qrCodes } from '../../src/db/schema/index.js'
import { countryLabel as countryName, linkStats, qrStats } from '../../src/clicks/stats.js'
import type { Visitor } from '../../src/visit/visitor.js'
import { appWith, type TestApp, type TestUser } from '../helpers/app.js'
import { insertLink, NO_CLICKS as EMPTY } from '../helpers/fixtures.js'
import { UA } from '../redirect/user-agents.js'

const visitor = (o: Partial<Visitor> = {}): Visitor => ({
  ip: '127.0.0.1',
  userAgent: '',
  referrer: '',
  acceptLanguage: '',
  language: null,
  device: null,
  isBot: false,
  isCrawler: false,
  ...o,
})

describe('linkStats / qrStats', () => {
  let t: TestApp
  let pro: TestUser

  beforeAll(async () => { [t, pro] = await appWith({ plan: 'pro' }) })
  /** the statistics as the API shows them: the link's row, read now, and its sums */
  const statsOf = async (id: number) => {
    const [row] = await t.app.db.select().from(links).where(eq(links.id, id))
    return linkStats(t.app.db, row)
  }
  const qrStatsOf = async (id: number) => {
    const [row] = await t.app.db.select().from(qrCodes).where(eq(qrCodes.id, id))
    return qrStats(t.app.db, row)
  }
  afterAll(() => t.close())

  it('is all zeros for a link without clicks, and for an unknown id', async () => {
    const link = await insertLink(t, pro.user.id, { alias: 'quiet1' })
    expect(await statsOf(link.id)).toEqual({ ...EMPTY, socialCount: { facebook: 0, twitter: 0, google: 0 } })
    expect(await linkStats(t.app.db, { id: 999_999, clicks: 0, uniqueClicks: 0, botClicks: 0 })).toEqual({ ...EMPTY, socialCount: { facebook: 0, twitter: 0, google: 0 } })
    expect(await qrStats(t.app.db, { id: 999_999, scans: 0, uniqueScans: 0, botScans: 0 })).toEqual({ ...EMPTY, socialCount: { facebook: 0, twitter: 0, instagram: 0 } })
  })

  it('labels countries in English, referrers by host (Direct when none), browsers and OS by name (Unknown when unknown)', async () => {
    const link = await insertLink(t, pro.user.id, { alias: 'labels1' })
    const hit = (v: Partial<Visitor>) => t.app.clicks.record({ linkId: link.id, userId: pro.user.id, source: 'link', visitor: visitor(v) })
    hit({ ip: '8.8.8.8', userAgent: UA.iPhone, referrer: 'https://www.facebook.com/groups/1' })
    hit({ ip: '8.8.4.4', userAgent: UA.iPhone, referrer: 'https://l.facebook.com/l.php?u=x' })
    hit({ ip: '81.2.69.142', userAgent: UA.windows, referrer: 'https://t.co/abc' })
    hit({ ip: '2a00:1450:4001::1', userAgent: UA.linux, referrer: 'https://www.google.co.uk/search?q=x' })
    hit({ ip: '10.0.0.1', userAgent: 'curl/8.5.0', referrer: '' })
    hit({ ip: '10.0.0.1', userAgent: 'curl/8.5.0', referrer: 'not a url' })
    hit({ ip: '10.0.0.2', userAgent: UA.googlebot, isBot: true, referrer: 'https://x.com/' })
    await t.app.clicks.flush()
    expect(await statsOf(link.id)).toEqual({
      clicks: 6,
      uniqueClicks: 5,
      topCountries: { 'United States': '2', Unknown: '2', Germany: '1', 'United Kingdom': '1' },
      topReferrers: { Direct: '2', 'facebook.com': '1', 'google.co.uk': '1', 'l.facebook.com': '1', 't.co': '1' },
      topBrowsers: { 'Mobile Safari': '2', Unknown: '2', Edge: '1', Firefox: '1' },
      topOs: { iOS: '2', Unknown: '2', Linux: '1', Windows: '1' },
      socialCount: { facebook: 2, twitter: 1, google: 1 },
      botClicks: 1,
    })
  })

  it('keeps the top 10, most clicks first', async () => {
    const link = await insertLink(t, pro.user.id, { alias: 'top1' })
    for (let host = 1; host <= 12; host++) {
      for (let n = 0; n < host; n++) {
        t.app.clicks.record({ linkId: link.id, userId: pro.user.id, source: 'link', visitor: visitor({ referrer: `https://site${host}.example/` }) })
      }
    }
    await t.app.clicks.flush()
    const s = await statsOf(link.id)
    expect(s.clicks).toBe(78)
    expect(s.uniqueClicks).toBe(1)
    expect(s.topReferrers).toEqual(Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`site${12 - i}.example`, String(12 - i)])))
    expect(Object.keys(s.topReferrers)).toEqual(Array.from({ length: 10 }, (_, i) => `site${12 - i}.example`))
  })

  it('QR scans count for the QR code, with instagram in place of google', async () => {
    const [qr] = await t.app.db
      .insert(qrCodes)
      .values({ userId: pro.user.id, alias: 'qrstats1', type: 'link', data: 'https://example.com', target: 'https://example.com', content: 'http://kurz.test/q/qrstats1', name: 'Flyer' })
      .returning()
    const scan = (v: Partial<Visitor>) => t.app.clicks.record({ qrId: qr.id, userId: pro.user.id, source: 'qr', visitor: visitor(v) })
    scan({ ip: '8.8.8.8', userAgent: UA.android, referrer: 'https://l.instagram.com/?u=x' })
    scan({ ip: '8.8.8.8', userAgent: UA.android, referrer: 'https://www.google.com/' })
    scan({ ip: '81.2.69.142', userAgent: UA.iPhone, referrer: 'https://m.facebook.com/' })
    scan({ userAgent: UA.facebook, isBot: true, isCrawler: true })
    await t.app.clicks.flush()
    expect(await qrStatsOf(qr.id)).toEqual({
      clicks: 3,
      uniqueClicks: 2,
      topCountries: { 'United States': '2', 'United Kingdom': '1' },
      topReferrers: { 'google.com': '1', 'l.instagram.com': '1', 'm.facebook.com': '1' },
      topBrowsers: { 'Chrome': '2', 'Mobile Safari': '1' },
      topOs: { Android: '2', iOS: '1' },
      socialCount: { facebook: 1, twitter: 0, instagram: 1 },
      botClicks: 1,
    })
    const [row] = await t.app.db.select({ scans: qrCodes.scans, unique: qrCodes.uniqueScans, bots: qrCodes.botScans }).from(qrCodes)
    expect(row).toEqual({ scans: 3, unique: 2, bots: 1 })
  })

  it('names countries with Intl.DisplayNames', () => {
    expect([countryName('US'), countryName('GB'), countryName('DE'), countryName('xx'), countryName('')]).toEqual([
      'United States',
      'United Kingdom',
      'Germany',
      'Unknown',
      'Unknown',
    ])
  })
})
