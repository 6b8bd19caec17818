import type { Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { addLink, hasChromium, watchedPage } from '../helpers/fixtures.js'
import type { TestUser } from '../helpers/app.js'
import { arrivalServer, closeServer } from '../helpers/local-server.js'
import { counters } from '../helpers/visits.js'
import { browserSuite } from './session.js'

const HOSTILE = '<img src=x onerror=alert(1)>'

/** Visits in a real browser: forms, countdowns, frames and pixels work, and hostile text stays text. */
describe.skipIf(!hasChromium)('redirect pages in Chromium', () => {
  const s = browserSuite()
  let pro: TestUser
  let dest: Server
  let destOrigin: string

  beforeAll(async () => {
    ;({ server: dest, origin: destOrigin } = await arrivalServer())
    pro = await s.t.makeUser({ plan: 'pro' })
  })
  afterAll(async () => {
    if (dest) await closeServer(dest)
  })

  const open = (opts: { javaScriptEnabled?: boolean } = {}) => watchedPage(s.browser, opts)

  const arrived = (page: Page) => page.locator('#arrived').textContent()

  it('the password form submits and lands on the destination; the cookie opens it next time', async () => {
    const id = await addLink(pro, { url: `${destOrigin}/secret?from=kurz`, custom: 'bpass', password: 'hunter2' })
    const { page, dialogs, close } = await open()
    await page.goto(`${s.origin}/bpass?utm=mail`)
    expect(await page.locator('h1').textContent()).toBe('This link is protected')
    await page.fill('input[name=password]', 'wrong')
    await page.click('button[type=submit]')
    expect(await page.locator('.error').textContent()).toBe('That password is not right.')
    await page.fill('input[name=password]', 'hunter2')
    await Promise.all([page.waitForURL(`${destOrigin}/**`), page.click('button[type=submit]')])
    expect(await arrived(page)).toBe('Arrived at /secret?from=kurz&utm=mail')
    await page.goto(`${s.origin}/bpass`)
    expect(await arrived(page)).toBe('Arrived at /secret?from=kurz')
    expect(dialogs).toEqual([])
    expect(await counters(s.t, id)).toMatchObject({ clicks: 2 })
    await close()
  })

  it('the splash countdown moves on, with JavaScript counting down', async () => {
    await addLink(pro, { url: `${destOrigin}/after-splash`, custom: 'bsplash', type: 'splash', title: HOSTILE })
    const { page, dialogs, violations, close } = await open()
    await page.goto(`${s.origin}/bsplash`)
    expect(await page.locator('h1').textContent()).toBe(HOSTILE)
    await page.waitForFunction(() => Number(document.getElementById('countdown')?.textContent) < 5)
    await page.waitForURL(`${destOrigin}/after-splash`, { timeout: 20_000 })
    expect(await arrived(page)).toBe('Arrived at /after-splash')
    expect(dialogs).toEqual([])
    expect(violations).toEqual([])
    await close()
  })

  it('the splash page moves on without JavaScript too (meta refresh)', async () => {
    await addLink(pro, { url: `${destOrigin}/nojs`, custom: 'bnojs', type: 'splash' })
    const { page, close } = await open({ javaScriptEnabled: false })
    await page.goto(`${s.origin}/bnojs`)
    expect(await page.locator('#countdown').textContent()).toBe('5')
    await page.waitForURL(`${destOrigin}/nojs`, { timeout: 20_000 })
    expect(await arrived(page)).toBe('Arrived at /nojs')
    await close()
  })

  it('a hostile title shows as text and runs nothing on the frame page, whose iframe loads the destination', async () => {
    await addLink(pro, { url: `${destOrigin}/framed`, custom: 'bframe', type: 'frame', title: HOSTILE })
    const { page, dialogs, violations, close } = await open()
    await page.goto(`${s.origin}/bframe`)
    expect(await page.title()).toBe(HOSTILE)
    expect(await page.locator('.kurz-bar span').textContent()).toBe(HOSTILE)
    expect(await page.locator('img').count()).toBe(0)
    const frame = page.frameLocator('iframe.kurz-frame')
    expect(await frame.locator('#arrived').textContent()).toBe('Arrived at /framed')
    expect(dialogs).toEqual([])
    expect(violations).toEqual([])
    await close()
  })

  it('a hostile title shows as text on the statistics page', async () => {
    await addLink(pro, { url: `${destOrigin}/s`, custom: 'bstats', status: 'public', title: HOSTILE })
    const { page, dialogs, close } = await open()
    await page.goto(`${s.origin}/bstats+`)
    expect(await page.locator('main strong').textContent()).toBe(HOSTILE)
    expect(await page.locator('img').count()).toBe(0)
    expect(dialogs).toEqual([])
    await close()
  })

  it('the overlay sits over the framed destination and closes without JavaScript', async () => {
    const o = (await pro.api.post('/api/overlay/add', { name: 'O', type: 'message', title: HOSTILE, message: 'Hi there' })).json().id
    await addLink(pro, { url: `${destOrigin}/under`, custom: 'boverlay', type: String(o) })
    const { page, dialogs, violations, close } = await open({ javaScriptEnabled: false })
    await page.goto(`${s.origin}/boverlay`)
    expect(await page.frameLocator('iframe.kurz-frame').locator('#arrived').textContent()).toBe('Arrived at /under')
    expect(await page.locator('.kurz-overlay h2').textContent()).toBe(HOSTILE)
    expect(await page.locator('.kurz-overlay').isVisible()).toBe(true)
    await page.click('label.kurz-x')
    expect(await page.locator('.kurz-overlay').isVisible()).toBe(false)
    expect(dialogs).toEqual([])
    expect(violations).toEqual([])
    await close()
  })

  it('the pixel page loads the vendor script the CSP allows, then moves on', async () => {
    const px = (await pro.api.post('/api/pixel/add', { type: 'fbpixel', name: 'FB', tag: '1234567890' })).json().id
    await addLink(pro, { url: `${destOrigin}/tracked`, custom: 'bpixel', pixels: [px] })
    const { page, violations, close } = await open()
    const vendor: string[] = []
    // no network here: answer the vendor's script locally, so the test sees what the page asked for
    await page.route('https://connect.facebook.net/**', (route) => {
      vendor.push(route.request().url())
      return route.fulfill({ status: 200, contentType: 'application/javascript', body: 'window.__fbLoaded = true' })
    })
    await page.route('https://www.facebook.com/**', (route) => route.fulfill({ status: 204 }))
    await page.goto(`${s.origin}/bpixel`)
    await page.waitForURL(`${destOrigin}/tracked`, { timeout: 20_000 })
    expect(vendor).toEqual(['https://connect.facebook.net/en_US/fbevents.js'])
    expect(violations).toEqual([])
    await close()
  })
})
