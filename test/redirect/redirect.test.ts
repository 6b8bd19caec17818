import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { clicks } from '../../src/db/schema/index.js'
import { appWith, testApp, type TestApp, type TestUser } from '../helpers/app.js'
import { addLink, addV1Link, insertLink } from '../helpers/fixtures.js'
import { clickRows, counters, expectPage, expectRedirect, visit } from '../helpers/visits.js'
import { UA } from './user-agents.js'

describe('GET /:alias', () => {
  let t: TestApp
  let pro: TestUser

  beforeAll(async () => { [t, pro] = await appWith({ plan: 'pro' }) })
  afterAll(() => t.close())

  describe('direct links', () => {
    it('answers the REDIRECT_STATUS (302) with Location and a private, uncached Cache-Control, and counts the click', async () => {
      const id = await addLink(pro, { url: 'https://example.com/landing', custom: 'direct1' })
      const res = await visit(t, '/direct1', { headers: { 'user-agent': UA.windows } })
      expectRedirect(res, 302, 'https://example.com/landing')
      expect(res.headers['cache-control']).toBe('private, max-age=0')
      expect(res.body).toBe('')
      expect(await counters(t, id)).toEqual({ clicks: 1, uniqueClicks: 1, botClicks: 0, lastRotation: 0 })
    })

    it('answers HEAD like GET without counting it', async () => {
      const id = await addLink(pro, { url: 'https://example.com/head', custom: 'head1' })
      const res = await visit(t, '/head1', { method: 'HEAD' })
      expectRedirect(res, 302, 'https://example.com/head')
      expect(await counters(t, id)).toEqual({ clicks: 0, uniqueClicks: 0, botClicks: 0, lastRotation: 0 })
      expect(await clickRows(t, id)).toBe(0)
    })

    it('serves known bots and records them as bot hits, not clicks', async () => {
      const id = await addLink(pro, { url: 'https://example.com/bots', custom: 'bots1' })
      expectRedirect(await visit(t, '/bots1', { headers: { 'user-agent': UA.googlebot } }), 302, 'https://example.com/bots')
      expectRedirect(await visit(t, '/bots1', { headers: { 'user-agent': UA.bingbot } }), 302, 'https://example.com/bots')
      expectRedirect(await visit(t, '/bots1', { headers: { 'user-agent': UA.iPhone } }), 302, 'https://example.com/bots')
      expect(await counters(t, id)).toEqual({ clicks: 1, uniqueClicks: 1, botClicks: 2, lastRotation: 0 })
    })

    it('matches aliases case-sensitively', async () => {
      await addLink(pro, { url: 'https://example.com/lower', custom: 'CaseA' })
      expectRedirect(await visit(t, '/CaseA'), 302, 'https://example.com/lower')
      expectPage(await visit(t, '/casea'), 404)
    })
  })

  describe('unknown, disabled and expired links', () => {
    it('answers a 404 page for an unknown alias', async () => {
      const res = await visit(t, '/nosuchalias')
      expectPage(res, 404)
      expect(res.body).toContain('Link not found')
    })

    it('answers a 404 page for a disabled link, and does not count it', async () => {
      const id = await addV1Link(t, pro, { url: 'https://example.com/off', alias: 'disabled1', disabled: '1' })
      expectPage(await visit(t, '/disabled1'), 404)
      expect(await counters(t, id)).toEqual({ clicks: 0, uniqueClicks: 0, botClicks: 0, lastRotation: 0 })
    })

    it('answers 410 for a link past its expiry date, and 302 to expiration_url when it has one', async () => {
      const past = new Date(Date.now() - 60_000)
      const a = await insertLink(t, pro.user.id, { alias: 'expired1', url: 'https://example.com/x', expiresAt: past })
      const res = await visit(t, '/expired1')
      expectPage(res, 410)
      expect(res.body).toContain('expired')
      await insertLink(t, pro.user.id, { alias: 'expired2', url: 'https://example.com/x', expiresAt: past, expirationUrl: 'https://example.com/sorry' })
      expectRedirect(await visit(t, '/expired2'), 302, 'https://example.com/sorry')
      expect(await counters(t, a.id)).toEqual({ clicks: 0, uniqueClicks: 0, botClicks: 0, lastRotation: 0 })
    })

    it('expires after expiration_clicks human clicks, counted live while the link is cached', async () => {
      const id = await addV1Link(t, pro, { url: 'https://example.com/limited', alias: 'limited3', expiration_clicks: '3' })
      // bots and HEAD requests do not use up the clicks
      await visit(t, '/limited3', { headers: { 'user-agent': UA.googlebot } })
      await visit(t, '/limited3', { method: 'HEAD' })
      for (let i = 0; i < 3; i++) expectRedirect(await visit(t, '/limited3'), 302, 'https://example.com/limited')
      expectPage(await visit(t, '/limited3'), 410)
      expect(await counters(t, id)).toEqual({ clicks: 3, uniqueClicks: 1, botClicks: 1, lastRotation: 0 })
      expectPage(await visit(t, '/limited3'), 410)
    })

    it('counts one IPv6 visitor once however the address is written', async () => {
      const id = await addLink(pro, { url: 'https://example.com/v6', custom: 'uniq6' })
      for (const ip of ['2001:db8:0:0::1', '2001:db8::1', '2001:DB8::1']) await visit(t, '/uniq6', { remoteAddress: ip })
      await visit(t, '/uniq6', { remoteAddress: '2001:db8::2' })
      expect(await counters(t, id)).toEqual({ clicks: 4, uniqueClicks: 2, botClicks: 0, lastRotation: 0 })
    })

    it('keeps counting right across flushes, cache reloads and concurrent visits', async () => {
      const id = await addV1Link(t, pro, { url: 'https://example.com/capped', alias: 'capped10', expiration_clicks: '10', expiration_url: 'https://example.com/gone' })
      for (let i = 0; i < 4; i++) await visit(t, '/capped10')
      await t.app.clicks.flush()
      await t.app.linkCache.invalidate(id) // reload: 4 in the database
      await visit(t, '/capped10')
      await t.app.linkCache.invalidate(id) // reload with one click still buffered
      const burst = await Promise.all(Array.from({ length: 8 }, () => visit(t, '/capped10')))
      expect(burst.map((r) => r.headers.location).sort()).toEqual([
        ...Array(5).fill('https://example.com/capped'),
        ...Array(3).fill('https://example.com/gone'),
      ])
      expect(await counters(t, id)).toEqual({ clicks: 10, uniqueClicks: 1, botClicks: 0, lastRotation: 0 })
    })

    it('stops answering at once when the link is disabled, updated or deleted through the API', async () => {
      const id = await addLink(pro, { url: 'https://example.com/v1', custom: 'changing' })
      expectRedirect(await visit(t, '/changing'), 302, 'https://example.com/v1')
      expect((await pro.api.put(`/api/url/${id}/update`, { url: 'https://example.com/v2' })).statusCode).toBe(200)
      expectRedirect(await visit(t, '/changing'), 302, 'https://example.com/v2')
      expect((await pro.api.del(`/api/url/${id}/delete`)).statusCode).toBe(200)
      expectPage(await visit(t, '/changing'), 404)
    })
  })

  describe('destination', () => {
    it('sets the link parameters and forwards the visitor query onto a URL with a query and a fragment', async () => {
      await addLink(pro, {
        url: 'https://shop.example/item?id=7&ref=old#reviews',
        custom: 'params1',
        parameters: [{ name: 'utm_source', value: 'kurz' }, { name: 'ref', value: 'link wins' }],
      })
      expectRedirect(await visit(t, '/params1?ref=visitor&color=r%C3%A9d&x=a+b'), 302, 'https://shop.example/item?id=7&color=r%C3%A9d&x=a+b&utm_source=kurz&ref=link+wins#reviews')
      expectRedirect(await visit(t, '/params1'), 302, 'https://shop.example/item?id=7&utm_source=kurz&ref=link+wins#reviews')
    })

    it('never lets CR/LF from the query or the alias into the Location header', async () => {
      await addLink(pro, { url: 'https://example.com/crlf', custom: 'crlf1' })
      const res = await visit(t, '/crlf1?a=%0d%0aSet-Cookie:%20evil=1&b=%0D%0ALocation:%20https://evil.example')
      expectRedirect(res, 302, 'https://example.com/crlf?a=%0d%0aSet-Cookie:%20evil=1&b=%0D%0ALocation:%20https://evil.example')
      expect(res.headers['set-cookie']).toBeUndefined()
      const alias = await visit(t, '/crlf1%0d%0aSet-Cookie:%20evil=1')
      expectPage(alias, 404)
      expect(alias.headers['set-cookie']).toBeUndefined()
      expect(alias.headers.location).toBeUndefined()
    })

    it('sends a correctly encoded Location for a non-ASCII destination', async () => {
      await addLink(pro, { url: 'https://bücher.example/straße?q=café#ü', custom: 'unicode1' })
      expectRedirect(await visit(t, '/unicode1?x=ñ'), 302, 'https://xn--bcher-kva.example/stra%C3%9Fe?q=caf%C3%A9&x=%C3%B1#%C3%BC')
    })

    it('forwards the query onto an app deep-link scheme', async () => {
      await addLink(pro, { url: 'spotify:track:4uLU6hMCjMI75M1A2tKUQC', custom: 'spotify1' })
      expectRedirect(await visit(t, '/spotify1?si=abc'), 302, 'spotify:track:4uLU6hMCjMI75M1A2tKUQC?si=abc')
    })

    it.each([
      ['iPhone', UA.iPhone, 'https://example.com/iphone'],
      ['iPad', UA.iPad, 'https://example.com/ipad'],
      ['Android', UA.android, 'https://example.com/android'],
      ['Windows', UA.windows, 'https://example.com/windows'],
      ['Mac', UA.mac, 'https://example.com/mac'],
      ['Linux', UA.linux, 'https://example.com/linux'],
      ['Chrome OS', UA.chromeOS, 'https://example.com/default'],
      ['no user agent', '', 'https://example.com/default'],
    ])('device targeting: %s', async (_name, ua, location) => {
      if (!(await t.app.linkCache.byAlias(null, 'devices1'))) {
        await addLink(pro, {
          url: 'https://example.com/default',
          custom: 'devices1',
          devicetarget: ['iPhone', 'iPad', 'Android', 'Windows', 'Mac', 'Linux'].map((d) => ({ device: d, link: `https://example.com/${d.toLowerCase()}` })),
        })
      }
      expectRedirect(await visit(t, '/devices1', { headers: ua ? { 'user-agent': ua } : {} }), 302, location)
    })

    it('v1 platform iOS matches iPhone and iPad', async () => {
      await addV1Link(t, pro, { url: 'https://example.com/web', alias: 'platform1', target_type: '2', 'platform[0][key]': 'iOS', 'platform[0][value]': 'https://example.com/ios' })
      expectRedirect(await visit(t, '/platform1', { headers: { 'user-agent': UA.iPhone } }), 302, 'https://example.com/ios')
      expectRedirect(await visit(t, '/platform1', { headers: { 'user-agent': UA.iPad } }), 302, 'https://example.com/ios')
      expectRedirect(await visit(t, '/platform1', { headers: { 'user-agent': UA.android } }), 302, 'https://example.com/web')
    })

    it('deep links: iOS visitors go to apple, Android visitors to google, others to the long URL', async () => {
      await addLink(pro, {
        url: 'https://example.com/app',
        custom: 'deep1',
        deeplink: { apple: 'https://apps.apple.com/app/id123', google: 'https://play.google.com/store/apps/details?id=com.example' },
        devicetarget: [{ device: 'iPhone', link: 'https://example.com/iphone-page' }],
      })
      expectRedirect(await visit(t, '/deep1', { headers: { 'user-agent': UA.iPhone } }), 302, 'https://apps.apple.com/app/id123')
      expectRedirect(await visit(t, '/deep1', { headers: { 'user-agent': UA.iPad } }), 302, 'https://apps.apple.com/app/id123')
      expectRedirect(await visit(t, '/deep1', { headers: { 'user-agent': UA.android } }), 302, 'https://play.google.com/store/apps/details?id=com.example')
      expectRedirect(await visit(t, '/deep1', { headers: { 'user-agent': UA.windows } }), 302, 'https://example.com/app')
    })

    it('language targeting on the first language of Accept-Language', async () => {
      await addLink(pro, {
        url: 'https://example.com/en',
        custom: 'lang1',
        languagetarget: [{ language: 'fr', link: 'https://example.com/fr' }, { language: 'de', link: 'https://example.com/de' }],
      })
      expectRedirect(await visit(t, '/lang1', { headers: { 'accept-language': 'fr-CH, fr;q=0.9, en;q=0.8' } }), 302, 'https://example.com/fr')
      expectRedirect(await visit(t, '/lang1', { headers: { 'accept-language': 'de-DE' } }), 302, 'https://example.com/de')
      // only the first language counts, not the preference list
      expectRedirect(await visit(t, '/lang1', { headers: { 'accept-language': 'en-US, fr;q=0.9' } }), 302, 'https://example.com/en')
      expectRedirect(await visit(t, '/lang1'), 302, 'https://example.com/en')
    })

    it('geo targeting ignores X-Forwarded-For without TRUST_PROXY', async () => {
      await addLink(pro, { url: 'https://example.com/world', custom: 'geo0', geotarget: [{ location: 'United Kingdom', link: 'https://example.com/uk' }] })
      expectRedirect(await visit(t, '/geo0', { headers: { 'x-forwarded-for': '81.2.69.142' } }), 302, 'https://example.com/world')
      expectRedirect(await visit(t, '/geo0', { remoteAddress: '81.2.69.142' }), 302, 'https://example.com/uk')
    })

    it('rotates round-robin and remembers last_rotation', async () => {
      const id = await addV1Link(t, pro, {
        url: 'https://example.com/rot',
        alias: 'rotate1',
        target_type: '4',
        'rotation[0][value]': 'https://example.com/r1',
        'rotation[1][value]': 'https://example.com/r2',
        'rotation[2][value]': 'https://example.com/r3',
      })
      const served = []
      for (let i = 0; i < 4; i++) served.push((await visit(t, '/rotate1')).headers.location)
      expect(served).toEqual(['https://example.com/r1', 'https://example.com/r2', 'https://example.com/r3', 'https://example.com/r1'])
      expect(await counters(t, id)).toEqual({ clicks: 4, uniqueClicks: 1, botClicks: 0, lastRotation: 1 })
      await t.app.linkCache.invalidate(id)
      expect((await visit(t, '/rotate1')).headers.location).toBe('https://example.com/r2')
    })
  })

  describe('social crawlers', () => {
    it('get an Open Graph page for a link with meta fields, counted as a bot hit', async () => {
      const id = await addLink(pro, {
        url: 'https://example.com/article',
        custom: 'meta1',
        metatitle: 'A great article',
        metadescription: 'Read all about it',
        metaimage: 'https://cdn.example/cover.png',
      })
      for (const ua of [UA.facebook, UA.twitter, UA.linkedin, UA.slack, UA.whatsapp, UA.discord, UA.telegram]) {
        const res = await visit(t, '/meta1', { headers: { 'user-agent': ua } })
        expectPage(res, 200)
        expect(res.body).toContain('<meta property="og:title" content="A great article">')
        expect(res.body).toContain('<meta property="og:description" content="Read all about it">')
        expect(res.body).toContain('<meta property="og:image" content="https://cdn.example/cover.png">')
        expect(res.body).toContain('<meta property="og:url" content="http://kurz.test/meta1">')
        expect(res.body).toContain('<meta name="twitter:card" content="summary_large_image">')
        expect(res.body).toContain('<meta name="twitter:title" content="A great article">')
      }
      expectRedirect(await visit(t, '/meta1', { headers: { 'user-agent': UA.mac } }), 302, 'https://example.com/article')
      expect(await counters(t, id)).toEqual({ clicks: 1, uniqueClicks: 1, botClicks: 7, lastRotation: 0 })
    })

    it('are redirected like anyone else when the link has no meta fields', async () => {
      await addLink(pro, { url: 'https://example.com/plain', custom: 'nometa1' })
      expectRedirect(await visit(t, '/nometa1', { headers: { 'user-agent': UA.facebook } }), 302, 'https://example.com/plain')
    })
  })

  describe('hosts', () => {
    let domainA: number

    beforeAll(async () => {
      const a = await pro.api.post('/api/domain/add', { domain: 'https://go.brand-a.test', redirectroot: 'https://brand-a.test/home', redirect404: 'https://brand-a.test/missing' })
      const b = await pro.api.post('/api/domain/add', { domain: 'https://go.brand-b.test' })
      expect([a.statusCode, b.statusCode]).toEqual([200, 200])
      domainA = a.json().id
      await addLink(pro, { url: 'https://example.com/on-a', custom: 'branded1', domain: 'go.brand-a.test' })
      await addLink(pro, { url: 'https://example.com/on-default', custom: 'default1' })
    })

    it('serves a branded link on its domain (Host matched lower-case) only', async () => {
      expectRedirect(await visit(t, '/branded1', { host: 'go.brand-a.test' }), 302, 'https://example.com/on-a')
      expectRedirect(await visit(t, '/branded1', { host: 'GO.Brand-A.test' }), 302, 'https://example.com/on-a')
      expectPage(await visit(t, '/branded1', { host: 'go.brand-b.test' }), 404)
      expectPage(await visit(t, '/branded1', { host: 'kurz.test' }), 404)
    })

    it('does not serve a default-domain link on a branded domain', async () => {
      expectRedirect(await visit(t, '/default1', { host: 'kurz.test' }), 302, 'https://example.com/on-default')
      expectRedirect(await visit(t, '/default1', { host: 'go.brand-a.test' }), 302, 'https://brand-a.test/missing')
      expectPage(await visit(t, '/default1', { host: 'go.brand-b.test' }), 404)
    })

    it('sends an unknown alias on a branded domain to its redirect404 with a 302', async () => {
      expectRedirect(await visit(t, '/nothing-here', { host: 'go.brand-a.test' }), 302, 'https://brand-a.test/missing')
    })

    it('sends the root of a branded domain to its redirectroot, else the home page', async () => {
      expectRedirect(await visit(t, '/', { host: 'go.brand-a.test' }), 302, 'https://brand-a.test/home')
      const b = await visit(t, '/', { host: 'go.brand-b.test' })
      expectPage(b, 200)
      expect(b.body).toContain('Kurz')
      expectPage(await visit(t, '/', { host: 'kurz.test' }), 200)
    })

    it('follows domain changes and moves links to the default domain when their domain is deleted', async () => {
      expect((await pro.api.put(`/api/domain/${domainA}/update`, { redirectroot: 'https://brand-a.test/new-home' })).statusCode).toBe(200)
      expectRedirect(await visit(t, '/', { host: 'go.brand-a.test' }), 302, 'https://brand-a.test/new-home')
      expect((await pro.api.del(`/api/domain/${domainA}/delete`)).statusCode).toBe(200)
      expectRedirect(await visit(t, '/branded1', { host: 'kurz.test' }), 302, 'https://example.com/on-a')
      expectRedirect(await visit(t, '/branded1', { host: 'localhost' }), 302, 'https://example.com/on-a')
    })
  })
})

describe('GET /:alias behind a proxy (TRUST_PROXY)', () => {
  let t: TestApp
  let pro: TestUser

  beforeAll(async () => {
    t = await testApp({ TRUST_PROXY: 'true', REDIRECT_STATUS: '301' })
    pro = await t.makeUser({ plan: 'pro' })
    await addLink(pro, {
      url: 'https://example.com/world',
      custom: 'geo1',
      geotarget: [
        { location: 'United Kingdom', link: 'https://example.com/uk' },
        { location: 'US', link: 'https://example.com/us' },
        { location: 'Germany', link: 'https://example.com/de' },
      ],
    })
  })
  afterAll(() => t.close())

  it.each([
    ['81.2.69.142', 'https://example.com/uk'],
    ['8.8.8.8', 'https://example.com/us'],
    ['2a00:1450:4001::1', 'https://example.com/de'],
    ['81.2.69.142, 10.0.0.1', 'https://example.com/uk'],
    ['10.0.0.1', 'https://example.com/world'],
    ['::1', 'https://example.com/world'],
  ])('X-Forwarded-For %s → %s with the configured REDIRECT_STATUS', async (xff, location) => {
    expectRedirect(await visit(t, '/geo1', { headers: { 'x-forwarded-for': xff } }), 301, location)
  })

  it('uses 302 for everything that is not a direct answer, whatever REDIRECT_STATUS says', async () => {
    await insertLink(t, pro.user.id, { alias: 'gone301', expiresAt: new Date(Date.now() - 1000), expirationUrl: 'https://example.com/expired' })
    expectRedirect(await visit(t, '/gone301'), 302, 'https://example.com/expired')
  })

  it('stores the country of the forwarded address and never the address itself', async () => {
    const id = await addLink(pro, { url: 'https://example.com/ip', custom: 'noip1' })
    await visit(t, '/noip1', { headers: { 'x-forwarded-for': '81.2.69.142', 'user-agent': UA.iPhone, referer: 'https://www.facebook.com/some/post' } })
    await t.app.clicks.flush()
    const [row] = await t.app.db.select().from(clicks).where(eq(clicks.linkId, id))
    expect(row).toEqual({
      id: expect.any(Number),
      linkId: id,
      qrId: null,
      source: 'link',
      createdAt: expect.any(Date),
      country: 'GB',
      referrer: 'facebook.com',
      browser: 'Mobile Safari',
      os: 'iOS',
      device: 'mobile',
      language: null,
      bot: false,
      visitorHash: expect.stringMatching(/^[0-9a-f]{32}$/),
    })
    expect(JSON.stringify(row)).not.toContain('81.2.69.142')
  })
})
