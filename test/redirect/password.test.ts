import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appWith, cookiesOf, type TestApp, type TestUser } from '../helpers/app.js'
import { unlockCookieName, unlockValue } from '../../src/redirect/unlock.js'
import { addLink, addV1Link, insertLink } from '../helpers/fixtures.js'
import { counters, expectPage, expectRedirect, visit } from '../helpers/visits.js'

describe('password-protected links', () => {
  let t: TestApp
  let pro: TestUser
  let idA: number
  let idB: number

  beforeAll(async () => {
    [t, pro] = await appWith({ plan: 'pro' })
    idA = await addLink(pro, { url: 'https://example.com/secret-a?x=1', custom: 'secretA', password: 'open sesame' })
    idB = await addLink(pro, { url: 'https://example.com/secret-b', custom: 'secretB', password: 'open sesame' })
  })
  afterAll(() => t.close())

  it('GET and HEAD show the form (200), never the destination, and count nothing', async () => {
    const res = await visit(t, '/secretA?utm=1')
    expectPage(res, 200)
    expect(res.headers.location).toBeUndefined()
    expect(res.body).toContain('<form method="post" action="/secretA?utm=1">')
    expect(res.body).toContain('name="password"')
    expect(res.body).not.toContain('example.com/secret-a')
    // a right answer redirects off-site: the form may lead there (CSP form-action covers redirects), nothing else changes
    expect(res.headers['content-security-policy']).toContain("form-action 'self' https:;")
    const head = await visit(t, '/secretA', { method: 'HEAD' })
    expect(head.statusCode).toBe(200)
    expect(head.headers.location).toBeUndefined()
    expect(await counters(t, idA)).toEqual({ clicks: 0, uniqueClicks: 0, botClicks: 0, lastRotation: 0 })
  })

  it('a right answer sets a 24 h cookie scoped to the link and answers as the link would, with the visitor query', async () => {
    const res = await visit(t, '/secretA?utm=1', { form: { password: 'open sesame' }, remoteAddress: '198.51.100.1' })
    expectRedirect(res, 302, 'https://example.com/secret-a?x=1&utm=1')
    const set = String(res.headers['set-cookie'])
    expect(set).toMatch(new RegExp(`^${unlockCookieName('link', idA)}=\\d+\\.[A-Za-z0-9_-]{43}; Max-Age=86400; Path=/; HttpOnly; SameSite=Lax$`))
    // the cookie opens the link on later visits
    expectRedirect(await visit(t, '/secretA', { headers: { cookie: cookiesOf(res) } }), 302, 'https://example.com/secret-a?x=1')
    expect(await counters(t, idA)).toEqual({ clicks: 2, uniqueClicks: 2, botClicks: 0, lastRotation: 0 })
  })

  it('a cookie of link A opens nothing on link B, under either name', async () => {
    const res = await visit(t, '/secretA', { form: { password: 'open sesame' }, remoteAddress: '198.51.100.2' })
    const value = cookiesOf(res).split('=')[1]
    expectPage(await visit(t, '/secretB', { headers: { cookie: cookiesOf(res) } }), 200)
    expectPage(await visit(t, '/secretB', { headers: { cookie: `${unlockCookieName('link', idB)}=${value}` } }), 200)
  })

  it('a forged, altered or expired cookie shows the form again', async () => {
    const now = Date.now()
    const name = unlockCookieName('link', idA)
    const otherKey = Buffer.alloc(32, 7)
    const [hash] = (await t.app.db.execute(`select password_hash from links where id = ${idA}`) as unknown as { rows: { password_hash: string }[] }).rows.map((r) => r.password_hash)
    const good = unlockValue(t.app.keys.cookie, 'link', idA, hash, now)
    expectRedirect(await visit(t, '/secretA', { headers: { cookie: `${name}=${good}` } }), 302, 'https://example.com/secret-a?x=1')
    const forged = unlockValue(otherKey, 'link', idA, hash, now)
    const expired = unlockValue(t.app.keys.cookie, 'link', idA, hash, now - 25 * 3600_000)
    const stretched = `${Number(good.split('.')[0]) + 3600}.${good.split('.')[1]}`
    for (const value of [forged, expired, stretched, 'garbage', '', `${good}x`]) {
      const res = await visit(t, '/secretA', { headers: { cookie: `${name}=${value}` } })
      expectPage(res, 200)
      expect(res.body).toContain('name="password"')
    }
  })

  it('a changed password invalidates cookies issued for the old one', async () => {
    const id = await addLink(pro, { url: 'https://example.com/rotating', custom: 'secretC', password: 'first' })
    const res = await visit(t, '/secretC', { form: { password: 'first' }, remoteAddress: '198.51.100.3' })
    expectRedirect(res, 302, 'https://example.com/rotating')
    expect((await pro.api.put(`/api/url/${id}/update`, { url: 'https://example.com/rotating', password: 'second' })).statusCode).toBe(200)
    expectPage(await visit(t, '/secretC', { headers: { cookie: cookiesOf(res) } }), 200)
  })

  it('a wrong answer is a 401 with the form and an error; no cookie', async () => {
    const res = await visit(t, '/secretB', { form: { password: 'wrong' }, remoteAddress: '198.51.100.4' })
    expectPage(res, 401)
    expect(res.body).toContain('That password is not right.')
    expect(res.body).toContain('name="password"')
    expect(res.headers['set-cookie']).toBeUndefined()
    expect(res.headers.location).toBeUndefined()
    for (const form of [{}, { password: '' }, { password: 'x'.repeat(5000) }] as Record<string, string>[]) {
      expectPage(await visit(t, '/secretB', { form, remoteAddress: '198.51.100.5' }), 401)
    }
  })

  it('after 5 wrong answers per IP and link, answers 429 even to the right one; other IPs and links are unaffected', async () => {
    const ip = '203.0.113.50'
    for (let i = 0; i < 5; i++) expectPage(await visit(t, '/secretB', { form: { password: `guess${i}` }, remoteAddress: ip }), 401)
    const blocked = await visit(t, '/secretB', { form: { password: 'open sesame' }, remoteAddress: ip })
    expectPage(blocked, 429)
    expect(blocked.headers['retry-after']).toBe('900')
    expect(blocked.body).toContain('Too many wrong passwords')
    expect(blocked.headers['set-cookie']).toBeUndefined()
    expectRedirect(await visit(t, '/secretB', { form: { password: 'open sesame' }, remoteAddress: '203.0.113.51' }), 302, 'https://example.com/secret-b')
    expectRedirect(await visit(t, '/secretA', { form: { password: 'open sesame' }, remoteAddress: ip }), 302, 'https://example.com/secret-a?x=1')
  })

  it('allows exactly the schemes the link can lead to in the form’s CSP', async () => {
    await addLink(pro, { url: 'spotify:album:1', custom: 'secretApp', password: 'pw', devicetarget: [{ device: 'Windows', link: 'http://example.com/w' }] })
    expect((await visit(t, '/secretApp')).headers['content-security-policy']).toContain("form-action 'self' http: spotify:;")
  })

  it('answers disabled and expired before asking for a password', async () => {
    await insertLink(t, pro.user.id, { alias: 'secretOld', password: 'pw', expiresAt: new Date(Date.now() - 1000) })
    expectPage(await visit(t, '/secretOld'), 410)
    expectPage(await visit(t, '/secretOld', { form: { password: 'pw' } }), 410)
    await addV1Link(t, pro, { url: 'https://example.com/', alias: 'secretOff', password: 'pw', disabled: '1' })
    expectPage(await visit(t, '/secretOff', { form: { password: 'pw' } }), 404)
  })

  it('after the password, answers by the link type (a frame page)', async () => {
    await addLink(pro, { url: 'https://example.com/framed', custom: 'secretFrame', type: 'frame', password: 'pw' })
    const res = await visit(t, '/secretFrame', { form: { password: 'pw' }, remoteAddress: '198.51.100.9' })
    expectPage(res, 200)
    expect(res.body).toContain('<iframe class="kurz-frame" src="https://example.com/framed"')
  })

  it('keeps the original referrer across the form', async () => {
    const id = await addLink(pro, { url: 'https://example.com/ref', custom: 'secretRef', password: 'pw' })
    const form = await visit(t, '/secretRef', { headers: { referer: 'https://t.co/xyz' } })
    expect(form.body).toContain('<input type="hidden" name="ref" value="https://t.co/xyz">')
    await visit(t, '/secretRef', { form: { password: 'pw', ref: 'https://t.co/xyz' }, headers: { referer: 'http://kurz.test/secretRef' }, remoteAddress: '198.51.100.10' })
    await t.app.clicks.flush()
    const stats = await pro.api.get(`/api/url/${id}`)
    expect(stats.json().data.topReferrers).toEqual({ 't.co': '1' })
    expect(stats.json().data.socialCount).toEqual({ facebook: 0, twitter: 1, google: 0 })
  })
})

describe('GET /:alias+ statistics page', () => {
  let t: TestApp
  let pro: TestUser

  beforeAll(async () => { [t, pro] = await appWith({ plan: 'pro' }) })
  afterAll(() => t.close())

  it('shows a public link the same figures as the API', async () => {
    const id = await addLink(pro, { url: 'https://example.com/pub', custom: 'public1', status: 'public', title: 'Public <b>page</b>' })
    await visit(t, '/public1', { headers: { 'user-agent': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36', referer: 'https://www.google.com/' } })
    await visit(t, '/public1')
    await t.app.clicks.flush()
    const api = (await pro.api.get(`/api/url/${id}`)).json().data
    expect(api).toEqual({
      clicks: 2,
      uniqueClicks: 2,
      topCountries: { Unknown: '2' },
      topReferrers: { Direct: '1', 'google.com': '1' },
      topBrowsers: { Chrome: '1', Unknown: '1' },
      topOs: { Unknown: '1', Windows: '1' },
      socialCount: { facebook: 0, twitter: 0, google: 1 },
      botClicks: 0,
    })
    const res = await visit(t, '/public1+')
    expectPage(res, 200)
    expect(res.body).toContain('<td id="clicks">2</td>')
    expect(res.body).toContain('<td id="unique-clicks">2</td>')
    expect(res.body).toContain('<tr><td>google.com</td><td>1</td></tr>')
    expect(res.body).toContain('<tr><td>Chrome</td><td>1</td></tr>')
    expect(res.body).toContain('Public &lt;b&gt;page&lt;/b&gt;')
    // visiting the stats page is not a click
    expect(await counters(t, id)).toEqual({ clicks: 2, uniqueClicks: 2, botClicks: 0, lastRotation: 0 })
  })

  it('never shows the destination of a password-protected link, public or not', async () => {
    // v1 makes links public by default: the statistics page must not give away what the password guards
    await addV1Link(t, pro, { url: 'https://secret.example.com/hidden-target', alias: 'pwpublic', password: 'hunter22' })
    await addLink(pro, { url: 'https://example.com/guarded-a1', custom: 'pwpublic2', status: 'public', password: 'secretpw' })
    for (const alias of ['pwpublic', 'pwpublic2']) {
      const res = await visit(t, `/${alias}+`)
      expectPage(res, 200)
      expect(res.body).toContain('the destination is password-protected')
      expect(res.body).not.toMatch(/hidden-target|guarded-a1/)
    }
    const open = await visit(t, '/public1+')
    expect(open.body).toContain('http://kurz.test/public1 → https://example.com/pub')
  })

  it('answers a private link exactly like a missing one', async () => {
    await addLink(pro, { url: 'https://example.com/priv', custom: 'private1' })
    const priv = await visit(t, '/private1+')
    const missing = await visit(t, '/missing1+')
    expectPage(priv, 404)
    expect({ status: priv.statusCode, body: priv.body, type: priv.headers['content-type'], csp: priv.headers['content-security-policy'] }).toEqual({
      status: missing.statusCode,
      body: missing.body,
      type: missing.headers['content-type'],
      csp: missing.headers['content-security-policy'],
    })
  })

  it('privacy 2 asks for the stats password with the same form, statuses and throttle', async () => {
    const id = await addV1Link(t, pro, { url: 'https://example.com/pw', alias: 'statspw', privacy: '2', privacy_password: 'letmein', password: 'linkpw' })
    const form = await visit(t, '/statspw+')
    expectPage(form, 200)
    expect(form.body).toContain('<form method="post" action="/statspw+">')
    expect(form.body).toContain('These statistics are protected')

    // the link password does not open the statistics, and the other way round
    expectPage(await visit(t, '/statspw+', { form: { password: 'linkpw' }, remoteAddress: '192.0.2.1' }), 401)
    const right = await visit(t, '/statspw+', { form: { password: 'letmein' }, remoteAddress: '192.0.2.1' })
    expectPage(right, 200)
    expect(right.body).toContain('<td id="clicks">0</td>')
    expect(String(right.headers['set-cookie'])).toMatch(new RegExp(`^${unlockCookieName('stats', id)}=`))
    expectPage(await visit(t, '/statspw+', { headers: { cookie: cookiesOf(right) } }), 200)
    expect((await visit(t, '/statspw+', { headers: { cookie: cookiesOf(right) } })).body).toContain('id="clicks"')
    expect((await visit(t, '/statspw', { headers: { cookie: cookiesOf(right) } })).body).toContain('This link is protected')

    for (let i = 0; i < 5; i++) expectPage(await visit(t, '/statspw+', { form: { password: 'nope' }, remoteAddress: '192.0.2.2' }), 401)
    expectPage(await visit(t, '/statspw+', { form: { password: 'letmein' }, remoteAddress: '192.0.2.2' }), 429)
  })

  it('works on branded domains and only there', async () => {
    expect((await pro.api.post('/api/domain/add', { domain: 'https://stats.brand.test' })).statusCode).toBe(200)
    await addLink(pro, { url: 'https://example.com/b', custom: 'brandstats', domain: 'stats.brand.test', status: 'public' })
    const res = await visit(t, '/brandstats+', { host: 'stats.brand.test' })
    expectPage(res, 200)
    expect(res.body).toContain('https://stats.brand.test/brandstats')
    expectPage(await visit(t, '/brandstats+'), 404)
  })
})
