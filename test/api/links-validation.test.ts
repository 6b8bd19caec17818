import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appWith, expectError, type TestApp, type TestUser } from '../helpers/app.js'
import { linkRow, linkRowCounts, makeCampaign, makeChannel, makeDomain, makePage, makePixel } from '../helpers/fixtures.js'

/*
 * Link input validation: every bad value is a 4xx whose message names the field, so a caller
 * knows what to fix, and nothing is written (a refused request must leave no partial link).
 */

const U = 'https://example.com/ok'
const KIB8 = 8192

describe('links: input validation', () => {
  let t: TestApp
  let alice: TestUser
  let bob: TestUser
  const other: Record<string, number> = {}
  const own: Record<string, number> = {}

  beforeAll(async () => {
    [t, alice, bob] = await appWith({}, {})
    // Bob's objects: never attachable to Alice's links
    await makeDomain(t, bob.user.id, 'https://go.bob.example')
    other.pixel = (await makePixel(t, bob.user.id)).id
    other.channel = (await makeChannel(t, bob.user.id)).id
    other.campaign = (await makeCampaign(t, bob.user.id)).id
    other.splash = (await makePage(t, bob.user.id, 'splash')).id
    other.overlay = (await makePage(t, bob.user.id, 'overlay')).id
    own.splash = (await makePage(t, alice.user.id, 'splash')).id
    own.overlay = (await makePage(t, alice.user.id, 'overlay')).id
    await makeDomain(t, alice.user.id, 'https://go.alice.example')
    // an existing link for the duplicate-alias and update cases
    const res = await alice.api.post('/api/url/add', { url: U, custom: 'taken' })
    expect(res.statusCode).toBe(200)
  })
  afterAll(() => t.close())

  type Case = [name: string, body: () => Record<string, unknown>, status: number, message: RegExp]

  const url = (u: unknown): Case => [`url ${JSON.stringify(u).slice(0, 60)}`, () => ({ url: u }), 400, /^url: /]
  const field = (name: string, value: () => unknown, message: RegExp, status = 400): Case => [
    `${name} ${String(JSON.stringify(value()) ?? value()).slice(0, 60)}`,
    () => ({ url: U, [name]: value() }),
    status,
    message,
  ]

  const createCases: Case[] = [
    ['no url', () => ({}), 400, /^url: /],
    ['no url, other fields', () => ({ custom: 'abcdef' }), 400, /^url: /],
    url(''),
    url('   '),
    url(123),
    url(['https://example.com']),
    url({ href: 'https://example.com' }),
    url(true),
    url('javascript:alert(1)'),
    url('JaVaScRiPt:alert(1)'),
    url('%6Aavascript:alert(1)'),
    url(' javascript:alert(1)'),
    url('\tjavascript:alert(1)'),
    url('\u0001javascript:alert(1)'),
    url('\u0000https://example.com'),
    url('java\nscript:alert(1)'),
    url('data:text/html,<script>alert(1)</script>'),
    url('DATA:text/html;base64,PHNjcmlwdD4='),
    url('vbscript:msgbox(1)'),
    url('file:///etc/passwd'),
    url('blob:https://example.com/uuid'),
    url('about:blank'),
    url('/relative/path'),
    url('relative/path'),
    url('example.com'),
    url('//evil.com'),
    url('http:/x'),
    url('http:x'),
    url('https://'),
    url('https:// example.com'),
    url('https://user:pass@example.com/'),
    url('https://user@example.com/'),
    url(`https://example.com/${'a'.repeat(KIB8 - 'https://example.com/'.length + 1)}`),
    // self-loops in disguise: the PUBLIC_URL host and any branded domain, whoever owns it
    url('http://kurz.test/abc'),
    url('https://KURZ.TEST/abc'),
    url('http://kurz.test./abc'),
    url('http://www.kurz.test/abc'),
    url('http://WWW.Kurz.Test.:8080/abc'),
    url('https://go.bob.example/x'),
    url('http://www.go.bob.example./x'),
    url('https://GO.ALICE.EXAMPLE/x'),
    ['self-loop in a geotarget', () => ({ url: U, geotarget: [{ location: 'US', link: 'https://kurz.test/x' }] }), 400, /^geotarget\.0\.link: .*short link/],
    ['self-loop in a devicetarget', () => ({ url: U, devicetarget: [{ device: 'iPhone', link: 'http://www.go.bob.example/x' }] }), 400, /^devicetarget\.0\.link: .*short link/],
    ['self-loop in a deep link', () => ({ url: U, deeplink: { apple: 'https://kurz.test/x' } }), 400, /^deeplink\.apple: .*short link/],

    field('custom', () => 'ab', /^custom: /),
    field('custom', () => 'a'.repeat(65), /^custom: /),
    field('custom', () => 'api', /^custom: .*reserved/),
    field('custom', () => 'API', /^custom: .*reserved/),
    field('custom', () => 'sso', /^custom: .*reserved/),
    field('custom', () => 'qr', /^custom: .*reserved/),
    field('custom', () => 'healthz', /^custom: .*reserved/),
    field('custom', () => 'readyz', /^custom: .*reserved/),
    field('custom', () => 'dashboard', /^custom: .*reserved/),
    field('custom', () => 'links', /^custom: .*reserved/),
    field('custom', () => 'favicon.ico', /^custom: .*reserved/),
    field('custom', () => 'robots.txt', /^custom: .*reserved/),
    field('custom', () => 'docs', /^custom: .*reserved/),
    field('custom', () => 'metrics', /^custom: .*reserved/),
    field('custom', () => 'abc+', /^custom: .*\+/),
    field('custom', () => 'héllo', /^custom: /),
    field('custom', () => '日本語のエイリアス', /^custom: /),
    field('custom', () => '../etc', /^custom: /),
    field('custom', () => 'a%2Fb', /^custom: /),
    field('custom', () => 'a/b/c', /^custom: /),
    field('custom', () => 'has space', /^custom: /),
    field('custom', () => ' padded ', /^custom: /),
    field('custom', () => 'dot.ted', /^custom: /),
    field('custom', () => 12345, /^custom: must be a string/),
    field('custom', () => 'taken', /^custom: .*taken/, 409),

    field('type', () => 'popup', /^type: /),
    field('type', () => 'splash-', /^type: /),
    field('type', () => 'overlay-abc', /^type: /),
    field('type', () => '-1', /^type: /),
    field('type', () => '0', /^type: /),
    field('type', () => true, /^type: /),
    field('type', () => 999999, /^type: .*not one of your/),
    field('type', () => String(other.splash), /^type: .*not one of your/),
    field('type', () => `overlay-${other.overlay}`, /^type: .*not one of your/),
    field('type', () => `splash-${own.overlay}`, /^type: .*overlay/),
    field('type', () => `overlay-${own.splash}`, /^type: .*splash page/),

    field('password', () => 123456, /^password: must be a string/),
    field('password', () => 'x'.repeat(1025), /^password: /),

    field('domain', () => 'https://unknown.example', /^domain: .*not one of your/),
    field('domain', () => 'go.bob.example', /^domain: .*not one of your/),
    field('domain', () => 'https://go.bob.example', /^domain: .*not one of your/),
    field('domain', () => 'https://go.alice.example/path', /^domain: /),
    field('domain', () => 'javascript:alert(1)', /^domain: /),
    field('domain', () => 42, /^domain: must be a string/),

    field('expiry', () => '2000-01-01 00:00:00', /^expiry: .*future/),
    field('expiry', () => new Date(Date.now() - 60_000).toISOString(), /^expiry: .*future/),
    field('expiry', () => 'tomorrow', /^expiry: /),
    field('expiry', () => '2030-02-30 00:00:00', /^expiry: /),
    field('expiry', () => '2030-13-01 00:00:00', /^expiry: /),
    field('expiry', () => '2030-12-31 24:00:00', /^expiry: /),
    field('expiry', () => '31/12/2030', /^expiry: /),
    field('expiry', () => '10000-01-01 00:00:00', /^expiry: /),
    field('expiry', () => 20301231, /^expiry: /),

    field('geotarget', () => [{ location: 'Narnia', link: 'https://example.com/n' }], /^geotarget\.0: .*Narnia.*not a known country/),
    field('geotarget', () => [{ location: 'ZZ', link: 'https://example.com/n' }], /^geotarget\.0: .*not a known country/),
    field('geotarget', () => [{ location: 'US', link: 'javascript:alert(1)' }], /^geotarget\.0\.link: /),
    field('geotarget', () => [{ location: 'US', link: '' }], /^geotarget\.0\.link: /),
    field('geotarget', () => [{ location: 'US' }], /^geotarget\.0\.link: /),
    field('geotarget', () => [{ link: 'https://example.com' }], /^geotarget\.0\.location: /),
    field('geotarget', () => [{ location: 5, link: 'https://example.com' }], /^geotarget\.0\.location: /),
    field('geotarget', () => ['US'], /^geotarget\.0: /),
    field('geotarget', () => 'US', /^geotarget: /),
    field('geotarget', () => ({ location: 'US', link: 'https://example.com' }), /^geotarget: /),
    field('geotarget', () => [{ location: 'US', link: 'https://a.example' }, { location: 'United States', link: 'https://b.example' }], /^geotarget\.1: .*twice/),
    field('geotarget', () => Array.from({ length: 101 }, () => ({ location: 'US', link: 'https://a.example' })), /^geotarget: /),
    field('devicetarget', () => [{ device: 'Nokia', link: 'https://example.com/n' }], /^devicetarget\.0: .*not a known device/),
    field('devicetarget', () => [{ device: 'iPhone', link: 'https://a.example' }, { device: 'iphone', link: 'https://b.example' }], /^devicetarget\.1: .*twice/),
    field('devicetarget', () => [{ device: 'iPhone', link: 'file:///x' }], /^devicetarget\.0\.link: /),
    field('languagetarget', () => [{ language: 'xx', link: 'https://example.com/x' }], /^languagetarget\.0: .*not a known language/),
    field('languagetarget', () => [{ language: 'en', link: 'vbscript:x' }], /^languagetarget\.0\.link: /),

    field('metatitle', () => 'x'.repeat(256), /^metatitle: .*255/),
    field('metatitle', () => 'bell\u0007', /^metatitle: .*control/),
    field('metatitle', () => 7, /^metatitle: must be a string/),
    field('metadescription', () => 'x'.repeat(2001), /^metadescription: .*2000/),
    field('title', () => 'x'.repeat(256), /^title: .*255/),
    field('description', () => 'x'.repeat(2001), /^description: .*2000/),
    field('description', () => ['a'], /^description: must be a string/),
    field('metaimage', () => 'https://cdn.example/i.gif', /^metaimage: .*jpg/),
    field('metaimage', () => 'https://cdn.example/png', /^metaimage: .*jpg/),
    field('metaimage', () => 'https://cdn.example/i.svg?x=.png', /^metaimage: .*jpg/),
    field('metaimage', () => 'javascript:alert(1)//.png', /^metaimage: /),
    field('metaimage', () => 'ftp://cdn.example/i.png', /^metaimage: /),
    field('metaimage', () => 'data:image/png;base64,iVBORw0KGgo=', /^metaimage: /),
    field('metaimage', () => '/relative/i.png', /^metaimage: /),

    field('pixels', () => [other.pixel], /^pixels: .*not one of your pixels/),
    field('pixels', () => [999999], /^pixels: .*not one of your pixels/),
    field('pixels', () => ['abc'], /^pixels\.0 must be an integer id\.$/),
    field('pixels', () => [0], /^pixels\.0 must be a positive id\.$/),
    field('pixels', () => [-1], /^pixels\.0 must be a positive id\.$/),
    field('pixels', () => [1.5], /^pixels\.0 must be an integer id\.$/),
    field('pixels', () => 'x', /^pixels: /),
    field('pixels', () => ({ 0: 1 }), /^pixels: /),
    field('channel', () => other.channel, /^channel: .*not one of your channels/),
    field('channel', () => 999999, /^channel: .*not one of your channels/),
    field('channel', () => 'abc', /^channel /),
    field('channel', () => 1.5, /^channel /),
    field('channel', () => [1], /^channel /),
    field('campaign', () => other.campaign, /^campaign: .*not one of your campaigns/),
    field('campaign', () => 999999, /^campaign: .*not one of your campaigns/),
    field('campaign', () => 2 ** 31, /^campaign /),
    // JSON types are strict on the management interface (DECISIONS §2): a numeric string is not an id or a number
    field('campaign', () => '1', /^campaign must be an integer id\.$/),
    field('channel', () => '1', /^channel must be an integer id\.$/),
    field('pixels', () => ['1'], /^pixels\.0 must be an integer id\.$/),
    field('redirectstatus', () => '308', /^redirectstatus: must be 301, 302, 307 or 308\.$/),
    field('cachettl', () => '60', /^cachettl: must be a whole number of seconds/),

    field('deeplink', () => ({ apple: 'javascript:alert(1)' }), /^deeplink\.apple: /),
    field('deeplink', () => ({ google: 'data:text/html,x' }), /^deeplink\.google: /),
    field('deeplink', () => ({ auto: 'maybe' }), /^deeplink\.auto /),
    field('deeplink', () => 'yes', /^deeplink: /),
    field('status', () => 'secret', /^status: must be public or private/),
    field('status', () => 1, /^status: /),
    field('parameters', () => [{ name: '', value: 'x' }], /^parameters\.0\.name: /),
    field('parameters', () => [{ name: 'a' }], /^parameters\.0\.value: /),
    field('parameters', () => [{ name: 'a', value: 1 }], /^parameters\.0\.value: /),
    field('parameters', () => [{ foo: 'bar' }], /^parameters\.0\.name: /),
    field('parameters', () => ['a=b'], /^parameters\.0: /),
    field('parameters', () => [{ name: 'a\r\nb', value: 'x' }], /^parameters\.0\.name: must not contain control characters such as tabs or line breaks\.$/),
    field('parameters', () => 'a=b', /^parameters: /),
    field('parameters', () => Array.from({ length: 101 }, (_, i) => ({ name: `p${i}`, value: 'v' })), /^parameters: /),
  ]

  it.each(createCases)('POST /api/url/add refuses %s, naming the field, and writes nothing', async (_name, body, status, message) => {
    const before = await linkRowCounts(t)
    expectError(await alice.api.post('/api/url/add', body()), status, message)
    expect(await linkRowCounts(t)).toEqual(before)
  })

  it.each([
    ['an 8 KiB URL', `https://example.com/${'a'.repeat(KIB8 - 'https://example.com/'.length)}`],
    ['a URL with a query and fragment', 'https://example.com/p?q=1&r=%20#frag'],
    ['an IDN host', 'https://bücher.example/straße'],
    ['a punycode host', 'https://xn--bcher-kva.example/'],
    ['an IP host', 'http://203.0.113.7:8080/x'],
    ['tg:', 'tg://resolve?domain=kurz'],
    ['spotify:', 'spotify:track:4uLU6hMCjMI75M1A2tKUQC'],
    ['mailto:', 'mailto:someone@example.com'],
    ['a host that merely contains the service host', 'https://kurz.test.evil.example/x'],
    ['a host that ends with the service host', 'https://notkurz.test/x'],
  ])('POST /api/url/add accepts %s', async (_name, u) => {
    const res = await alice.api.post('/api/url/add', { url: u })
    expect(res.statusCode, res.body).toBe(200)
    expect((await linkRow(t, res.json().id)).url).toBe(u)
  })

  it.each([
    ['ISO 8601 with Z', '2099-01-01T00:00:00Z', '2099-01-01 00:00:00'],
    ['ISO 8601 with an offset', '2099-01-01T02:00:00+02:00', '2099-01-01 00:00:00'],
    ['the SPEC.md form', '2038-01-19 03:14:08', '2038-01-19 03:14:08'],
    ['the far future', '9999-12-31 23:59:59', '9999-12-31 23:59:59'],
  ])('POST /api/url/add accepts an expiry in %s', async (_name, expiry, shown) => {
    const res = await alice.api.post('/api/url/add', { url: U, expiry })
    expect(res.statusCode, res.body).toBe(200)
    expect((await alice.api.get(`/api/url/${res.json().id}`)).json().details.expiry).toBe(shown)
  })

  it('accepts a 64-character alias and a 3-character one; an alias like a reserved word is fine', async () => {
    for (const custom of ['a'.repeat(64), 'a-_', 'apis', 'qr-code', 'Login2']) {
      const res = await alice.api.post('/api/url/add', { url: U, custom })
      expect(res.statusCode, custom).toBe(200)
    }
  })

  it('refuses a body over 1 MiB with 413 and writes nothing', async () => {
    const before = await linkRowCounts(t)
    const res = await alice.api.post('/api/url/add', JSON.stringify({ url: U, title: 'x'.repeat(1024 * 1024) }), { 'content-type': 'application/json' })
    expectError(res, 413)
    expect(await linkRowCounts(t)).toEqual(before)
  })

  it('ignores __proto__ and constructor keys', async () => {
    const res = await alice.api.post('/api/url/add', '{"url": "https://example.com/proto", "__proto__": {"admin": true, "clicks": 5}, "constructor": {"prototype": {"admin": true}}}', {
      'content-type': 'application/json',
    })
    expect(res.statusCode).toBe(200)
    expect(await linkRow(t, res.json().id)).toMatchObject({ clicks: 0, userId: alice.user.id })
    expect(({} as Record<string, unknown>).admin).toBeUndefined()
  })

  describe('PUT /api/url/:id/update', () => {
    let id: number
    beforeAll(async () => {
      const res = await alice.api.post('/api/url/add', { url: 'https://example.com/target', custom: 'update-me', title: 'Kept' })
      id = res.json().id
    })

    const updateCases = createCases.filter(([name]) => !name.startsWith('description') && !name.startsWith('status') && !name.startsWith('expiry "2000') && !/expiry "\d{4}-\d\d-\d\dT/.test(name) && name !== 'custom "taken"')

    it.each(updateCases)('refuses %s, naming the field, and changes nothing', async (_name, body, status, message) => {
      const before = await linkRow(t, id)
      const counts = await linkRowCounts(t)
      expectError(await alice.api.put(`/api/url/${id}/update`, body()), status, message)
      expect(await linkRow(t, id)).toEqual(before)
      expect(await linkRowCounts(t)).toEqual(counts)
    })

    it('refuses an alias taken on that domain with 409 and changes nothing', async () => {
      const before = await linkRow(t, id)
      expectError(await alice.api.put(`/api/url/${id}/update`, { url: U, custom: 'taken', title: 'changed' }), 409, /^custom: .*taken/)
      expect(await linkRow(t, id)).toEqual(before)
    })
  })
})
