import { beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { hasChromium } from '../helpers/fixtures.js'
import type { TestUser } from '../helpers/app.js'
import { visit } from '../helpers/visits.js'
import { browserSuite } from './session.js'

/** The account overview at /dashboard/overview: every link's clicks together (GET /api/account/stats). */
describe.skipIf(!hasChromium)('dashboard in Chromium: the account overview', () => {
  const s = browserSuite({ dashboard: true, timeout: 8000 })
  let user: TestUser
  let fresh: TestUser
  const ids: Record<string, number> = {}

  beforeAll(async () => {
    user = await s.t.makeUser({ username: 'overview.user' })
    fresh = await s.t.makeUser({ username: 'overview.fresh' })
    for (const alias of ['ov-popular', 'ov-second', 'ov-quiet']) {
      ids[alias] = (await user.api.post('/api/url/add', { url: `https://example.com/${alias}`, custom: alias, title: alias === 'ov-popular' ? 'The popular one' : undefined })).json().id
    }
    // today: 3 clicks on the popular link, 1 on the second, none on the quiet one
    const click = (alias: string, ip: string) => visit(s.t, `/${alias}`, { remoteAddress: ip, headers: { 'user-agent': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36' } })
    for (const ip of ['8.8.8.8', '8.8.4.4', '1.1.1.1']) await click('ov-popular', ip)
    await click('ov-second', '9.9.9.9')
    await s.t.app.clicks.flush()
  })

  const WIDE = { width: 1440, height: 900 }
  const PHONE = { width: 360, height: 740 }

  async function openOverview(u: TestUser, viewport = WIDE): Promise<Page> {
    const page = await s.signIn(u, { viewport })
    await page.goto(s.origin + '/dashboard/overview')
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
    return page
  }
  const card = (page: Page, name: string) => page.locator('.stat', { has: page.getByText(name, { exact: true }) }).locator('dd')

  it('shows the seeded clicks in the totals, the chart and the top links, most clicks first', async () => {
    const page = await openOverview(user)
    await page.getByRole('heading', { name: 'Top links' }).waitFor()
    expect(await card(page, 'Clicks').textContent()).toBe('4')
    expect(await card(page, 'Unique clicks').textContent()).toBe('4')
    expect(await card(page, 'Bot clicks').textContent()).toBe('0')
    const chart = page.getByRole('img', { name: /Clicks over time/ })
    expect(await chart.getAttribute('aria-label')).toMatch(/4 clicks, 4 unique, 0 from bots/)
    const rows = page.locator('section[aria-labelledby="top-links"] tbody tr')
    expect(await rows.count()).toBe(2)
    expect(await rows.nth(0).textContent()).toMatch(/\/ov-popular The popular one3$/)
    expect(await rows.nth(1).textContent()).toMatch(/\/ov-second1$/)
    // the top lists as the link page shows them
    await page.getByRole('heading', { name: 'Browsers' }).waitFor()
    expect(await page.locator('.card', { has: page.getByRole('heading', { name: 'Browsers' }) }).textContent()).toContain('Chrome')
    expect(s.scriptErrors).toEqual([])
  })

  it('opens a top link\'s analytics', async () => {
    const page = await openOverview(user)
    await page.getByRole('link', { name: /\/ov-popular$/ }).click()
    await page.waitForURL(`${s.origin}/dashboard/links/${ids['ov-popular']}`)
    await page.getByRole('heading', { name: /\/ov-popular$/, level: 1 }).waitFor()
  })

  it('says so where an account has no clicks in the range', async () => {
    const page = await openOverview(fresh)
    await page.getByRole('img', { name: /Clicks over time.*no clicks in this range/ }).waitFor()
    const top = page.locator('section[aria-labelledby="top-links"]')
    expect(await top.getByText('No clicks in this range').isVisible()).toBe(true)
    expect(await card(page, 'Clicks').textContent()).toBe('0')
  })

  for (const [name, viewport] of [['360', PHONE], ['1440', WIDE]] as const) {
    it(`has no horizontal overflow at ${name} px`, async () => {
      const page = await openOverview(user, viewport)
      await page.getByRole('heading', { name: 'Top links' }).waitFor()
      await page.getByRole('heading', { name: 'Languages' }).waitFor()
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
      expect(overflow).toBeLessThanOrEqual(0)
    })
  }
})
