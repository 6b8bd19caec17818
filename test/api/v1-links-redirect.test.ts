import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testApp, type TestApp, type TestUser } from '../helpers/app.js'

// The short links v1 writes are the ones visitors follow: every targeting kind, the click cap,
// expiry, disabling, passwords and stats privacy, checked through GET /:alias.

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }
const form = (pairs: [string, string | number][]) => pairs.map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`).join('&')

const UA = {
  iOS: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1',
  iPhone: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1',
  iPad: 'Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1',
  Android: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.144 Mobile Safari/537.36',
  Windows: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
  'OS X': 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Safari/605.1.15',
  Linux: 'Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0',
  Ubuntu: 'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0',
  'Chrome OS': 'Mozilla/5.0 (X11; CrOS x86_64 15633.69.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.6045.212 Safari/537.36',
}

describe('v1 links as visitors see them', () => {
  let t: TestApp
  let a: TestUser
  let n = 0

  const create = async (pairs: [string, string | number][]) => {
    const res = await a.api.post('/api/v1/links', form([['alias', `visit${++n}`], ...pairs]), FORM)
    expect(res.statusCode).toBe(201)
    return res.json().data as { id: number; alias: string; [k: string]: unknown }
  }
  const visit = (alias: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: `/${alias}`, headers: { 'user-agent': UA.Windows, ...headers } })
  const v1 = async (id: number) => (await a.api.get(`/api/v1/links/${id}`)).json().data

  beforeAll(async () => {
    t = await testApp({ TRUST_PROXY: 'true' })
    a = await t.makeUser({ plan: 'pro' })
  })
  afterAll(() => t.close())

  it('a plain v1 link redirects to its URL', async () => {
    const link = await create([['url', 'https://example.com/plain']])
    const res = await visit(link.alias)
    expect(res.statusCode).toBe(302)
    expect(res.headers.location).toBe('https://example.com/plain')
  })

  it('platform targets send each of the seven platforms where v1 said', async () => {
    const names = ['iOS', 'Android', 'Windows', 'OS X', 'Linux', 'Chrome OS'] as const
    const pairs: [string, string][] = [['url', 'https://example.com/fallback'], ['target_type', '2']]
    names.forEach((p, i) => pairs.push([`platform[${i}][key]`, p], [`platform[${i}][value]`, `https://${p.replace(' ', '').toLowerCase()}.example/`]))
    const link = await create(pairs)
    for (const p of names) {
      const res = await visit(link.alias, { 'user-agent': UA[p] })
      expect([p, res.statusCode, res.headers.location]).toEqual([p, 302, `https://${p.replace(' ', '').toLowerCase()}.example/`])
    }
    // iOS covers the iPad too; Ubuntu is a Linux
    expect((await visit(link.alias, { 'user-agent': UA.iPad })).headers.location).toBe('https://ios.example/')
    expect((await visit(link.alias, { 'user-agent': UA.Ubuntu })).headers.location).toBe('https://linux.example/')
    // no platform matched: the long URL
    expect((await visit(link.alias, { 'user-agent': 'curl/8.5.0' })).headers.location).toBe('https://example.com/fallback')

    // all seven on one link: an Ubuntu visitor prefers the Ubuntu target, other Linux visitors get Linux
    const seven = ['iOS', 'Android', 'Windows', 'OS X', 'Linux', 'Ubuntu', 'Chrome OS'] as const
    const all: [string, string][] = [['url', 'https://example.com/fallback'], ['target_type', '2']]
    seven.forEach((p, i) => all.push([`platform[${i}][key]`, p], [`platform[${i}][value]`, `https://${p.replace(' ', '').toLowerCase()}.example/`]))
    const full = await create(all)
    for (const p of seven) {
      const res = await visit(full.alias, { 'user-agent': UA[p] })
      expect([p, res.statusCode, res.headers.location]).toEqual([p, 302, `https://${p.replace(' ', '').toLowerCase()}.example/`])
    }

    // the seventh name, Ubuntu, on a link of its own
    const ubuntu = await create([['url', 'https://example.com/fallback'], ['target_type', '2'], ['platform[0][key]', 'Ubuntu'], ['platform[0][value]', 'https://ubuntu.example/']])
    expect((await visit(ubuntu.alias, { 'user-agent': UA.Ubuntu })).headers.location).toBe('https://ubuntu.example/')
    expect((await visit(ubuntu.alias, { 'user-agent': UA.Windows })).headers.location).toBe('https://example.com/fallback')
  })

  it('geographic targets follow the visitor’s country (X-Forwarded-For with TRUST_PROXY)', async () => {
    const link = await create([
      ['url', 'https://example.com/world'],
      ['target_type', '1'],
      ['country[0][key]', 'US'],
      ['country[0][value]', 'https://us.example/'],
      ['country[1][key]', 'FR'],
      ['country[1][value]', 'https://fr.example/'],
    ])
    expect((await visit(link.alias, { 'x-forwarded-for': '8.8.8.8' })).headers.location).toBe('https://us.example/')
    expect((await visit(link.alias, { 'x-forwarded-for': '2.2.2.2' })).headers.location).toBe('https://fr.example/')
    expect((await visit(link.alias, { 'x-forwarded-for': '81.2.69.142' })).headers.location).toBe('https://example.com/world')
    expect((await visit(link.alias, { 'x-forwarded-for': '10.0.0.1' })).headers.location).toBe('https://example.com/world')
  })

  it('language targets follow the first language of Accept-Language', async () => {
    const link = await create([
      ['url', 'https://example.com/any'],
      ['target_type', '3'],
      ['language[0][key]', 'de'],
      ['language[0][value]', 'https://de.example/'],
    ])
    expect((await visit(link.alias, { 'accept-language': 'de-DE,de;q=0.9,en;q=0.8' })).headers.location).toBe('https://de.example/')
    expect((await visit(link.alias, { 'accept-language': 'en-US,de;q=0.5' })).headers.location).toBe('https://example.com/any')
  })

  it('rotation targets are served in turn, round-robin, remembered in last_rotation', async () => {
    const link = await create([
      ['url', 'https://example.com/rot'],
      ['target_type', '4'],
      ['rotation[0][value]', 'https://r1.example/'],
      ['rotation[1][value]', 'https://r2.example/'],
      ['rotation[2][value]', 'https://r3.example/'],
    ])
    const served: string[] = []
    for (let i = 0; i < 4; i++) {
      served.push(String((await visit(link.alias)).headers.location))
      await t.app.clicks.flush()
    }
    expect(served).toEqual(['https://r1.example/', 'https://r2.example/', 'https://r3.example/', 'https://r1.example/'])
    expect(await v1(link.id)).toMatchObject({ last_rotation: 1, clicks: 4 })
  })

  it('expiration_clicks: after the cap, visitors go to expiration_url (or get a 410); status 2 lists it', async () => {
    const link = await create([['url', 'https://example.com/capped'], ['expiration_clicks', '2'], ['expiration_url', 'https://over.example/']])
    for (let i = 0; i < 2; i++) {
      expect((await visit(link.alias)).headers.location).toBe('https://example.com/capped')
      await t.app.clicks.flush()
    }
    const over = await visit(link.alias)
    expect(over.statusCode).toBe(302)
    expect(over.headers.location).toBe('https://over.example/')
    expect(await v1(link.id)).toMatchObject({ clicks: 2, expiration_clicks: 2 })
    const expired = await a.api.get(`/api/v1/links?status=2&search=${link.alias}&by=alias`)
    expect(expired.json().data.map((l: { id: number }) => l.id)).toEqual([link.id])
    const active = await a.api.get(`/api/v1/links?status=1&search=${link.alias}&by=alias`)
    expect(active.json().data).toEqual([])

    const bare = await create([['url', 'https://example.com/capped'], ['expiration_clicks', '1']])
    await visit(bare.alias)
    await t.app.clicks.flush()
    expect((await visit(bare.alias)).statusCode).toBe(410)
  })

  it('an end date moved into the past expires the link; clearing it brings the link back', async () => {
    const link = await create([['url', 'https://example.com/dated'], ['expiration_date', '2099-01-01'], ['expiration_url', 'https://ended.example/']])
    expect((await visit(link.alias)).headers.location).toBe('https://example.com/dated')
    const moved = await a.api.put(`/api/v1/links/${link.id}`, form([['expiration_date', '2001-01-01']]), FORM)
    expect(moved.json().data.ends_at).toBe('2001-01-01 00:00:00')
    expect((await visit(link.alias)).headers.location).toBe('https://ended.example/')
    await a.api.put(`/api/v1/links/${link.id}`, form([['expiration_date', '']]), FORM)
    expect((await visit(link.alias)).headers.location).toBe('https://example.com/dated')
  })

  it('disabled → 404 at once; enabled again → redirects again', async () => {
    const link = await create([['url', 'https://example.com/toggle']])
    expect((await visit(link.alias)).statusCode).toBe(302)
    await a.api.put(`/api/v1/links/${link.id}`, form([['disabled', '1']]), FORM)
    expect((await visit(link.alias)).statusCode).toBe(404)
    await a.api.put(`/api/v1/links/${link.id}`, form([['disabled', '0']]), FORM)
    expect((await visit(link.alias)).statusCode).toBe(302)
    const created = await create([['url', 'https://example.com/off'], ['disabled', '1']])
    expect((await visit(created.alias)).statusCode).toBe(404)
  })

  it('a password set through v1 guards the link; deleting through v1 removes it from the web', async () => {
    const link = await create([['url', 'https://example.com/secret'], ['password', 'open-sesame']])
    const res = await visit(link.alias)
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toMatch(/text\/html/)
    expect(res.body).toContain('name="password"')
    expect(res.body).not.toContain('https://example.com/secret')
    const ok = await t.app.inject({ method: 'POST', url: `/${link.alias}`, payload: 'password=open-sesame', headers: FORM })
    expect(ok.statusCode).toBe(302)
    expect(ok.headers.location).toBe('https://example.com/secret')
    expect((await a.api.del(`/links/${link.id}/destroy`)).statusCode).toBe(200)
    expect((await visit(link.alias)).statusCode).toBe(404)
  })

  it('privacy governs the statistics page: 0 public, 1 private (404), 2 password form; disabled is a 404', async () => {
    const pub = await create([['url', 'https://example.com/s'], ['privacy', '0']])
    expect((await visit(`${pub.alias}+`)).statusCode).toBe(200)
    const priv = await create([['url', 'https://example.com/s'], ['privacy', '1']])
    expect((await visit(`${priv.alias}+`)).statusCode).toBe(404)
    const pw = await create([['url', 'https://example.com/s'], ['privacy', '2'], ['privacy_password', 'stats-pass']])
    const form2 = await visit(`${pw.alias}+`)
    expect(form2.statusCode).toBe(200)
    expect(form2.body).toContain('name="password"')
    const wrong = await t.app.inject({ method: 'POST', url: `/${pw.alias}+`, payload: 'password=nope', headers: FORM })
    expect(wrong.statusCode).toBe(401)
    // a disabled link is answered as missing, its statistics page too; enabled again, it is back
    await a.api.put(`/api/v1/links/${pub.id}`, form([['disabled', '1']]), FORM)
    expect((await visit(`${pub.alias}+`)).statusCode).toBe(404)
    await a.api.put(`/api/v1/links/${pub.id}`, form([['disabled', '0']]), FORM)
    expect((await visit(`${pub.alias}+`)).statusCode).toBe(200)
  })

  it('a link on a branded domain answers on that host', async () => {
    const domainId = (await a.api.post('/api/domain/add', { domain: 'https://go.example' })).json().id
    const link = await create([['url', 'https://example.com/branded'], ['domain', domainId]])
    expect(link.short_url).toBe(`https://go.example/${link.alias}`)
    const res = await t.app.inject({ method: 'GET', url: `/${link.alias}`, headers: { host: 'go.example', 'user-agent': UA.Windows } })
    expect(res.statusCode).toBe(302)
    expect(res.headers.location).toBe('https://example.com/branded')
    // not on the default host
    expect((await visit(link.alias)).statusCode).toBe(404)
  })
})
