import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { LightMyRequestResponse } from 'fastify'
import { pages } from '../../src/db/schema/index.js'
import { appWith, type TestApp, type TestUser } from '../helpers/app.js'
import { addLink, insertLink } from '../helpers/fixtures.js'
import { counters, expectPage, visit } from '../helpers/visits.js'
import { UA } from './user-agents.js'

const HOSTILE = `"><script>alert(1)</script><img src=x onerror=alert(2)>'\``
const ESCAPED = '&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;&#39;&#96;'

/** Nothing from HOSTILE survives as markup. */
function expectInert(res: LightMyRequestResponse) {
  expect(res.body).not.toContain('<script>alert')
  expect(res.body).not.toContain('<img src=x')
  expect(res.body).not.toContain('"><script')
  expect(res.body).not.toContain(HOSTILE)
}

function csp(res: LightMyRequestResponse): Record<string, string> {
  return Object.fromEntries(
    String(res.headers['content-security-policy'])
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([k, ...v]) => [k, v.join(' ')]),
  )
}

/** The nonce of the page's scripts: every <script> carries the one the CSP allows. */
function expectNoncedScripts(res: LightMyRequestResponse) {
  const nonce = /'nonce-([^']+)'/.exec(csp(res)['script-src'])?.[1]
  expect(nonce).toBeTruthy()
  const tags = res.body.match(/<script[^>]*>/g) ?? []
  expect(tags.length).toBeGreaterThan(0)
  for (const tag of tags) expect(tag).toBe(`<script nonce="${nonce}">`)
}

const PIXELS = [
  ['gtmpixel', 'GTM-AB12CD3', 'https://www.googletagmanager.com'],
  ['gapixel', 'G-AB12CD34EF', 'https://www.googletagmanager.com'],
  ['fbpixel', '123456789012345', 'https://connect.facebook.net'],
  ['adwordspixel', 'AW-123456789', 'https://www.googleadservices.com'],
  ['linkedinpixel', '1234567', 'https://snap.licdn.com'],
  ['twitterpixel', 'o1abc', 'https://static.ads-twitter.com'],
  ['adrollpixel', 'ADV123/PIX456', 'https://s.adroll.com'],
  ['quorapixel', 'a1b2c3d4e5', 'https://a.quora.com'],
  ['pinterest', '2612345678901', 'https://s.pinimg.com'],
  ['bing', '12345678', 'https://bat.bing.com'],
  ['snapchat', 'abcd-1234-ef', 'https://sc-static.net'],
  ['reddit', 't2_abc123', 'https://www.redditstatic.com'],
  ['tiktok', 'C4ABCDEF123', 'https://analytics.tiktok.com'],
] as const

describe('visit pages', () => {
  let t: TestApp
  let pro: TestUser

  beforeAll(async () => { [t, pro] = await appWith({ plan: 'pro' }) })
  afterAll(() => t.close())

  it('frame: a full-size iframe of the destination and a plain link to it; the CSP frames exactly that origin', async () => {
    const id = await addLink(pro, { url: 'https://news.example:8443/story?id=1', custom: 'frame1', type: 'frame', title: 'The story' })
    const res = await visit(t, '/frame1?ref=x')
    expectPage(res, 200)
    expect(res.body).toContain('<iframe class="kurz-frame" src="https://news.example:8443/story?id=1&amp;ref=x" title="The story"></iframe>')
    expect(res.body).toContain('<a id="destination" href="https://news.example:8443/story?id=1&amp;ref=x" target="_top" rel="noreferrer">Open news.example:8443 directly</a>')
    expect(csp(res)['frame-src']).toBe('https://news.example:8443')
    expect(csp(res)['script-src']).toBe("'none'")
    expect(await counters(t, id)).toEqual({ clicks: 1, uniqueClicks: 1, botClicks: 0, lastRotation: 0 })
  })

  it('splash: the destination, a 5 s countdown, a meta refresh and a plain link (works without JS)', async () => {
    await addLink(pro, { url: 'https://example.com/after-splash', custom: 'splash1', type: 'splash' })
    const res = await visit(t, '/splash1')
    expectPage(res, 200)
    expect(res.body).toContain('<meta http-equiv="refresh" content="5;url=https://example.com/after-splash">')
    expect(res.body).toContain('<a id="destination" href="https://example.com/after-splash" rel="noreferrer">https://example.com/after-splash</a>')
    expect(res.body).toContain('<span id="countdown">5</span>')
    expectNoncedScripts(res)
  })

  it('custom splash page: its title, message, image, button and countdown', async () => {
    const page = await pro.api.post('/api/splash/add', {
      name: 'Promo',
      title: 'Spring sale',
      message: 'Everything half price',
      image: 'https://cdn.example/sale.png',
      button: 'Go shopping',
      countdown: 8,
    })
    expect(page.statusCode).toBe(200)
    await addLink(pro, { url: 'https://example.com/shop', custom: 'custom1', type: String(page.json().id) })
    const res = await visit(t, '/custom1')
    expectPage(res, 200)
    expect(res.body).toContain('<meta http-equiv="refresh" content="8;url=https://example.com/shop">')
    expect(res.body).toContain('<h1>Spring sale</h1>')
    expect(res.body).toContain('<p>Everything half price</p>')
    expect(res.body).toContain('<img src="https://cdn.example/sale.png"')
    expect(res.body).toContain('<a class="kurz-button" href="https://example.com/shop" rel="noreferrer">Go shopping</a>')
    expect(res.body).toContain('<span id="countdown">8</span>')
    expectNoncedScripts(res)
  })

  it('overlay (message): the destination in an iframe with the overlay, its colours and button on top', async () => {
    const o = await pro.api.post('/api/overlay/add', {
      name: 'Banner',
      type: 'message',
      title: 'Hello',
      message: 'Subscribe to our newsletter',
      button: 'Subscribe',
      buttonurl: 'https://example.com/subscribe',
      position: 'top',
      background: '#112233',
      color: '#fff',
      buttonbackground: '#ff0000',
      buttoncolor: '#000000',
    })
    expect(o.statusCode).toBe(200)
    await addLink(pro, { url: 'https://example.com/page', custom: 'overlay1', type: String(o.json().id) })
    const res = await visit(t, '/overlay1')
    expectPage(res, 200)
    expect(res.body).toContain('<iframe class="kurz-frame" src="https://example.com/page"')
    expect(res.body).toContain('<aside class="kurz-overlay" style="left:50%;top:1rem;transform:translateX(-50%);background:#112233;color:#fff">')
    expect(res.body).toContain('<h2>Hello</h2><p>Subscribe to our newsletter</p>')
    expect(res.body).toContain('href="https://example.com/subscribe" target="_top" rel="noreferrer" style="background:#ff0000;color:#000000;')
    expect(res.body).toContain('<a class="kurz-direct" id="destination" href="https://example.com/page" target="_top" rel="noreferrer">')
    expect(csp(res)['frame-src']).toBe('https://example.com')
  })

  it('overlay (contact and poll): forms posting to /_/overlay/:pageId with the link id', async () => {
    const contact = (await pro.api.post('/api/overlay/add', { name: 'Contact', type: 'contact', title: 'Write us', button: 'Send it' })).json().id
    const poll = (await pro.api.post('/api/overlay/add', { name: 'Poll', type: 'poll', title: 'Tea or coffee?', options: ['Tea', 'Coffee'] })).json().id
    const a = await addLink(pro, { url: 'https://example.com/c', custom: 'contact1', type: String(contact) })
    const b = await addLink(pro, { url: 'https://example.com/p', custom: 'poll1', type: `overlay-${poll}` })
    const c = await visit(t, '/contact1')
    expectPage(c, 200)
    expect(c.body).toContain(`<form method="post" action="/_/overlay/${contact}" target="_top">`)
    expect(c.body).toContain(`<input type="hidden" name="link" value="${a}">`)
    for (const f of ['name="name"', 'name="email"', 'name="message"']) expect(c.body).toContain(f)
    expect(c.body).toContain('>Send it</button>')
    const p = await visit(t, '/poll1')
    expect(p.body).toContain(`<form method="post" action="/_/overlay/${poll}" target="_top">`)
    expect(p.body).toContain(`<input type="hidden" name="link" value="${b}">`)
    expect(p.body).toContain('<input type="radio" name="option" value="0" required> Tea</label>')
    expect(p.body).toContain('<input type="radio" name="option" value="1" required> Coffee</label>')

    // the form the page shows is accepted by the endpoint it posts to
    const sent = await visit(t, `/_/overlay/${poll}`, { form: { link: String(b), option: '1' } })
    expect(sent.statusCode).toBe(200)
  })

  it('overlay colours that are not strict #hex never reach the style attribute', async () => {
    const [page] = await t.app.db
      .insert(pages)
      .values({ userId: pro.user.id, kind: 'overlay', name: 'Evil', overlayType: 'message', settings: { background: 'red;background-image:url(https://evil.example/x)', color: '#fff" onload="x', position: 'left:0"><script>' } })
      .returning()
    await insertLink(t, pro.user.id, { alias: 'evilstyle', url: 'https://example.com/', type: 'overlay', pageId: page.id })
    const res = await visit(t, '/evilstyle')
    expectPage(res, 200)
    expect(res.body).toContain('<aside class="kurz-overlay" style="left:1rem;bottom:1rem;background:#ffffff;color:#1d2330">')
    expect(res.body).not.toContain('evil.example')
  })

  it('a custom page that no longer exists falls back to a direct redirect', async () => {
    await insertLink(t, pro.user.id, { alias: 'orphan1', url: 'https://example.com/orphan', type: 'splash-page', pageId: null })
    expect((await visit(t, '/orphan1')).headers.location).toBe('https://example.com/orphan')
  })

  it('a direct link with pixels goes through a pixel page: every snippet from its template, the CSP allowing exactly those vendors, then a meta refresh', async () => {
    const ids: number[] = []
    for (const [type, tag] of PIXELS) {
      const r = await pro.api.post('/api/pixel/add', { type, name: `${type} pixel`, tag })
      expect(r.statusCode).toBe(200)
      ids.push(r.json().id)
    }
    const id = await addLink(pro, { url: 'https://example.com/tracked', custom: 'pixels1', pixels: ids })
    const res = await visit(t, '/pixels1?src=ad')
    expectPage(res, 200)
    expect(res.body).toContain('<meta http-equiv="refresh" content="1;url=https://example.com/tracked?src=ad">')
    expect(res.body).toContain('<a href="https://example.com/tracked?src=ad" rel="noreferrer">Continue</a>')
    expectNoncedScripts(res)
    const policy = csp(res)
    for (const [, tag, host] of PIXELS) {
      expect(policy['script-src'].split(' ')).toContain(host)
      expect(res.body).toContain(JSON.stringify(tag))
    }
    expect(policy['script-src'].split(' ').filter((s) => s.startsWith('https://')).sort()).toEqual(
      [...new Set([...PIXELS.map((p) => p[2]), 'https://www.googletagmanager.com'])].sort(),
    )
    expect(res.body).toContain('<noscript><img height="1" width="1" style="display:none" alt="" src="https://www.facebook.com/tr?id=123456789012345&amp;ev=PageView&amp;noscript=1">')
    expect(policy['default-src']).toBe("'none'")
    expect(await counters(t, id)).toEqual({ clicks: 1, uniqueClicks: 1, botClicks: 0, lastRotation: 0 })
  })

  it('pixels also load on frame and splash pages', async () => {
    const px = (await pro.api.post('/api/pixel/add', { type: 'fbpixel', name: 'FB', tag: '99887766' })).json().id
    await addLink(pro, { url: 'https://example.com/f', custom: 'pxframe', type: 'frame', pixels: [px] })
    const res = await visit(t, '/pxframe')
    expect(res.body).toContain('fbq(\'init\',"99887766")')
    expect(csp(res)['script-src']).toContain('https://connect.facebook.net')
    expect(csp(res)['frame-src']).toBe('https://example.com')
    expectNoncedScripts(res)
  })

  it('a pixel tag that is not a plain id never reaches the page', async () => {
    const [row] = await t.app.db.execute(`insert into pixels (user_id, type, name, tag) values (${pro.user.id}, 'tiktok', 'bad', '"></script><script>alert(1)</script>') returning id`).then((r) => (r as unknown as { rows: { id: number }[] }).rows)
    await insertLink(t, pro.user.id, { alias: 'badpixel', url: 'https://example.com/', pixelIds: [row.id] })
    const res = await visit(t, '/badpixel')
    expectInert(res)
    expect(res.headers.location).toBe('https://example.com/')
  })
})

describe('hostile strings are escaped in every page', () => {
  let t: TestApp
  let pro: TestUser

  beforeAll(async () => { [t, pro] = await appWith({ plan: 'pro' }) })
  afterAll(() => t.close())

  it.each(['frame', 'splash'])('%s page with a hostile title and visitor query', async (type) => {
    await addLink(pro, { url: 'https://example.com/x', custom: `hostile-${type}`, type, title: HOSTILE })
    const res = await visit(t, `/hostile-${type}?q=${encodeURIComponent(HOSTILE)}&r="><script>alert(3)</script>`)
    expectPage(res, 200)
    expectInert(res)
    if (type === 'frame') expect(res.body).toContain(ESCAPED)
    else expect(res.body).toContain('%22%3E%3Cscript%3Ealert(3)%3C/script%3E')
  })

  it('custom splash page and overlays with hostile texts', async () => {
    const s = (await pro.api.post('/api/splash/add', { name: HOSTILE, title: HOSTILE, message: HOSTILE, button: HOSTILE })).json().id
    const m = (await pro.api.post('/api/overlay/add', { name: HOSTILE, type: 'message', title: HOSTILE, message: HOSTILE, button: HOSTILE, buttonurl: 'https://example.com/b' })).json().id
    const p = (await pro.api.post('/api/overlay/add', { name: HOSTILE, type: 'poll', title: HOSTILE, options: [HOSTILE, 'ok'] })).json().id
    const c = (await pro.api.post('/api/overlay/add', { name: HOSTILE, type: 'contact', title: HOSTILE, message: HOSTILE, button: HOSTILE })).json().id
    for (const [alias, page] of [['hs1', s], ['hs2', m], ['hs3', p], ['hs4', c]] as const) {
      await addLink(pro, { url: 'https://example.com/x', custom: alias, type: String(page), title: HOSTILE })
      const res = await visit(t, `/${alias}`)
      expectPage(res, 200)
      expectInert(res)
      expect(res.body).toContain(ESCAPED)
    }
  })

  it('crawler page with hostile meta fields', async () => {
    await addLink(pro, { url: 'https://example.com/x', custom: 'hostilemeta', metatitle: HOSTILE, metadescription: HOSTILE })
    const res = await visit(t, '/hostilemeta', { headers: { 'user-agent': UA.facebook } })
    expectPage(res, 200)
    expectInert(res)
    expect(res.body).toContain(`<meta property="og:title" content="${ESCAPED}">`)
  })

  it('password form with a hostile query and referrer', async () => {
    await addLink(pro, { url: 'https://example.com/x', custom: 'hostilepw', password: 'pw' })
    const res = await visit(t, `/hostilepw?a="><script>alert(1)</script>`, { headers: { referer: HOSTILE } })
    expectPage(res, 200)
    expectInert(res)
    expect(res.body).toContain('action="/hostilepw?a=%22%3E%3Cscript%3Ealert(1)%3C/script%3E"')
    expect(res.body).toContain(`<input type="hidden" name="ref" value="${ESCAPED}">`)
    const wrong = await visit(t, '/hostilepw', { form: { password: 'no', ref: HOSTILE } })
    expectPage(wrong, 401)
    expectInert(wrong)
  })

  it('statistics page with a hostile title, referrer and user agent', async () => {
    const id = await addLink(pro, { url: 'https://example.com/x', custom: 'hostilestats', status: 'public', title: HOSTILE })
    await visit(t, '/hostilestats', { headers: { referer: `https://evil.example/${HOSTILE}`, 'user-agent': `${HOSTILE}/1.0 (${HOSTILE})` } })
    await visit(t, '/hostilestats', { headers: { referer: HOSTILE, 'user-agent': 'x'.repeat(9000) } })
    await t.app.clicks.flush()
    const res = await visit(t, '/hostilestats+')
    expectPage(res, 200)
    expectInert(res)
    expect(res.body).toContain(ESCAPED)
    expect(res.body).toContain('<tr><td>evil.example</td><td>1</td></tr>')
    expect(await counters(t, id)).toEqual({ clicks: 2, uniqueClicks: 2, botClicks: 0, lastRotation: 0 })
  })

  it('404 and 410 pages never echo the alias', async () => {
    const res = await visit(t, `/${encodeURIComponent(HOSTILE)}`)
    expectPage(res, 404)
    expectInert(res)
    expect(res.body).not.toContain('alert')
  })
})
