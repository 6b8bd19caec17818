import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config.js'
import { KEY_GUESSES } from '../../src/http/auth.js'
import { QR_RENDERS_PER_MINUTE } from '../../src/resources/qr/public.js'
import { cookiesOf, expectError, testApp, type TestApp, type TestUser } from '../helpers/app.js'
import { addLink, makeChannel } from '../helpers/fixtures.js'
import { visit } from '../helpers/visits.js'

/* Issue 13 item 9: the smaller findings, one block each. */

describe('API-key guessing', () => {
  let t: TestApp
  let u: TestUser
  beforeAll(async () => {
    t = await testApp()
    u = await t.makeUser()
  })
  afterAll(() => t.close())

  const withKey = (key: string, ip: string) =>
    t.app.inject({ method: 'GET', url: '/api/account', remoteAddress: ip, headers: { authorization: `Bearer ${key}` } })

  it(`after ${KEY_GUESSES} wrong keys from one address, its wrong keys get 429; its right keys and other addresses are unaffected`, async () => {
    const ip = '203.0.113.40'
    for (let i = 0; i < KEY_GUESSES; i++) expectError(await withKey(`wrong-key-${i}-xxxxxxxxxxxxxxxxxxxxxx`, ip), 401)
    const blocked = await withKey('wrong-key-last-xxxxxxxxxxxxxxxxxxxxx', ip)
    expectError(blocked, 429, /Too many wrong API keys/)
    expect(blocked.headers['retry-after']).toBe('600')
    // the v1 interface shares the count
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/links', remoteAddress: ip, headers: { authorization: 'Bearer another-wrong-key-xxxxxxxxxxxxx' } })).statusCode).toBe(429)
    // another address with the right key is served
    expect((await withKey(u.key, '203.0.113.41')).statusCode).toBe(200)
    // and so is the right key from the spent address (a stale client behind the same NAT locks out no one)
    expect((await withKey(u.key, ip)).statusCode).toBe(200)
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/links', remoteAddress: ip, headers: { authorization: `Bearer ${u.key}` } })).statusCode).toBe(200)
    expectError(await withKey('wrong-key-again-xxxxxxxxxxxxxxxxxxxx', ip), 429)
  })

  it('right keys do not count', async () => {
    const ip = '203.0.113.42'
    for (let i = 0; i < KEY_GUESSES + 5; i++) expect((await withKey(u.key, ip)).statusCode).toBe(200)
    expectError(await withKey('wrong-key-once-xxxxxxxxxxxxxxxxxxxxx', ip), 401)
  })
})

describe('ADMIN_API_KEY', () => {
  it('is refused under 16 characters, and taken from 16', () => {
    expect(() => loadConfig({ ADMIN_API_KEY: 'x' })).toThrow(/ADMIN_API_KEY must be 16 to 256 visible ASCII characters/)
    expect(() => loadConfig({ ADMIN_API_KEY: 'k'.repeat(15) })).toThrow(/ADMIN_API_KEY/)
    expect(loadConfig({ ADMIN_API_KEY: 'k'.repeat(16) }).admin.apiKey).toBe('k'.repeat(16))
  })
})

describe('smaller findings over HTTP', () => {
  let t: TestApp
  let u: TestUser
  beforeAll(async () => {
    t = await testApp()
    u = await t.makeUser({ plan: 'pro' })
  })
  afterAll(() => t.close())

  it('/API/urls, /api%2Furls and /API answer the JSON 404 of the interfaces, not a page', async () => {
    for (const url of ['/API/urls', '/api%2Furls', '/Api%2fUrls?x=1', '/API']) {
      const res = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${u.key}`, host: 'kurz.test' } })
      expect(res.statusCode, url).toBe(404)
      expect(res.headers['content-type'], url).toMatch(/^application\/json/)
      expect(res.json(), url).toMatchObject({ error: 1 })
    }
  })

  it('a path id with a leading zero names no object', async () => {
    const id = await addLink(u, { url: 'https://example.com/zero' })
    expect((await u.api.get(`/api/url/${id}`)).statusCode).toBe(200)
    expectError(await u.api.get(`/api/url/0${id}`), 404)
    expectError(await u.api.get(`/api/url/00${id}`), 404)
  })

  it('link create takes a channel id as a JSON integer only: "2" is a 400 naming channel', async () => {
    const channel = await makeChannel(t, u.user.id)
    expectError(await u.api.post('/api/url/add', { url: 'https://example.com/ch', channel: String(channel.id) }), 400, /channel/)
    expect((await u.api.post('/api/url/add', { url: 'https://example.com/ch', channel: channel.id })).statusCode).toBe(200)
  })
})

describe('the link-unlock cookie behind a TLS-terminating proxy', () => {
  let t: TestApp
  let u: TestUser
  beforeAll(async () => {
    t = await testApp({ PUBLIC_URL: 'https://kurz.test' })
    u = await t.makeUser({ plan: 'pro' })
  })
  afterAll(() => t.close())

  it('is Secure when PUBLIC_URL is https, though the request reached Kurz over http', async () => {
    await addLink(u, { url: 'https://example.com/locked', custom: 'locked', password: 'open sesame' })
    const res = await visit(t, '/locked', { form: { password: 'open sesame' } })
    expect(res.statusCode).toBe(302)
    expect(String(res.headers['set-cookie'])).toMatch(/^kurz_pw_\d+=[^;]+;.*; Secure/)
  })
})

describe('/login from another site', () => {
  let t: TestApp
  let u: TestUser
  beforeAll(async () => {
    t = await testApp()
    u = await t.makeUser({ password: 'correct horse' })
  })
  afterAll(() => t.close())

  const post = (form: Record<string, string>, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url: '/login', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, payload: new URLSearchParams(form).toString() })

  it('a cross-site post is refused (Origin or Sec-Fetch-Site), even with the right password', async () => {
    const right = { email: u.user.email, password: 'correct horse' }
    const byOrigin = await post(right, { origin: 'https://evil.example' })
    expect(byOrigin.statusCode).toBe(403)
    expect(byOrigin.headers['set-cookie'] ?? '').not.toMatch(/kurz_session/)
    expect((await post(right, { origin: 'null' })).statusCode).toBe(403)
    expect((await post(right, { 'sec-fetch-site': 'cross-site' })).statusCode).toBe(403)
    // the same post from the service's own origin signs in
    expect((await post(right, { origin: 'http://kurz.test', 'sec-fetch-site': 'same-origin' })).statusCode).toBe(302)
  })

  it('the form carries a token bound to a login cookie: a wrong or foreign token is refused, the right one signs in', async () => {
    const form = await t.app.inject({ method: 'GET', url: '/login' })
    const token = /name="csrf" value="([0-9a-f]{64})"/.exec(form.body)?.[1]
    expect(token).toBeDefined()
    const cookie = cookiesOf(form)
    expect(cookie).toMatch(/^kurz_login=/)
    const right = { email: u.user.email, password: 'correct horse' }
    expect((await post({ ...right, csrf: token! }, { cookie: 'kurz_login=AAAAAAAAAAAAAAAAAAAAAAAA' })).statusCode).toBe(403)
    expect((await post({ ...right, csrf: 'f'.repeat(64) }, { cookie })).statusCode).toBe(403)
    expect((await post({ ...right, csrf: token! })).statusCode).toBe(403)
    expect((await post({ ...right, csrf: token! }, { cookie })).statusCode).toBe(302)
  })
})

describe('QR images with a new colour each time', () => {
  let t: TestApp
  let u: TestUser
  beforeAll(async () => {
    t = await testApp()
    u = await t.makeUser({ plan: 'pro' })
    await addLink(u, { url: 'https://example.com/qr', custom: 'qrflood' })
  })
  afterAll(() => t.close())

  // the render cache lives as long as the process: colours of this run's own
  const base = Math.floor(Math.random() * 0xff0000)
  const image = (i: number, ip: string) =>
    t.app.inject({ method: 'GET', url: `/qrflood/qr?size=64&foreground=%23${(base + i).toString(16).padStart(6, '0')}`, remoteAddress: ip, headers: { host: 'kurz.test' } })

  it(`are drawn at most ${QR_RENDERS_PER_MINUTE} a minute per address; cached images and other addresses are still served`, async () => {
    const ip = '198.51.100.90'
    for (let i = 0; i < QR_RENDERS_PER_MINUTE; i++) expect((await image(i, ip)).statusCode).toBe(200)
    const refused = await image(QR_RENDERS_PER_MINUTE, ip)
    expect(refused.statusCode).toBe(429)
    expect(refused.headers['retry-after']).toBe('60')
    // an image already drawn costs nothing, so it is still served
    const again = await image(0, ip)
    expect(again.statusCode).toBe(200)
    expect(again.headers['content-type']).toBe('image/png')
    expect((await image(QR_RENDERS_PER_MINUTE, '198.51.100.91')).statusCode).toBe(200)
  })

  it('the same colour spelled differently is one cached image (#ABC, #aabbcc, rgb(170,187,204))', async () => {
    const ip = '198.51.100.92'
    const spell = (c: string) => t.app.inject({ method: 'GET', url: `/qrflood/qr?size=65&background=${encodeURIComponent(c)}`, remoteAddress: ip, headers: { host: 'kurz.test' } })
    const etags = new Set<string>()
    for (const c of ['#ABC', '#aabbcc', 'rgb(170, 187, 204)']) etags.add(String((await spell(c)).headers.etag))
    expect(etags.size).toBe(1)
  })
})
