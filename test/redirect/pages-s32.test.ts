import type { Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BrowserContextOptions, Page } from 'playwright-core'
import { addLink, hasChromium } from '../helpers/fixtures.js'
import { appWith, type TestApp, type TestUser } from '../helpers/app.js'
import { expectPage, visit } from '../helpers/visits.js'
import { arrivalServer, closeServer } from '../helpers/local-server.js'
import { browserSuite } from '../browser/session.js'

/*
 * Session 32 audit of the pages a visitor sees (splash, custom splash, frame, overlay, pixel,
 * statistics and report pages), in Chromium: nothing runs off the screen at 360 px, the overlay
 * closes by keyboard, poll answers sit beside their radios, the frame bar keeps its fallback link,
 * a pixel page moves on when a vendor never answers, and every page has a main landmark and an h1.
 */

const PHONE = { width: 360, height: 740 }
const WIDE = { width: 1280, height: 800 }
const LONG_QUERY =
  '?utm_source=newsletter&utm_medium=email&utm_campaign=spring_sale_2026_launch_week&utm_content=hero_button_variant_b' +
  '&fbclid=IwAR2x9' + 'Qz7'.repeat(60)
const LONG_WORD = 'Supercalifragilistic'.repeat(12)

/** How far the document reaches past the viewport's right edge (0 when nothing overflows). */
const overflowX = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)

/** WCAG contrast ratio of two `rgb(…)` / `rgba(…)` colours (the background taken as opaque). */
function contrast(a: string, b: string): number {
  const lum = (c: string) => {
    const [r, g, bl] = (c.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number).map((v) => {
      const s = v / 255
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4
    })
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl
  }
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x)
  return (hi + 0.05) / (lo + 0.05)
}

/** `rgba(…)` laid over a grey of `under` (0–255), as an `rgb(…)`. */
function over(rgba: string, under: number): string {
  const [r, g, b, a = 1] = (rgba.match(/[\d.]+/g) ?? []).map(Number)
  return `rgb(${[r, g, b].map((v) => Math.round(v * a + under * (1 - a))).join(', ')})`
}

describe('visitor pages over HTTP (session 32)', () => {
  let t: TestApp
  let pro: TestUser
  beforeAll(async () => { [t, pro] = await appWith({ plan: 'pro' }) })
  afterAll(() => t.close())

  it('the pixel page\'s timer is a nonced script that reads the destination from the page, beside its meta refresh', async () => {
    const px = (await pro.api.post('/api/pixel/add', { type: 'fbpixel', name: 'FB', tag: '1234567890' })).json().id
    await addLink(pro, { url: 'https://example.com/tracked', custom: 'pxtimer', pixels: [px] })
    const res = await visit(t, '/pxtimer?q="></script><script>alert(1)</script>')
    expectPage(res, 200)
    const nonce = /'nonce-([^']+)'/.exec(String(res.headers['content-security-policy']))?.[1]
    expect(res.body).toContain('<meta http-equiv="refresh" content="1;url=https://example.com/tracked?q=%22%3E%3C/script%3E%3Cscript%3Ealert(1)%3C/script%3E">')
    expect(res.body).toContain(`<script nonce="${nonce}">setTimeout(function(){var a=document.getElementById('destination');if(a)location.replace(a.href)},1000);</script>`)
    // the destination appears in attributes only, never inside a script
    for (const script of res.body.match(/<script[\s\S]*?<\/script>/g) ?? []) expect(script).not.toContain('example.com')
    expect(res.headers['content-security-policy']).toMatch(/sandbox allow-scripts allow-forms allow-popups allow-top-navigation(;|$)/)
  })

  it('frame and overlay pages without a title are named after the destination, not "Redirecting"', async () => {
    await addLink(pro, { url: 'https://shop.example/x', custom: 'frnotitle', type: 'frame' })
    const o = (await pro.api.post('/api/overlay/add', { name: 'M', type: 'message', message: 'Hi' })).json().id
    await addLink(pro, { url: 'https://shop.example/y', custom: 'ovnotitle', type: String(o) })
    for (const alias of ['frnotitle', 'ovnotitle']) {
      const res = await visit(t, `/${alias}`)
      expect(res.body).toContain('<title>shop.example</title>')
      expect(res.body).toContain('<h1 class="kurz-sr">Short link</h1>')
      expect(res.body).not.toContain('Redirecting')
    }
  })

  it('the report form\'s comment box has no fixed width in columns', async () => {
    await addLink(pro, { url: 'https://example.com/r', custom: 'reportcols' })
    const res = await visit(t, '/reportcols/report')
    expectPage(res, 200)
    expect(res.body).toMatch(/<textarea id="comment" name="comment" rows="4" maxlength="2000">/)
  })
})

describe.skipIf(!hasChromium)('visitor pages at 360 and 1280 px (session 32)', () => {
  const s = browserSuite({ timeout: 10_000 })
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

  const open = async (path: string, options: BrowserContextOptions = {}) => {
    const page = await s.page(options)
    await page.goto(s.origin + path)
    return page
  }

  const overlay = async (alias: string, body: Record<string, unknown>) => {
    const id = (await pro.api.post('/api/overlay/add', { name: alias, ...body })).json().id
    await addLink(pro, { url: `${destOrigin}/${alias}`, custom: alias, type: String(id) })
    return `/${alias}`
  }

  describe('long URLs and words wrap inside the card', () => {
    beforeAll(async () => {
      await addLink(pro, { url: `${destOrigin}/a/very/long/path${LONG_QUERY}`, custom: 'wrapsplash', type: 'splash', status: 'public' })
      const splash = (await pro.api.post('/api/splash/add', { name: 'Long', title: LONG_WORD, message: `Read ${LONG_WORD} now`, countdown: 30 })).json().id
      await addLink(pro, { url: `${destOrigin}/c${LONG_QUERY}`, custom: 'wrapcustom', type: String(splash) })
    })

    for (const [name, viewport] of [['360', PHONE], ['1280', WIDE]] as const) {
      it(`no sideways scrolling at ${name} px on the splash, custom splash, statistics and report pages`, async () => {
        for (const path of ['/wrapsplash', '/wrapcustom', '/wrapsplash+', '/wrapsplash/report']) {
          const page = await open(path, { viewport })
          expect({ path, overflow: await overflowX(page) }).toEqual({ path, overflow: 0 })
          // the card itself stays inside the viewport
          const box = await page.locator('main').boundingBox()
          expect(box!.x).toBeGreaterThanOrEqual(0)
          expect(box!.x + box!.width).toBeLessThanOrEqual(viewport.width)
          await page.context().close()
        }
      })
    }

    it('the report form fits a phone and its select and textarea are styled like its input', async () => {
      const page = await open('/wrapsplash/report', { viewport: PHONE })
      expect(await overflowX(page)).toBe(0)
      const main = (await page.locator('main').boundingBox())!
      for (const sel of ['#reason', '#comment', '#email']) {
        const box = (await page.locator(sel).boundingBox())!
        expect(box.x + box.width, sel).toBeLessThanOrEqual(main.x + main.width)
        expect(await page.locator(sel).evaluate((e) => getComputedStyle(e).borderTopLeftRadius), sel).toBe('6px')
      }
    })

    it('an overlay with an unbroken word and a long poll answer stays inside the screen', async () => {
      const path = await overlay('wrappoll', { type: 'poll', title: LONG_WORD, options: ['Tea', `Coffee ${LONG_WORD}`] })
      for (const viewport of [PHONE, WIDE]) {
        const page = await open(path, { viewport })
        const aside = page.locator('.kurz-overlay')
        const box = (await aside.boundingBox())!
        expect(box.x).toBeGreaterThanOrEqual(0)
        expect(box.x + box.width).toBeLessThanOrEqual(viewport.width)
        expect(await aside.evaluate((e) => e.scrollWidth - e.clientWidth)).toBeLessThanOrEqual(0)
        await page.context().close()
      }
    })
  })

  describe('the CTA overlay', () => {
    it('its close control is reached by Tab, is named Close, shows a focus ring on the × and Space closes it', async () => {
      const path = await overlay('kbclose', { type: 'contact', title: 'Write to us' })
      const page = await open(path, { viewport: PHONE })
      const close = page.getByRole('checkbox', { name: 'Close' })
      expect(await close.count()).toBe(1)
      const x = page.locator('label.kurz-x')
      expect(await x.evaluate((e) => getComputedStyle(e).outlineStyle)).toBe('none')
      let focused = ''
      for (let i = 0; i < 10 && focused !== 'kurz-close'; i++) {
        await page.keyboard.press('Tab')
        focused = await page.evaluate(() => document.activeElement?.id ?? '')
      }
      expect(focused).toBe('kurz-close')
      expect(await x.evaluate((e) => getComputedStyle(e).outlineStyle)).toBe('solid')
      expect(await page.locator('.kurz-overlay').isVisible()).toBe(true)
      await page.keyboard.press('Space')
      expect(await page.locator('.kurz-overlay').isVisible()).toBe(false)
    })

    it('a poll puts each radio beside its answer, grouped under the question', async () => {
      const path = await overlay('pollside', { type: 'poll', title: 'Which do you prefer?', options: ['Tea', 'Coffee', 'Water'] })
      for (const viewport of [PHONE, WIDE]) {
        const page = await open(path, { viewport })
        const group = page.getByRole('group', { name: 'Which do you prefer?' })
        expect(await group.getByRole('radio').count()).toBe(3)
        for (const answer of ['Tea', 'Coffee', 'Water']) {
          const radio = (await group.getByRole('radio', { name: answer }).boundingBox())!
          const text = await page.locator('.kurz-option label', { hasText: answer }).evaluate((label) => {
            const node = Array.from(label.childNodes).find((n) => n.nodeType === Node.TEXT_NODE && n.textContent!.trim())!
            const range = document.createRange()
            range.selectNodeContents(node)
            const r = range.getBoundingClientRect()
            return { x: r.x, y: r.y, height: r.height }
          })
          // the radio is left of its text, on the same line
          expect(radio.x + radio.width, answer).toBeLessThanOrEqual(text.x)
          expect(text.x - (radio.x + radio.width), answer).toBeLessThan(24)
          const middle = radio.y + radio.height / 2
          expect(middle, answer).toBeGreaterThan(text.y)
          expect(middle, answer).toBeLessThan(text.y + text.height)
        }
        await page.context().close()
      }
    })

    it('an overlay at the top leaves its "Open … directly" link uncovered at 360 px', async () => {
      const path = await overlay('topover', { type: 'message', title: 'Hello', message: 'Subscribe to our newsletter', position: 'top' })
      const page = await open(path, { viewport: PHONE })
      const l = (await page.locator('.kurz-direct').boundingBox())!
      expect(await page.evaluate(([x, y]) => document.elementFromPoint(x, y)?.closest('.kurz-direct') !== null, [l.x + l.width / 2, l.y + l.height / 2])).toBe(true)
      const o = (await page.locator('.kurz-overlay').boundingBox())!
      expect(o.y).toBeGreaterThanOrEqual(l.y + l.height)
    })

    it('its "Open … directly" link has AA contrast in light and dark mode', async () => {
      const path = await overlay('contrast', { type: 'message', title: 'Hi', message: 'There' })
      for (const colorScheme of ['light', 'dark'] as const) {
        const page = await open(path, { viewport: WIDE, colorScheme })
        const { color, background } = await page.locator('.kurz-direct').evaluate((e) => ({ color: getComputedStyle(e).color, background: getComputedStyle(e).backgroundColor }))
        // whatever the destination shows under a see-through background: white or black
        for (const under of [255, 0]) expect(contrast(color, over(background, under)), `${colorScheme} over ${under}`).toBeGreaterThanOrEqual(4.5)
        await page.context().close()
      }
    })
  })

  describe('the frame page', () => {
    it('keeps its fallback link in view at 360 px with a 250-character title, the iframe filling the rest', async () => {
      await addLink(pro, { url: `${destOrigin}/framelong`, custom: 'framelong', type: 'frame', title: 'W'.repeat(250) })
      await addLink(pro, { url: `${destOrigin}/framereal`, custom: 'framereal', type: 'frame', title: 'Spring Sale 2026 – Everything 20% off at our online store this week' })
      for (const alias of ['framelong', 'framereal']) {
        const page = await open(`/${alias}`, { viewport: PHONE })
        const link = page.locator('#destination')
        expect(await link.isVisible()).toBe(true)
        const l = (await link.boundingBox())!
        const bar = (await page.locator('.kurz-bar').boundingBox())!
        expect(l.x, alias).toBeGreaterThanOrEqual(0)
        expect(l.x + l.width, alias).toBeLessThanOrEqual(PHONE.width)
        expect(l.y, alias).toBeGreaterThanOrEqual(bar.y)
        expect(l.y + l.height, alias).toBeLessThanOrEqual(bar.y + bar.height + 0.5)
        // nothing covers the link: a tap at its centre lands on it
        expect(await page.evaluate(([x, y]) => document.elementFromPoint(x, y)?.closest('#destination') !== null, [l.x + l.width / 2, l.y + l.height / 2])).toBe(true)
        // the title is cut with an ellipsis on one line, not wrapped
        const title = await page.locator('.kurz-bar h1').evaluate((e) => ({ overflow: getComputedStyle(e).textOverflow, lines: Math.round(e.getBoundingClientRect().height / parseFloat(getComputedStyle(e).lineHeight)) }))
        expect(title).toEqual({ overflow: 'ellipsis', lines: 1 })
        const frame = (await page.locator('iframe.kurz-frame').boundingBox())!
        expect(Math.abs(frame.y - (bar.y + bar.height))).toBeLessThanOrEqual(1)
        expect(Math.abs(frame.y + frame.height - PHONE.height)).toBeLessThanOrEqual(1)
        await link.click()
        await page.waitForURL(`${destOrigin}/${alias}`)
        await page.context().close()
      }
    })
  })

  describe('landmarks and headings', () => {
    it('frame and overlay pages have a main landmark and one h1; untitled ones are not called "Redirecting"', async () => {
      await addLink(pro, { url: `${destOrigin}/untitled`, custom: 'frameuntitled', type: 'frame' })
      await addLink(pro, { url: `${destOrigin}/titled`, custom: 'frametitled', type: 'frame', title: 'Our spring sale' })
      const bare = await overlay('overlayuntitled', { type: 'message', message: 'Hello' })
      const o = (await pro.api.post('/api/overlay/add', { name: 'T', type: 'message', message: 'Hello' })).json().id
      await addLink(pro, { url: `${destOrigin}/ot`, custom: 'overlaytitled', type: String(o), title: 'Our spring sale' })
      for (const [path, h1] of [['/frameuntitled', 'Short link'], ['/frametitled', 'Our spring sale'], [bare, 'Short link'], ['/overlaytitled', 'Our spring sale']]) {
        const page = await open(path, { viewport: PHONE })
        expect(await page.getByRole('main').count(), path).toBe(1)
        expect(await page.getByRole('heading', { level: 1 }).count(), path).toBe(1)
        expect(await page.getByRole('heading', { level: 1 }).textContent(), path).toBe(h1)
        expect(await page.title(), path).not.toMatch(/Redirecting/)
        expect(await page.title(), path).toBe(h1 === 'Short link' ? new URL(destOrigin).host : h1)
        // the iframe sits inside main and fills the screen below any bar
        expect(await page.locator('main iframe.kurz-frame').count(), path).toBe(1)
        await page.context().close()
      }
    })

    it('the statistics page\'s section headings are smaller than its h1', async () => {
      await addLink(pro, { url: `${destOrigin}/st`, custom: 'statsheads', status: 'public' })
      const page = await open('/statsheads+', { viewport: WIDE })
      const size = (sel: string) => page.locator(sel).first().evaluate((e) => parseFloat(getComputedStyle(e).fontSize))
      expect(await size('h2')).toBeLessThan(await size('h1'))
    })

    it('the splash page\'s "Continue now" is one link styled as a button, with no button inside a link', async () => {
      await addLink(pro, { url: `${destOrigin}/cont`, custom: 'splashcont', type: 'splash' })
      for (const colorScheme of ['light', 'dark'] as const) {
        const page = await open('/splashcont', { viewport: PHONE, colorScheme })
        expect(await page.locator('a button, a [tabindex]').count()).toBe(0)
        expect(await page.getByRole('button').count()).toBe(0)
        const go = page.getByRole('link', { name: 'Continue now', exact: true })
        expect(await go.count()).toBe(1)
        const look = await go.evaluate((e) => ({ color: getComputedStyle(e).color, background: getComputedStyle(e).backgroundColor, display: getComputedStyle(e).display }))
        expect(look.display).toBe('inline-block')
        expect(contrast(look.color, look.background)).toBeGreaterThanOrEqual(4.5)
        await page.context().close()
      }
      const page = await open('/splashcont', { viewport: PHONE })
      await page.getByRole('link', { name: 'Continue now', exact: true }).focus()
      await page.keyboard.press('Enter')
      await page.waitForURL(`${destOrigin}/cont`)
    })
  })

  describe('the pixel page', () => {
    it('moves on after about a second even when a vendor script never answers (its load event never comes)', async () => {
      const px = (await pro.api.post('/api/pixel/add', { type: 'fbpixel', name: 'FB', tag: '1234567890' })).json().id
      await addLink(pro, { url: `${destOrigin}/tracked`, custom: 'pxhang', pixels: [px] })
      const page = await s.page()
      let asked = 0
      // the vendor hangs: its script request is never answered, so the document never finishes loading
      await page.route('https://connect.facebook.net/**', () => { asked++ })
      await page.route('https://www.facebook.com/**', (route) => route.fulfill({ status: 204 }))
      await page.goto(`${s.origin}/pxhang`, { waitUntil: 'commit' })
      // without the timer it never moves on: the meta refresh waits for a load event that never comes
      await page.waitForURL(`${destOrigin}/tracked`, { timeout: 8000 })
      expect(asked).toBe(1)
      expect(await page.locator('#arrived').textContent()).toBe('Arrived at /tracked')
    })

    it('a splash page with pixels moves on when its countdown ends even when a vendor script never answers', async () => {
      const px = (await pro.api.post('/api/pixel/add', { type: 'fbpixel', name: 'FB3', tag: '1234567892' })).json().id
      const splash = (await pro.api.post('/api/splash/add', { name: 'Quick', title: 'One moment', countdown: 1 })).json().id
      await addLink(pro, { url: `${destOrigin}/splashed`, custom: 'pxsplash', pixels: [px], type: String(splash) })
      const page = await s.page()
      await page.route('https://connect.facebook.net/**', () => {})
      await page.route('https://www.facebook.com/**', (route) => route.fulfill({ status: 204 }))
      await page.goto(`${s.origin}/pxsplash`, { waitUntil: 'commit' })
      await page.waitForURL(`${destOrigin}/splashed`, { timeout: 8000 })
      expect(await page.locator('#arrived').textContent()).toBe('Arrived at /splashed')
    })

    it('without JavaScript it still moves on with its meta refresh', async () => {
      const px = (await pro.api.post('/api/pixel/add', { type: 'fbpixel', name: 'FB2', tag: '1234567891' })).json().id
      await addLink(pro, { url: `${destOrigin}/nojs-tracked`, custom: 'pxnojs', pixels: [px] })
      const page = await s.page({ javaScriptEnabled: false })
      await page.route('https://www.facebook.com/**', (route) => route.fulfill({ status: 204 }))
      await page.goto(`${s.origin}/pxnojs`)
      await page.waitForURL(`${destOrigin}/nojs-tracked`, { timeout: 5000 })
    })
  })

  it('no page script failed', () => {
    expect(s.scriptErrors).toEqual([])
  })
})
