import { beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { addLink, hasChromium } from '../helpers/fixtures.js'
import type { TestUser } from '../helpers/app.js'
import { visit } from '../helpers/visits.js'
import { browserSuite } from './session.js'
import { expectMarked } from './refusal-checks.js'

/**
 * The dashboard of session 39. Analytics: a top list (on clicks recorded through the redirect) accounts for every
 * human click (the ten largest labels, then "All others"), and the numbers table names its days as
 * the chart does, and its line never swings past the figures it joins. A toolbar's button is as
 * tall as the boxes beside it. A plan's refusal marks the field using the feature.
 */
describe.skipIf(!hasChromium)('dashboard in Chromium: session 39', () => {
  const s = browserSuite({ dashboard: true, timeout: 8000 })
  let user: TestUser
  let linkId: number
  const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36'
  // twelve languages: the API lists ten of them
  const languages = ['de', 'fr', 'es', 'it', 'nl', 'pt', 'sv', 'da', 'fi', 'pl', 'cs', 'ja']

  beforeAll(async () => {
    user = await s.t.makeUser({ plan: 'pro', username: 'polyglot' })
    linkId = await addLink(user, { url: 'https://acme.example/world', custom: 's39-world' })
    // German twice, so the list's order is certain at its top
    for (const lang of ['de', ...languages]) {
      await visit(s.t, '/s39-world', { remoteAddress: '8.8.8.8', headers: { 'user-agent': chrome, 'accept-language': lang } })
    }
    // a crawler counts among bot clicks, never in a top list or its "All others"
    await visit(s.t, '/s39-world', { remoteAddress: '8.8.8.8', headers: { 'user-agent': 'Googlebot/2.1 (+http://www.google.com/bot.html)', 'accept-language': 'ko' } })
    await s.t.app.clicks.flush()
  })

  /** the rows of the top list under heading `title`: [label, count] */
  async function topRows(page: Page, title: string): Promise<string[][]> {
    const card = page.locator('section.card', { has: page.getByRole('heading', { name: title, exact: true }) })
    await card.locator('tbody tr').first().waitFor()
    return Promise.all((await card.locator('tbody tr').all()).map(async (tr) => (await tr.locator('td').allInnerTexts()).map((t) => t.trim())))
  }

  it('a top list ends with "All others", the human clicks past its ten labels; a list of fewer has none', async () => {
    const api = (await user.api.get(`/api/url/${linkId}/stats`)).json().data
    expect(api.totals).toMatchObject({ clicks: 13, botClicks: 1 })
    expect(Object.keys(api.topLanguages)).toHaveLength(10)

    const page = await s.signIn(user, { viewport: { width: 1280, height: 900 } })
    await page.goto(`${s.origin}/dashboard/links/${linkId}`)
    const langs = await topRows(page, 'Languages')
    expect(langs).toHaveLength(11)
    expect(langs[0]).toEqual(['German', '2'])
    expect(langs.at(-1)).toEqual(['All others', '2'])
    const listed = langs.reduce((n, [, count]) => n + Number(count), 0)
    expect(listed).toBe(13)
    // one country, one browser: nothing past them
    const countries = await topRows(page, 'Countries')
    expect(countries).toHaveLength(1)
    expect(countries.flat()).not.toContain('All others')
    expect(await topRows(page, 'Browsers')).toEqual([['Chrome', '13']])
  })

  it('the numbers table names each UTC day as the chart does, under "Day (UTC)"', async () => {
    const page = await s.signIn(user, { viewport: { width: 1280, height: 900 } })
    await page.goto(`${s.origin}/dashboard/links/${linkId}?from=2026-01-01&to=2026-01-03&interval=day`)
    await page.getByText('Show the numbers as a table').click()
    const table = page.locator('details table')
    expect(await table.getByRole('columnheader').first().textContent()).toBe('Day (UTC)')
    const days = await table.locator('tbody tr td:first-child').allTextContents()
    expect(days).toEqual(['Thu, Jan 1, 2026', 'Fri, Jan 2, 2026', 'Sat, Jan 3, 2026'])
  })

  it('the line between two days never swings above the higher or below the lower of their figures', async () => {
    const page = await s.signIn(user, { viewport: { width: 1280, height: 900 } })
    // the canvas has no DOM: record the curves the chart draws, each from the point before it
    await page.addInitScript(() => {
      const w = window as unknown as { curves: number[][] }
      w.curves = []
      const proto = CanvasRenderingContext2D.prototype
      const { moveTo, lineTo, bezierCurveTo } = proto
      let y0 = NaN
      proto.moveTo = function (x, y) {
        y0 = y
        return moveTo.call(this, x, y)
      }
      proto.lineTo = function (x, y) {
        y0 = y
        return lineTo.call(this, x, y)
      }
      proto.bezierCurveTo = function (c1x, c1y, c2x, c2y, x, y) {
        if (this.canvas.getAttribute('role') === 'img') w.curves.push([y0, c1y, c2y, y])
        y0 = y
        return bezierCurveTo.call(this, c1x, c1y, c2x, c2y, x, y)
      }
    })
    // a rise, a plateau and a fall, under a higher last day (a curve is capped at the plot's top):
    // a spline with tension overshoots the plateau at both its ends
    const figures = [0, 3, 6, 9, 9, 2, 14]
    await page.route(
      (u) => u.pathname === `/api/url/${linkId}/stats`,
      (route) => {
        const series = figures.map((clicks, i) => ({ date: `2026-01-0${i + 1}`, clicks, uniqueClicks: clicks, botClicks: 0 }))
        const none = { topCountries: 0, topReferrers: 0, topBrowsers: 0, topOs: 0, topDevices: 0, topLanguages: 0 }
        return route.fulfill({ json: { error: 0, data: { from: '2026-01-01', to: '2026-01-07', interval: 'day', series, totals: { clicks: 43, uniqueClicks: 43, botClicks: 0 }, ...none } } })
      },
    )
    await page.goto(`${s.origin}/dashboard/links/${linkId}?from=2026-01-01&to=2026-01-07&interval=day`)
    await page.getByRole('img', { name: /Clicks over time, .*43 clicks/ }).waitFor()
    const curves = await page.evaluate(() => (window as unknown as { curves: number[][] }).curves)
    expect(curves.length).toBeGreaterThanOrEqual(6)
    for (const [from, c1, c2, to] of curves) {
      const [low, high] = [Math.min(from, to), Math.max(from, to)]
      for (const c of [c1, c2]) {
        expect(c).toBeGreaterThanOrEqual(low - 0.5)
        expect(c).toBeLessThanOrEqual(high + 0.5)
      }
    }
  })

  it('a toolbar\'s Search button is as tall as the search box and the select beside it', async () => {
    for (const width of [1280, 360]) {
      const page = await s.signIn(user, { viewport: { width, height: 900 } })
      const box = await page.getByRole('searchbox', { name: 'Search links' }).boundingBox()
      const button = await page.getByRole('button', { name: 'Search', exact: true }).boundingBox()
      expect(box && button).toBeTruthy()
      expect(Math.abs(button!.height - box!.height)).toBeLessThan(0.5)
    }
  })

  it('a plan\'s refusal marks the field that uses the feature and says what the plan lacks in words', async () => {
    const limited = await s.t.makeUser({ off: [], username: 'no.custom' })
    const page = await s.signIn(limited, { viewport: { width: 1280, height: 900 } })
    // the plan loses custom aliases after the dashboard started: its form still offers the alias
    // (session 40 locks what the session says the plan lacks), and the API refuses it
    await page.getByRole('button', { name: 'New link' }).waitFor()
    expect((await s.admin.api.put(`/api/plan/${limited.user.planId}/update`, { limits: { custom: { enabled: '0' } } })).statusCode).toBe(200)
    await page.getByRole('button', { name: 'New link' }).click()
    const dialog = page.getByRole('dialog', { name: 'New link' })
    await dialog.getByLabel('Destination URL').fill('https://example.com/mine')
    const alias = dialog.getByLabel('Alias', { exact: true })
    await alias.fill('my-own-name')
    await dialog.getByRole('button', { name: 'Create link' }).click()
    await expectMarked(page, dialog, alias, /^Alias: your plan does not include custom aliases; leave the alias empty for a random one\.$/)
    // as it says: without the alias the link is made
    await alias.fill('')
    await dialog.getByRole('button', { name: 'Create link' }).click()
    await dialog.waitFor({ state: 'hidden' })
    expect((await limited.api.get('/api/urls')).json().data.urls.map((u: { longurl: string }) => u.longurl)).toEqual(['https://example.com/mine'])
  })
})
