import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { and, eq } from 'drizzle-orm'
import { channelItems, clicks, linkPixels, links, linkTargets } from '../../src/db/schema/index.js'
import type { Visitor } from '../../src/visit/visitor.js'
import { appWith, expectError, TS, type TestApp, type TestUser } from '../helpers/app.js'
import {
  linkRow,
  linkRowCounts,
  makeCampaign,
  makeChannel,
  makeDomain,
  makePage,
  makePixel,
  NO_STATS,
  RANDOM_ALIAS,
} from '../helpers/fixtures.js'

const visitor = (over: Partial<Visitor> = {}): Visitor => ({
  ip: '8.8.8.8',
  userAgent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
  referrer: 'https://www.facebook.com/some/post',
  acceptLanguage: 'en-US',
  language: 'en',
  device: 'Windows',
  isBot: false,
  isCrawler: false,
  ...over,
})

describe('links', () => {
  let t: TestApp
  let alice: TestUser
  let bob: TestUser

  beforeAll(async () => { [t, alice, bob] = await appWith({}, {}) })
  afterAll(() => t.close())

  const create = async (u: TestUser, body: Record<string, unknown>) => {
    const res = await u.api.post('/api/url/add', body)
    if (res.statusCode !== 200) throw new Error(`create failed: ${res.statusCode} ${res.body}`)
    return res.json() as { error: 0; id: number; shorturl: string; short: string }
  }

  describe('POST /api/url/add', () => {
    it('shortens a URL with a random 6-character alias and answers shorturl and short', async () => {
      const res = await alice.api.post('/api/url/add', { url: 'https://example.com/page?x=1' })
      expect(res.statusCode).toBe(200)
      const body = res.json()
      expect(body).toEqual({ error: 0, id: expect.any(Number), shorturl: expect.any(String), short: body.shorturl })
      const alias = body.shorturl.slice('http://kurz.test/'.length)
      expect(body.shorturl.startsWith('http://kurz.test/')).toBe(true)
      expect(alias).toMatch(RANDOM_ALIAS)
      const row = await linkRow(t, body.id)
      expect(row).toMatchObject({
        userId: alice.user.id,
        alias,
        customAlias: false,
        url: 'https://example.com/page?x=1',
        domainId: null,
        type: 'direct',
        privacy: 1,
        passwordHash: null,
        targetType: 0,
        clicks: 0,
      })
    })

    it('random aliases differ and stay 6 characters while there is room', async () => {
      const aliases = new Set<string>()
      for (let i = 0; i < 20; i++) aliases.add((await create(alice, { url: `https://example.com/${i}` })).shorturl)
      expect(aliases.size).toBe(20)
      for (const a of aliases) expect(a.split('/').pop()).toMatch(RANDOM_ALIAS)
    })

    it('takes a custom alias, case-sensitively, and refuses it taken on the same domain with 409', async () => {
      const a = await create(alice, { url: 'https://example.com/a', custom: 'Promo_2030-x' })
      expect(a.shorturl).toBe('http://kurz.test/Promo_2030-x')
      const b = await create(bob, { url: 'https://example.com/b', custom: 'promo_2030-X' })
      expect(b.shorturl).toBe('http://kurz.test/promo_2030-X')
      const before = await linkRowCounts(t)
      expectError(await bob.api.post('/api/url/add', { url: 'https://example.com/c', custom: 'Promo_2030-x' }), 409, /^custom: .*taken/)
      expect(await linkRowCounts(t)).toEqual(before)
    })

    it('creates a link with every field, and GET /api/url/:id shows them in the SPEC.md shape', async () => {
      const domain = await makeDomain(t, alice.user.id, 'https://go.alice.example')
      const pixel1 = await makePixel(t, alice.user.id, 'one')
      const pixel2 = await makePixel(t, alice.user.id, 'two')
      const channel = await makeChannel(t, alice.user.id)
      const campaign = await makeCampaign(t, alice.user.id)
      const splash = await makePage(t, alice.user.id, 'splash')
      const res = await alice.api.post('/api/url/add', {
        url: 'https://shop.example/item/42',
        custom: 'everything',
        type: String(splash.id),
        password: 'open sesame',
        domain: 'https://go.alice.example',
        expiry: '2099-12-31 23:59:59',
        geotarget: [
          { location: 'Canada', link: 'https://shop.example/ca' },
          { location: 'DE', link: 'https://shop.example/de' },
        ],
        devicetarget: [
          { device: 'iPhone', link: 'https://apps.apple.com/app/id1' },
          { device: 'Android', link: 'https://play.google.com/store/apps/details?id=x' },
        ],
        languagetarget: [{ language: 'fr', link: 'https://shop.example/fr' }],
        metatitle: 'Meta title',
        metadescription: 'Meta description',
        metaimage: 'https://cdn.example/og.PNG',
        description: 'My note',
        pixels: [pixel1.id, pixel2.id],
        channel: channel.id,
        campaign: campaign.id,
        deeplink: { auto: false, apple: 'https://apps.apple.com/app/id1', google: 'https://play.google.com/store/apps/details?id=x' },
        status: 'public',
        parameters: [{ name: 'utm_source', value: 'kurz' }, { device: 'ref', link: 'newsletter' }],
        title: 'My title',
      })
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({ error: 0, id: expect.any(Number), shorturl: 'https://go.alice.example/everything', short: 'https://go.alice.example/everything' })
      const id = res.json().id

      const get = await alice.api.get(`/api/url/${id}`)
      expect(get.statusCode).toBe(200)
      expect(get.json()).toEqual({
        error: 0,
        id,
        details: {
          id,
          shorturl: 'https://go.alice.example/everything',
          longurl: 'https://shop.example/item/42',
          title: 'My title',
          description: 'My note',
          location: { Canada: 'https://shop.example/ca', DE: 'https://shop.example/de' },
          device: { iPhone: 'https://apps.apple.com/app/id1', Android: 'https://play.google.com/store/apps/details?id=x' },
          expiry: '2099-12-31 23:59:59',
          date: expect.stringMatching(TS),
        },
        data: NO_STATS,
      })
      expect(get.body).not.toContain('open sesame')
      expect(get.body).not.toContain('argon2')

      const full = await alice.api.get(`/api/url/${id}?full=1`)
      expect(full.json().details).toEqual({
        ...get.json().details,
        alias: 'everything',
        domain: 'https://go.alice.example',
        type: `splash-${splash.id}`,
        status: 'public',
        privacy: 0,
        password: true,
        disabled: false,
        language: { fr: 'https://shop.example/fr' },
        rotation: [],
        metatitle: 'Meta title',
        metadescription: 'Meta description',
        metaimage: 'https://cdn.example/og.PNG',
        deeplink: { auto: false, apple: 'https://apps.apple.com/app/id1', google: 'https://play.google.com/store/apps/details?id=x' },
        parameters: [{ name: 'utm_source', value: 'kurz' }, { name: 'ref', value: 'newsletter' }],
        pixels: [pixel1.id, pixel2.id],
        channels: [channel.id],
        campaign: campaign.id,
        expiration_url: null,
        expiration_clicks: null,
        uniqueClicks: 0,
        updated: expect.stringMatching(TS),
        // link lifecycle (DECISIONS §10.5): the defaults of a link that set none of it
        redirectstatus: 302,
        cachettl: 0,
        fallback: null,
        aliases: [],
        health: { state: 'unknown', status: null, reason: null, checkedAt: null },
      })
      expect(full.body).not.toContain('open sesame')

      const row = await linkRow(t, id)
      expect(row.passwordHash).toMatch(/^\$argon2id\$/)
      expect(row).toMatchObject({ domainId: domain.id, type: 'splash-page', pageId: splash.id, campaignId: campaign.id, targetType: 1, customAlias: true })
      const targets = await t.app.db.select().from(linkTargets).where(eq(linkTargets.linkId, id))
      expect(targets.map((x) => [x.kind, x.key, x.match, x.position]).sort()).toEqual(
        [
          ['device', 'Android', 'Android', 1],
          ['device', 'iPhone', 'iPhone', 0],
          ['geo', 'Canada', 'CA', 0],
          ['geo', 'DE', 'DE', 1],
          ['language', 'fr', 'fr', 0],
        ].sort(),
      )
      const items = await t.app.db.select().from(channelItems).where(eq(channelItems.itemId, id))
      expect(items.map((i) => [i.channelId, i.itemType])).toEqual([[channel.id, 'links']])
    })

    it('title and description default to metatitle and metadescription', async () => {
      const { id } = await create(alice, { url: 'https://example.com/meta', metatitle: 'From meta', metadescription: 'Meta desc' })
      const res = await alice.api.get(`/api/url/${id}`)
      expect(res.json().details).toMatchObject({ title: 'From meta', description: 'Meta desc' })
    })

    it('accepts splash-<id>, overlay-<id>, a bare overlay id, frame and splash', async () => {
      const splash = await makePage(t, alice.user.id, 'splash')
      const overlay = await makePage(t, alice.user.id, 'overlay')
      const cases: [unknown, string, number | null][] = [
        ['frame', 'frame', null],
        ['splash', 'splash', null],
        ['direct', 'direct', null],
        [`splash-${splash.id}`, 'splash-page', splash.id],
        [`overlay-${overlay.id}`, 'overlay', overlay.id],
        [String(overlay.id), 'overlay', overlay.id],
        [overlay.id, 'overlay', overlay.id],
      ]
      for (const [type, stored, pageId] of cases) {
        const { id } = await create(alice, { url: 'https://example.com/typed', type })
        expect(await linkRow(t, id)).toMatchObject({ type: stored, pageId })
      }
    })

    it('derives app links with deeplink.auto for known hosts', async () => {
      const { id } = await create(alice, { url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ', deeplink: { auto: true } })
      expect((await linkRow(t, id)).deepLink).toEqual({
        auto: true,
        apple: 'youtube://www.youtube.com/watch?v=dQw4w9WgXcQ',
        google:
          'intent://www.youtube.com/watch?v=dQw4w9WgXcQ#Intent;scheme=https;package=com.google.android.youtube;S.browser_fallback_url=https%3A%2F%2Fwww.youtube.com%2Fwatch%3Fv%3DdQw4w9WgXcQ;end',
      })
      const spotify = await create(alice, { url: 'https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC', deeplink: { auto: true } })
      expect((await linkRow(t, spotify.id)).deepLink?.apple).toBe('spotify:track:4uLU6hMCjMI75M1A2tKUQC')
      const unknown = await create(alice, { url: 'https://example.com/x', deeplink: { auto: true } })
      expect((await linkRow(t, unknown.id)).deepLink).toEqual({ auto: true, apple: null, google: null })
      // explicit app links win over derived ones
      const explicit = await create(alice, { url: 'https://x.com/jack/status/20', deeplink: { auto: 'true', apple: 'https://apps.apple.com/app/x' } })
      expect((await linkRow(t, explicit.id)).deepLink).toMatchObject({ auto: true, apple: 'https://apps.apple.com/app/x', google: expect.stringMatching(/^intent:\/\/x\.com\/jack\/status\/20#Intent;.*package=com\.twitter\.android;/) })
    })

    it('accepts app deep-link schemes and v1 platform names', async () => {
      const { id } = await create(alice, {
        url: 'tg://resolve?domain=kurz',
        devicetarget: [
          { device: 'iOS', link: 'spotify:track:1' },
          { device: 'OS X', link: 'https://example.com/mac' },
        ],
      })
      expect(await linkRow(t, id)).toMatchObject({ url: 'tg://resolve?domain=kurz', targetType: 2 })
      const rows = await t.app.db.select().from(linkTargets).where(eq(linkTargets.linkId, id))
      expect(rows.map((r) => [r.key, r.match])).toEqual([
        ['iOS', 'iOS'],
        ['OS X', 'Mac'],
      ])
    })

    it('reads "", null and false as absent, ignores unknown fields and mass assignment', async () => {
      const res = await alice.api.post('/api/url/add', {
        url: 'https://example.com/blank',
        custom: '',
        type: null,
        password: false,
        domain: '',
        expiry: null,
        geotarget: false,
        metaimage: '',
        pixels: null,
        channel: '',
        campaign: false,
        deeplink: null,
        parameters: '',
        status: null,
        clicks: 999,
        user_id: bob.user.id,
        userId: bob.user.id,
        id: 1,
        admin: true,
        whatever: { nested: true },
      })
      expect(res.statusCode).toBe(200)
      expect(res.json().shorturl).toMatch(/^http:\/\/kurz\.test\/[0-9A-Za-z]{6}$/)
      expect(await linkRow(t, res.json().id)).toMatchObject({ userId: alice.user.id, clicks: 0, passwordHash: null, privacy: 1, type: 'direct' })
      expect(res.json().id).not.toBe(1)
    })

    it('refuses a body that is not JSON, a JSON array, and a wrong content type', async () => {
      expectError(await alice.api.post('/api/url/add', '{"url": ', { 'content-type': 'application/json' }), 400, /JSON/)
      expectError(await alice.api.post('/api/url/add', [{ url: 'https://example.com' }]), 400)
      expectError(await alice.api.post('/api/url/add', 'url=https://example.com', { 'content-type': 'application/x-www-form-urlencoded' }), 415)
    })
  })

  describe('GET /api/url/:id', () => {
    it('shows statistics from the click pipeline', async () => {
      const { id } = await create(alice, { url: 'https://example.com/stats' })
      t.app.clicks.record({ linkId: id, userId: alice.user.id, source: 'link', visitor: visitor() })
      t.app.clicks.record({ linkId: id, userId: alice.user.id, source: 'link', visitor: visitor({ ip: '1.1.1.1', referrer: '' }) })
      t.app.clicks.record({ linkId: id, userId: alice.user.id, source: 'link', visitor: visitor({ isBot: true, userAgent: 'Googlebot/2.1' }) })
      await t.app.clicks.flush()
      const res = await alice.api.get(`/api/url/${id}`)
      expect(res.statusCode).toBe(200)
      expect(res.json().data).toEqual({
        clicks: 2,
        uniqueClicks: 2,
        topCountries: expect.any(Object),
        topReferrers: { 'facebook.com': '1', Direct: '1' },
        topBrowsers: { Chrome: '2' },
        topOs: { Windows: '2' },
        socialCount: { facebook: 1, twitter: 0, google: 0 },
        botClicks: 1,
      })
      const list = await alice.api.get('/api/urls?q=example.com/stats')
      expect(list.json().data.urls).toEqual([expect.objectContaining({ id, clicks: 2 })])
    })

    it('answers 404 for another account\'s link, an unknown id and a malformed id', async () => {
      const { id } = await create(alice, { url: 'https://example.com/private' })
      expectError(await bob.api.get(`/api/url/${id}`), 404, /not found/i)
      for (const bad of ['999999', '0', '-1', 'abc', '1.5', '2147483648', '99999999999']) {
        expectError(await alice.api.get(`/api/url/${bad}`), 404)
      }
    })

    it('needs a key', async () => {
      expectError(await t.api().get('/api/url/1'), 401)
      expectError(await t.api('x'.repeat(32)).get('/api/urls'), 401)
    })
  })

  describe('GET /api/urls', () => {
    let carol: TestUser
    const ids: Record<string, number> = {}

    beforeAll(async () => {
      carol = await t.makeUser()
      const specs: [string, Record<string, unknown>][] = [
        ['percent', { url: 'https://example.com/100%25-off', custom: 'percent', title: '100% off' }],
        ['underscore', { url: 'https://example.com/a_b', custom: 'under_score', metatitle: 'snake_case rules' }],
        ['quote', { url: 'https://example.com/quote', custom: 'quote', title: "O'Reilly" }],
        ['backslash', { url: 'https://example.com/bs', custom: 'backslash', title: 'C:\\path' }],
        ['plain', { url: 'https://EXAMPLE.org/Plain', custom: 'Plain1', description: 'A Described link' }],
      ]
      for (const [name, body] of specs) ids[name] = (await create(carol, body)).id
    })

    it('lists the caller\'s links newest first in the list form', async () => {
      const res = await carol.api.get('/api/urls')
      expect(res.statusCode).toBe(200)
      const body = res.json()
      expect(body).toEqual({
        error: '0',
        data: {
          result: 5,
          perpage: 15,
          currentpage: 1,
          nextpage: 1,
          maxpage: 1,
          urls: [
            { id: ids.plain, alias: 'Plain1', shorturl: 'http://kurz.test/Plain1', longurl: 'https://EXAMPLE.org/Plain', clicks: 0, title: '', description: 'A Described link', date: expect.stringMatching(TS) },
            { id: ids.backslash, alias: 'backslash', shorturl: 'http://kurz.test/backslash', longurl: 'https://example.com/bs', clicks: 0, title: 'C:\\path', description: '', date: expect.stringMatching(TS) },
            { id: ids.quote, alias: 'quote', shorturl: 'http://kurz.test/quote', longurl: 'https://example.com/quote', clicks: 0, title: "O'Reilly", description: '', date: expect.stringMatching(TS) },
            { id: ids.underscore, alias: 'under_score', shorturl: 'http://kurz.test/under_score', longurl: 'https://example.com/a_b', clicks: 0, title: 'snake_case rules', description: '', date: expect.stringMatching(TS) },
            { id: ids.percent, alias: 'percent', shorturl: 'http://kurz.test/percent', longurl: 'https://example.com/100%25-off', clicks: 0, title: '100% off', description: '', date: expect.stringMatching(TS) },
          ],
        },
      })
      // nobody else's links
      expect((await bob.api.get('/api/urls')).json().data.urls.map((u: { id: number }) => u.id)).not.toContain(ids.plain)
    })

    it('pages with limit and page; a page past the end is an empty list echoing the page', async () => {
      const p2 = (await carol.api.get('/api/urls?limit=2&page=2')).json()
      expect(p2.data).toEqual({ result: 5, perpage: 2, currentpage: 2, nextpage: 3, maxpage: 3, urls: [expect.objectContaining({ id: ids.quote }), expect.objectContaining({ id: ids.underscore })] })
      const p3 = (await carol.api.get('/api/urls?limit=2&page=3')).json()
      expect(p3.data).toMatchObject({ result: 5, currentpage: 3, nextpage: 3, maxpage: 3, urls: [expect.objectContaining({ id: ids.percent })] })
      const past = await carol.api.get('/api/urls?limit=2&page=9')
      expect(past.statusCode).toBe(200)
      expect(past.json()).toEqual({ error: '0', data: { result: 5, perpage: 2, currentpage: 9, nextpage: 3, maxpage: 3, urls: [] } })
      expect((await carol.api.get('/api/urls?limit=1000000')).json().data.perpage).toBe(1000)
    })

    it('orders by clicks with order=click', async () => {
      await t.app.db.update(links).set({ clicks: 7 }).where(eq(links.id, ids.quote))
      await t.app.db.update(links).set({ clicks: 3 }).where(eq(links.id, ids.percent))
      const res = (await carol.api.get('/api/urls?order=click')).json()
      expect(res.data.urls.map((u: { id: number; clicks: number }) => [u.id, u.clicks])).toEqual([
        [ids.quote, 7],
        [ids.percent, 3],
        [ids.plain, 0],
        [ids.backslash, 0],
        [ids.underscore, 0],
      ])
      // a later page of the same order
      const p2 = (await carol.api.get('/api/urls?order=click&limit=2&page=2')).json()
      expect(p2.data).toMatchObject({ result: 5, urls: [expect.objectContaining({ id: ids.plain }), expect.objectContaining({ id: ids.backslash })] })
      const byDate = (await carol.api.get('/api/urls?order=date')).json()
      expect(byDate.data.urls[0].id).toBe(ids.plain)
    })

    it.each([
      ['%', ['percent']],
      ['100%', ['percent']],
      ['_', ['underscore']],
      ["'", ['quote']],
      ['\\', ['backslash']],
      ['c:\\PATH', ['backslash']],
      ['SNAKE', ['underscore']],
      ['example.org/plain', ['plain']],
      ['described', ['plain']],
      ['plain1', ['plain']],
      ['nothing-like-this', []],
    ])('q=%j searches alias, long URL, title and description literally and case-insensitively', async (q, names) => {
      const res = await carol.api.get(`/api/urls?q=${encodeURIComponent(q)}`)
      expect(res.statusCode).toBe(200)
      expect(res.json().data.result).toBe(names.length)
      expect(res.json().data.urls.map((u: { id: number }) => u.id).sort()).toEqual(names.map((n) => ids[n]).sort())
    })

    describe('short=', () => {
      it('finds a link by full short URL, host/alias, or bare alias, as the single form with error "0"', async () => {
        const expected = {
          error: '0',
          id: ids.quote,
          details: {
            id: ids.quote,
            shorturl: 'http://kurz.test/quote',
            longurl: 'https://example.com/quote',
            title: "O'Reilly",
            description: '',
            location: {},
            device: {},
            expiry: null,
            date: expect.stringMatching(TS),
          },
          data: { ...NO_STATS, clicks: 7 },
        }
        for (const short of ['http://kurz.test/quote', 'https://KURZ.test/quote', 'kurz.test/quote', 'quote', 'http://kurz.test/quote+', 'http://kurz.test/quote/']) {
          const res = await carol.api.get(`/api/urls?short=${encodeURIComponent(short)}&limit=abc&order=nonsense`)
          expect(res.statusCode, short).toBe(200)
          expect(res.json()).toEqual(expected)
        }
      })

      it('finds links on the caller\'s branded domains', async () => {
        await makeDomain(t, carol.user.id, 'https://carol.example')
        const { id } = await create(carol, { url: 'https://example.com/branded', custom: 'quote', domain: 'carol.example' })
        for (const short of ['https://carol.example/quote', 'carol.example/quote', 'CAROL.EXAMPLE/quote']) {
          const res = await carol.api.get(`/api/urls?short=${encodeURIComponent(short)}`)
          expect(res.json().id, short).toBe(id)
          expect(res.json().details.shorturl).toBe('https://carol.example/quote')
        }
        // a bare alias prefers the default domain
        expect((await carol.api.get('/api/urls?short=quote')).json().id).toBe(ids.quote)
      })

      it('answers 404 for an unknown alias, another account\'s link, or a host that is not the caller\'s', async () => {
        for (const short of ['nope', 'http://kurz.test/nope', 'http://other.example/quote', 'https://carol.example/percent', '%%%', 'http://kurz.test/a/b']) {
          expectError(await carol.api.get(`/api/urls?short=${encodeURIComponent(short)}`), 404)
        }
        expectError(await bob.api.get('/api/urls?short=quote'), 404)
        expectError(await bob.api.get('/api/urls?short=https%3A%2F%2Fcarol.example%2Fquote'), 404)
      })
    })

    it.each([
      ['limit=0', /^limit /],
      ['limit=-1', /^limit /],
      ['limit=abc', /^limit /],
      ['limit=1.5', /^limit /],
      ['page=0', /^page /],
      ['page=-3', /^page /],
      ['page=x', /^page /],
      ['order=id;DROP%20TABLE%20links', /^order: must be date or click/],
      ['order=title', /^order: /],
      ['q=a&q=b', /^q must be given once, not as a list\.$/],
      [`q=${'x'.repeat(300)}`, /^q: /],
      ['short=a&short=b', /^short must be given once, not as a list\.$/],
    ])('refuses %s with 400 naming the parameter', async (query, message) => {
      expectError(await carol.api.get(`/api/urls?${query}`), 400, message)
      expect((await linkRowCounts(t)).links).toBeGreaterThan(0)
    })
  })

  describe('PUT /api/url/:id/update', () => {
    it('changes the fields sent, keeps the others, and answers short', async () => {
      const pixel = await makePixel(t, alice.user.id)
      const channel = await makeChannel(t, alice.user.id)
      const { id } = await create(alice, {
        url: 'https://example.com/before',
        custom: 'upd-me',
        description: 'kept note',
        metatitle: 'Old meta',
        password: 'pw',
        geotarget: [{ location: 'US', link: 'https://example.com/us' }],
        devicetarget: [{ device: 'Mac', link: 'https://example.com/mac' }],
        pixels: [pixel.id],
        channel: channel.id,
        status: 'public',
      })
      const res = await alice.api.put(`/api/url/${id}/update`, {
        url: 'https://example.com/after',
        geotarget: [{ location: 'France', link: 'https://example.com/fr' }],
        metatitle: 'New meta',
        description: 'ignored on update',
        status: 'private',
      })
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({ error: 0, id, short: 'http://kurz.test/upd-me' })
      const get = (await alice.api.get(`/api/url/${id}?full=1`)).json().details
      expect(get).toMatchObject({
        longurl: 'https://example.com/after',
        title: 'New meta', // title followed metatitle, which it defaulted to
        description: 'kept note',
        location: { France: 'https://example.com/fr' },
        device: { Mac: 'https://example.com/mac' },
        password: true,
        status: 'public',
        pixels: [pixel.id],
        channels: [channel.id],
        metatitle: 'New meta',
      })
    })

    it('clears fields sent as "", null or false, except custom and domain', async () => {
      const domain = await makeDomain(t, alice.user.id, 'https://clear.alice.example')
      const pixel = await makePixel(t, alice.user.id)
      const channel = await makeChannel(t, alice.user.id)
      const campaign = await makeCampaign(t, alice.user.id)
      const { id } = await create(alice, {
        url: 'https://example.com/full',
        custom: 'clear-me',
        domain: domain.domain,
        type: 'frame',
        password: 'pw',
        expiry: '2099-01-01 00:00:00',
        geotarget: [{ location: 'US', link: 'https://example.com/us' }],
        devicetarget: [{ device: 'Mac', link: 'https://example.com/mac' }],
        languagetarget: [{ language: 'en', link: 'https://example.com/en' }],
        metatitle: 'M',
        metadescription: 'MD',
        metaimage: 'https://cdn.example/i.jpg',
        title: 'T',
        pixels: [pixel.id],
        channel: channel.id,
        campaign: campaign.id,
        deeplink: { apple: 'https://apps.apple.com/x' },
        parameters: [{ name: 'a', value: 'b' }],
      })
      const res = await alice.api.put(`/api/url/${id}/update`, {
        url: 'https://example.com/full',
        custom: '',
        domain: '',
        type: '',
        password: null,
        expiry: false,
        geotarget: [],
        devicetarget: null,
        languagetarget: '',
        metatitle: '',
        metadescription: null,
        metaimage: false,
        title: null,
        pixels: [],
        channel: null,
        campaign: '',
        deeplink: null,
        parameters: null,
      })
      expect(res.json()).toEqual({ error: 0, id, short: 'https://clear.alice.example/clear-me' })
      const details = (await alice.api.get(`/api/url/${id}?full=1`)).json().details
      expect(details).toMatchObject({
        shorturl: 'https://clear.alice.example/clear-me',
        title: '',
        location: {},
        device: {},
        language: {},
        expiry: null,
        type: 'direct',
        password: false,
        metatitle: '',
        metadescription: '',
        metaimage: '',
        pixels: [],
        channels: [],
        campaign: null,
        deeplink: { auto: false, apple: null, google: null },
        parameters: [],
      })
      expect(await linkRow(t, id)).toMatchObject({ targetType: 0, passwordHash: null, deepLink: null })
    })

    it('changes the alias, moves domains, and refuses an alias taken there with 409', async () => {
      const domain = await makeDomain(t, alice.user.id, 'https://move.alice.example')
      const a = await create(alice, { url: 'https://example.com/1', custom: 'move-a' })
      await create(alice, { url: 'https://example.com/2', custom: 'move-b' })
      await create(alice, { url: 'https://example.com/3', custom: 'move-b', domain: 'move.alice.example' })
      expect((await alice.api.put(`/api/url/${a.id}/update`, { url: 'https://example.com/1', custom: 'move-c' })).json()).toEqual({
        error: 0,
        id: a.id,
        short: 'http://kurz.test/move-c',
      })
      expectError(await alice.api.put(`/api/url/${a.id}/update`, { url: 'https://example.com/changed', custom: 'move-b' }), 409, /^custom: /)
      expect(await linkRow(t, a.id)).toMatchObject({ alias: 'move-c', url: 'https://example.com/1' })
      expectError(await alice.api.put(`/api/url/${a.id}/update`, { url: 'https://example.com/1', custom: 'move-b', domain: domain.domain }), 409, /^custom: /)
      const moved = await alice.api.put(`/api/url/${a.id}/update`, { url: 'https://example.com/1', domain: 'https://move.alice.example' })
      expect(moved.json()).toEqual({ error: 0, id: a.id, short: 'https://move.alice.example/move-c' })
      // the default domain's URL moves it back
      const back = await alice.api.put(`/api/url/${a.id}/update`, { url: 'https://example.com/1', domain: 'http://kurz.test' })
      expect(back.json().short).toBe('http://kurz.test/move-c')
    })

    it('requires url; a past expiry is allowed on update', async () => {
      const { id } = await create(alice, { url: 'https://example.com/req' })
      expectError(await alice.api.put(`/api/url/${id}/update`, { title: 'x' }), 400, /^url: /)
      expectError(await alice.api.put(`/api/url/${id}/update`, {}), 400, /^url: /)
      const res = await alice.api.put(`/api/url/${id}/update`, { url: 'https://example.com/req', expiry: '2001-01-01 00:00:00' })
      expect(res.statusCode).toBe(200)
      expect((await linkRow(t, id)).expiresAt?.toISOString()).toBe('2001-01-01T00:00:00.000Z')
    })

    it('answers 404 for another account\'s link and leaves it unchanged', async () => {
      const { id } = await create(alice, { url: 'https://example.com/mine', custom: 'alice-only' })
      const before = await linkRow(t, id)
      expectError(await bob.api.put(`/api/url/${id}/update`, { url: 'https://evil.example/' }), 404)
      expectError(await bob.api.put(`/api/url/${id}/update`, { url: 'https://evil.example/', custom: 'stolen' }), 404)
      expectError(await alice.api.put('/api/url/0/update', { url: 'https://example.com' }), 404)
      expectError(await alice.api.put('/api/url/abc/update', { url: 'https://example.com' }), 404)
      expect(await linkRow(t, id)).toEqual(before)
    })

    it('invalidates the redirect cache', async () => {
      const { id } = await create(alice, { url: 'https://example.com/cached', custom: 'cached-link' })
      expect((await t.app.linkCache.byAlias(null, 'cached-link'))?.url).toBe('https://example.com/cached')
      await alice.api.put(`/api/url/${id}/update`, { url: 'https://example.com/fresh' })
      expect((await t.app.linkCache.byAlias(null, 'cached-link'))?.url).toBe('https://example.com/fresh')
      await alice.api.del(`/api/url/${id}/delete`)
      expect(await t.app.linkCache.byAlias(null, 'cached-link')).toBeNull()
    })
  })

  describe('DELETE /api/url/:id/delete', () => {
    it('deletes the link, its clicks, targets, pixels and channel items', async () => {
      const pixel = await makePixel(t, alice.user.id)
      const channel = await makeChannel(t, alice.user.id)
      const { id } = await create(alice, {
        url: 'https://example.com/doomed',
        pixels: [pixel.id],
        channel: channel.id,
        geotarget: [{ location: 'US', link: 'https://example.com/us' }],
      })
      // a QR code in the same channel with the same item id must survive
      await t.app.db.insert(channelItems).values({ channelId: channel.id, itemType: 'qr', itemId: id })
      t.app.clicks.record({ linkId: id, userId: alice.user.id, source: 'link', visitor: visitor() })
      await t.app.clicks.flush()
      expect((await t.app.db.select().from(clicks).where(eq(clicks.linkId, id))).length).toBe(1)

      const res = await alice.api.del(`/api/url/${id}/delete`)
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({ error: 0, message: 'Link has been deleted successfully.' })
      expect(await linkRow(t, id)).toBeUndefined()
      expect(await t.app.db.select().from(clicks).where(eq(clicks.linkId, id))).toEqual([])
      expect(await t.app.db.select().from(linkTargets).where(eq(linkTargets.linkId, id))).toEqual([])
      expect(await t.app.db.select().from(linkPixels).where(eq(linkPixels.linkId, id))).toEqual([])
      expect(await t.app.db.select().from(channelItems).where(and(eq(channelItems.itemId, id), eq(channelItems.itemType, 'links')))).toEqual([])
      expect(await t.app.db.select().from(channelItems).where(and(eq(channelItems.itemId, id), eq(channelItems.itemType, 'qr')))).toHaveLength(1)
      expectError(await alice.api.get(`/api/url/${id}`), 404)
      expectError(await alice.api.del(`/api/url/${id}/delete`), 404)
    })

    it('answers 404 for another account\'s link and deletes nothing', async () => {
      const { id } = await create(alice, { url: 'https://example.com/keep' })
      const before = await linkRowCounts(t)
      expectError(await bob.api.del(`/api/url/${id}/delete`), 404, /not found/i)
      expectError(await alice.api.del('/api/url/2147483648/delete'), 404)
      expect(await linkRowCounts(t)).toEqual(before)
      expect(await linkRow(t, id)).toBeDefined()
    })

    it('takes an empty JSON body', async () => {
      const { id } = await create(alice, { url: 'https://example.com/emptybody' })
      const res = await t.app.inject({ method: 'DELETE', url: `/api/url/${id}/delete`, headers: { authorization: `Bearer ${alice.key}`, 'content-type': 'application/json' }, payload: '' })
      expect(res.json()).toEqual({ error: 0, message: 'Link has been deleted successfully.' })
    })
  })
})
