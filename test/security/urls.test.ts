import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appWith, expectError, testApp, type TestApp, type TestUser } from '../helpers/app.js'
import { countRows, linkRow } from '../helpers/fixtures.js'
import { links, qrCodes } from '../../src/db/schema/index.js'

/*
 * Issue 13 item 3: URLs checked as browsers read them. Every URL field of both interfaces (and of
 * QR codes and branded domains) goes through one rule that parses with the WHATWG parser, refuses
 * a URL whose host programs read differently, allows app schemes by name, and compares hosts in
 * their parsed form for the self-link rule.
 */

/** Disguised or script-capable URLs, each refused in every URL field. */
const HOSTILE = [
  ['a backslash before @ (paypal.com or evil.example?)', 'https://paypal.com\\@evil.example/login'],
  ['a backslash hiding this service behind another host', 'http://evil.example\\@kurz.test/abc'],
  ['jar:', 'jar:http://evil.example/x.jar!/'],
  ['feed:javascript:', 'feed:javascript:alert(1)'],
  ['intent: opening javascript', 'intent://x#Intent;scheme=javascript;end'],
  ['an app link wrapping javascript', 'tg:javascript:alert(1)'],
  ['intent: with a javascript fallback', 'intent://x#Intent;scheme=https;S.browser_fallback_url=javascript%3Aalert(1);end'],
] as const
/** http(s)-only fields: the disguised-host cases apply */
const HOSTILE_HTTP = HOSTILE.slice(0, 2)

let domains = 0
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

describe('URLs as browsers read them', () => {
  let t: TestApp
  let alice: TestUser

  beforeAll(async () => {
    ;[t, alice] = await appWith({ plan: 'pro' })
  })
  afterAll(() => t.close())

  const management: [field: string, body: (u: string) => Record<string, unknown>][] = [
    ['url', (u) => ({ url: u })],
    ['geotarget', (u) => ({ url: 'https://example.com/', geotarget: [{ location: 'US', link: u }] })],
    ['devicetarget', (u) => ({ url: 'https://example.com/', devicetarget: [{ device: 'iPhone', link: u }] })],
    ['languagetarget', (u) => ({ url: 'https://example.com/', languagetarget: [{ language: 'fr', link: u }] })],
    ['deeplink.apple', (u) => ({ url: 'https://example.com/', deeplink: { apple: u } })],
    ['deeplink.google', (u) => ({ url: 'https://example.com/', deeplink: { google: u } })],
    ['fallback', (u) => ({ url: 'https://example.com/', fallback: u })],
  ]

  describe.each(HOSTILE)('%s', (_name, hostile) => {
    it.each(management)('management %s: 400 naming the field, nothing written', async (field, body) => {
      const before = await countRows(t, links)
      expectError(await alice.api.post('/api/url/add', body(hostile)), 400, new RegExp(`^${escape(field)}`))
      expect(await countRows(t, links)).toBe(before)
    })

    it.each(management)('management update %s: 400 naming the field', async (field, body) => {
      const id = (await alice.api.post('/api/url/add', { url: 'https://example.com/clean' })).json().id
      const before = await linkRow(t, id)
      expectError(await alice.api.put(`/api/url/${id}/update`, body(hostile)), 400, new RegExp(`^${escape(field)}`))
      expect(await linkRow(t, id)).toEqual(before)
    })

    it.each([
      ['url', { url: hostile }],
      ['expiration_url', { url: 'https://example.com/', expiration_url: hostile }],
      ['country', { url: 'https://example.com/', target_type: '1', 'country[0][key]': 'US', 'country[0][value]': hostile }],
      ['rotation', { url: 'https://example.com/', target_type: '4', 'rotation[0][value]': hostile }],
    ])('v1 %s: 422 naming the field, nothing written', async (field, form) => {
      const before = await countRows(t, links)
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/links',
        headers: { authorization: `Bearer ${alice.key}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        payload: new URLSearchParams(form as Record<string, string>).toString(),
      })
      expect(res.statusCode, res.body).toBe(422)
      expect(Object.keys(res.json().errors).some((k) => k.startsWith(field)), res.body).toBe(true)
      expect(await countRows(t, links)).toBe(before)
    })

    it('QR link data: 400 naming data', async () => {
      const before = await countRows(t, qrCodes)
      expectError(await alice.api.post('/api/qr/add', { type: 'link', data: hostile }), 400, /^data/)
      expect(await countRows(t, qrCodes)).toBe(before)
    })
  })

  describe.each(HOSTILE_HTTP)('http(s)-only fields, %s', (_name, hostile) => {
    it('metaimage', async () => {
      expectError(await alice.api.post('/api/url/add', { url: 'https://example.com/', metaimage: `${hostile}.png` }), 400, /^metaimage/)
    })

    it.each(['redirectroot', 'redirect404'])('domain %s, on add and update', async (field) => {
      const n = ++domains
      expectError(await alice.api.post('/api/domain/add', { domain: `https://go${n}.example`, [field]: hostile }), 400, new RegExp(`^${field}`))
      const id = (await alice.api.post('/api/domain/add', { domain: `https://ok${n}.example` })).json().id
      expectError(await alice.api.put(`/api/domain/${id}/update`, { [field]: hostile }), 400, new RegExp(`^${field}`))
    })
  })

  it.each([
    ['tg:', 'tg://resolve?domain=kurz'],
    ['spotify:', 'spotify:track:4uLU6hMCjMI75M1A2tKUQC'],
    ['mailto:', 'mailto:someone@example.com'],
    ['whatsapp:', 'whatsapp://send?text=hi'],
    ['an intent: link opening https', 'intent://www.youtube.com/watch?v=x#Intent;scheme=https;package=com.google.android.youtube;S.browser_fallback_url=https%3A%2F%2Fwww.youtube.com%2Fwatch%3Fv%3Dx;end'],
    ['an @ in the path', 'https://example.com/@someone'],
    ['a backslash in the query', 'https://example.com/p?q=a\\b'],
  ])('keeps accepting %s, stored as typed', async (_name, u) => {
    const res = await alice.api.post('/api/url/add', { url: u })
    expect(res.statusCode, res.body).toBe(200)
    expect((await linkRow(t, res.json().id)).url).toBe(u)
  })

  it('QR link data that is a short link of this service is refused, however the host is spelled', async () => {
    // through the API, which tells the branded-host set of this instance at once
    expect((await alice.api.post('/api/domain/add', { domain: 'https://go.alice.example' })).statusCode).toBe(200)
    for (const data of ['http://kurz.test/abc', 'HTTP://KURZ.TEST./abc', 'https://www.kurz.test/abc', 'https://go.alice.example/abc']) {
      expectError(await alice.api.post('/api/qr/add', { type: 'link', data }), 400, /^data points at a short link of this service/)
    }
    const ok = await alice.api.post('/api/qr/add', { type: 'link', data: 'https://example.com/abc' })
    expect(ok.statusCode, ok.body).toBe(200)
    expectError(await alice.api.put(`/api/qr/${ok.json().id}/update`, { data: 'http://kurz.test/x' }), 400, /^data points at a short link/)
  })
})

describe('the self-link rule compares hosts as the browser reads them', () => {
  let t: TestApp
  let alice: TestUser

  beforeAll(async () => {
    t = await testApp({ PUBLIC_URL: 'http://127.0.0.1:39999' })
    alice = await t.makeUser({ plan: 'pro' })
  })
  afterAll(() => t.close())

  it.each([
    'http://[::ffff:127.0.0.1]:39999/x',
    'http://[::ffff:7f00:1]:39999/x',
    'http://localhost:39999/x',
    'http://127.0.0.2:39999/x',
    'http://[::1]:39999/x',
    'http://2130706433:39999/x',
    'http://0x7f.1:39999/x',
  ])('%s is a self link', async (u) => {
    expectError(await alice.api.post('/api/url/add', { url: u }), 400, /^url: points at a short link of this service/)
    expectError(await alice.api.post('/api/url/add', { url: 'https://example.com/', geotarget: [{ location: 'DE', link: u }] }), 400, /^geotarget/)
    expectError(await alice.api.post('/api/qr/add', { type: 'link', data: u }), 400, /^data points at a short link/)
  })

  it('another port on the same machine is another server', async () => {
    const res = await alice.api.post('/api/url/add', { url: 'http://127.0.0.1:40000/x' })
    expect(res.statusCode, res.body).toBe(200)
  })
})
