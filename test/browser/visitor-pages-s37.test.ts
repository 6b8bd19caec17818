import { beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { addLink, created, hasChromium } from '../helpers/fixtures.js'
import type { TestUser } from '../helpers/app.js'
import { visit } from '../helpers/visits.js'
import { browserSuite } from './session.js'

const PHONE = { width: 360, height: 740 }
const LONG_HOST = `${'very-long-subdomain-name.'.repeat(6)}example.com`
const LOREM = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(30)

/**
 * The pages a visitor of a short link sees, on a phone, with a link owner's extreme content: a
 * right-to-left title, an 8 KiB destination, an unbroken referrer host, a tall overlay.
 */
describe.skipIf(!hasChromium)('visitor pages with extreme content (session 37)', () => {
  const s = browserSuite()
  let u: TestUser

  beforeAll(async () => {
    u = await s.t.makeUser({ features: {} })
    await addLink(u, { url: 'https://example.com/shop', custom: 'v37stats', status: 'public', title: 'Newsletter' })
    for (const [i, referer] of [`https://${LONG_HOST}/post`, 'https://news.example/'].entries()) {
      const res = await visit(s.t, '/v37stats', { remoteAddress: `198.51.100.${i + 1}`, headers: { referer } })
      expect(res.statusCode).toBe(302)
    }
    await s.t.app.clicks.flush()
    await addLink(u, { url: 'https://example.com/bang', custom: 'v37rtl', type: 'splash', title: 'مرحبا بالعالم!' })
    await addLink(u, { url: `https://example.com/${'p'.repeat(7900)}`, custom: 'v37long', type: 'splash', title: 'Our spring catalogue' })
    for (const position of ['bottom', 'center'] as const) {
      const id = (await created(u, '/api/overlay/add', { name: position, type: 'message', title: 'A word from us', message: LOREM, position })).id
      await addLink(u, { url: 'https://example.com/under', custom: `v37${position}`, type: String(id) })
    }
  })

  const open = async (path: string): Promise<Page> => {
    const page = await s.page({ viewport: PHONE })
    // the destination is not on this network; a 204 keeps a splash page in place when its countdown ends
    await page.route('https://example.com/**', (route) => route.fulfill({ status: 204 }))
    await page.goto(s.origin + path)
    return page
  }

  it('the statistics page keeps "Clicks" on one line beside an unbroken referrer host, under a "Referrer" column', async () => {
    const page = await open('/v37stats+')
    const referrers = page.locator('#referrers')
    await expect.poll(() => referrers.locator('th').allTextContents()).toEqual(['Referrer', 'Clicks'])
    await expect.poll(() => referrers.locator('td', { hasText: LONG_HOST }).count()).toBe(1)
    // one line of text: a header squeezed to a letter a line is several times as tall as it is wide
    await expect
      .poll(() => referrers.locator('th').nth(1).evaluate((th) => {
        const r = document.createRange()
        r.selectNodeContents(th)
        return r.getClientRects().length
      }))
      .toBe(1)
  })

  it('a right-to-left splash title aligns to the right, its punctuation at its end', async () => {
    const page = await open('/v37rtl')
    const h1 = page.locator('h1')
    await expect.poll(() => h1.textContent()).toBe('مرحبا بالعالم!')
    const edges = () =>
      h1.evaluate((e) => {
        const box = e.getBoundingClientRect()
        const r = document.createRange()
        r.selectNodeContents(e)
        const text = r.getBoundingClientRect()
        // the "!" ends the sentence: in right-to-left order it sits at the left of the words
        const bang = document.createRange()
        bang.setStart(e.firstChild!, e.textContent!.length - 1)
        bang.setEnd(e.firstChild!, e.textContent!.length)
        return { right: Math.round(box.right - text.right), bangAtLeft: Math.round(bang.getBoundingClientRect().left - text.left) }
      })
    await expect.poll(edges).toEqual({ right: 0, bangAtLeft: 0 })
  })

  it('a splash page with an 8 KiB destination keeps "Continue now" on the first screen of a phone', async () => {
    const page = await open('/v37long')
    const button = page.getByRole('link', { name: 'Continue now' })
    await expect.poll(async () => (await button.boundingBox())?.y ?? Infinity).toBeLessThan(PHONE.height - 40)
    // the link itself still holds the whole destination
    expect(await page.locator('#destination').getAttribute('href')).toBe(`https://example.com/${'p'.repeat(7900)}`)
  })

  for (const position of ['bottom', 'center'] as const) {
    it(`a tall overlay at the ${position} leaves its "Open … directly" link uncovered at 360 px`, async () => {
      const page = await open(`/v37${position}`)
      const link = page.locator('.kurz-direct')
      await expect.poll(() => page.locator('.kurz-overlay p').first().textContent()).toContain('Lorem ipsum')
      const l = (await link.boundingBox())!
      await expect
        .poll(() => page.evaluate(([x, y]) => document.elementFromPoint(x, y)?.closest('.kurz-direct') !== null, [l.x + l.width / 2, l.y + l.height / 2]))
        .toBe(true)
      const o = (await page.locator('.kurz-overlay').boundingBox())!
      expect(o.y).toBeGreaterThanOrEqual(l.y + l.height)
      expect(o.y + o.height).toBeLessThanOrEqual(PHONE.height)
    })
  }

  it('no page script failed', () => {
    expect(s.scriptErrors).toEqual([])
  })
})
