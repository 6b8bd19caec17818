import { beforeAll, describe, expect, it } from 'vitest'
import type { BrowserContextOptions, Page, Route } from 'playwright-core'
import { addLink, hasChromium } from '../helpers/fixtures.js'
import type { TestUser } from '../helpers/app.js'
import { visit } from '../helpers/visits.js'
import { browserSuite } from './session.js'

/**
 * Analytics of session 38, a marketer's walk through them: hourly figures in the viewer's own time,
 * a chart axis whose labels never overlap and name the year, the cards naming the range of the
 * figures they show while another range loads, a visible focus ring on the range buttons, a top link
 * of the overview opening on the overview's range, and eight-digit figures kept inside their cards.
 */
describe.skipIf(!hasChromium)('dashboard in Chromium: analytics, session 38', () => {
  const s = browserSuite({ dashboard: true, timeout: 8000 })
  const phone = { width: 360, height: 740 }
  const desk = { width: 1440, height: 900 }
  let user: TestUser
  let linkId: number

  beforeAll(async () => {
    user = await s.t.makeUser({ plan: 'pro', username: 'campaign.marketer' })
    linkId = await addLink(user, { url: 'https://acme.example/spring', custom: 's38-spring' })
    const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36'
    for (const ip of ['8.8.8.8', '8.8.4.4', '1.1.1.1']) await visit(s.t, '/s38-spring', { remoteAddress: ip, headers: { 'user-agent': chrome } })
    await s.t.app.clicks.flush()
  })

  const stat = (p: Page, term: string) => p.locator('dt', { hasText: new RegExp(`^${term}$`) }).locator('xpath=following-sibling::dd[1]')

  /** A page signed in as the user whose chart canvas reports the text it draws (a canvas has no DOM to read). */
  async function chartPage(options: BrowserContextOptions): Promise<Page> {
    const page = await s.signIn(user, options)
    await page.addInitScript(() => {
      type Drawn = { text: string; x: number; y: number; width: number; align: CanvasTextAlign }
      const w = window as unknown as { drawn: Drawn[] }
      w.drawn = []
      const proto = CanvasRenderingContext2D.prototype
      const { clearRect, fillText } = proto
      // each frame of the chart starts with a clear: keep the last frame's text only
      proto.clearRect = function (...args) {
        if (this.canvas.getAttribute('role') === 'img') w.drawn = []
        return clearRect.apply(this, args)
      }
      proto.fillText = function (text, x, y, ...rest) {
        if (this.canvas.getAttribute('role') === 'img') {
          const m = this.getTransform()
          w.drawn.push({ text: String(text), x: m.a * x + m.c * y + m.e, y: m.b * x + m.d * y + m.f, width: this.measureText(String(text)).width, align: this.textAlign })
        }
        return fillText.call(this, text, x, y, ...rest)
      }
    })
    return page
  }
  type Drawn = { text: string; x: number; y: number; width: number; align: string }
  const drawn = (page: Page) => page.evaluate(() => (window as unknown as { drawn: Drawn[] }).drawn)
  /** the x axis's labels: centred under the plot, below the y axis's zero */
  async function xLabels(page: Page): Promise<Drawn[]> {
    const all = await drawn(page)
    const zero = all.find((d) => d.align === 'right' && d.text === '0')
    return all.filter((d) => d.align === 'center' && zero && d.y > zero.y + 4)
  }

  /** Answers the link's stats with `series` (hourly or daily), counted as the series says. */
  async function fakeStats(page: Page, interval: 'hour' | 'day', series: { date: string; clicks: number }[], extra: object = {}) {
    await page.route(
      (u) => u.pathname === `/api/url/${linkId}/stats`,
      (route: Route) => {
        const u = new URL(route.request().url())
        const points = series.map((p) => ({ date: p.date, clicks: p.clicks, uniqueClicks: p.clicks, botClicks: 0 }))
        const sum = points.reduce((n, p) => n + p.clicks, 0)
        const top = { topCountries: 0, topReferrers: 0, topBrowsers: 0, topOs: 0, topDevices: 0, topLanguages: 0 }
        return route.fulfill({ json: { error: 0, data: { from: u.searchParams.get('from'), to: u.searchParams.get('to'), interval, series: points, totals: { clicks: sum, uniqueClicks: sum, botClicks: 0 }, ...top, ...extra } } })
      },
    )
  }
  const pad = (n: number) => String(n).padStart(2, '0')
  const hours = (days: string[]) => days.flatMap((day) => Array.from({ length: 24 }, (_, h) => ({ date: `${day} ${pad(h)}:00:00`, clicks: h % 5 })))
  const days = (from: string, n: number) => Array.from({ length: n }, (_, i) => ({ date: new Date(Date.parse(from) + i * 86_400_000).toISOString().slice(0, 10), clicks: i % 7 }))

  it('hourly figures are read in the viewer\'s own time: the 24-hour window, the axis and the tooltip of a New York viewer', async () => {
    const page = await chartPage({ viewport: desk, timezoneId: 'America/New_York' })
    // 15:12 UTC is 11:12 in New York (daylight time since 8 March)
    await page.clock.setFixedTime(new Date('2026-03-10T15:12:00Z'))
    const series = hours(['2026-03-09', '2026-03-10']).map((p) => ({ ...p, clicks: p.date === '2026-03-10 15:00:00' ? 9 : 0 }))
    await fakeStats(page, 'hour', series)
    await page.goto(`${s.origin}/dashboard/links/${linkId}?from=2026-03-09&to=2026-03-10&interval=hour&range=24h`)
    const span = 'the last 24 hours, Mar 9, 2026, 12:00 PM EDT to Mar 10, 2026, 12:00 PM EDT'
    await page.getByText(`Figures for ${span}.`, { exact: false }).waitFor()
    expect(await page.getByRole('img', { name: /Clicks over time/ }).getAttribute('aria-label')).toContain(span)
    // the axis: New York's midnight, with the new day's date under it
    const ticks = (await xLabels(page)).map((d) => d.text)
    expect(ticks).toContain('12 AM')
    expect(ticks).toContain('Mar 10')
    // the tooltip of the current hour, the last point
    const box = (await page.getByRole('img', { name: /Clicks over time/ }).boundingBox())!
    await page.mouse.move(box.x + box.width - 4, box.y + box.height / 2)
    await expect.poll(async () => (await drawn(page)).map((d) => d.text)).toContain('Tue, Mar 10, 11:00 AM EDT')
    expect((await drawn(page)).map((d) => d.text)).toContain('Clicks: 9')
    expect(s.scriptErrors).toEqual([])
    await page.close()
  })

  it('the axis labels never overlap at 360 px (7 days hourly, 24 hours) and a year\'s range names its years', async () => {
    const overlaps = (labels: Drawn[]) => {
      const rows = new Map<number, Drawn[]>()
      for (const d of labels) rows.set(Math.round(d.y), [...(rows.get(Math.round(d.y)) ?? []), d])
      return [...rows.values()].flatMap((row) =>
        row
          .sort((a, b) => a.x - b.x)
          // a space's width apart at least, or two labels read as one
          .flatMap((d, i) => (i > 0 && row[i - 1].x + row[i - 1].width / 2 + 4 > d.x - d.width / 2 ? [`${row[i - 1].text} | ${d.text}`] : [])),
      )
    }
    const page = await chartPage({ viewport: phone, timezoneId: 'UTC' })
    await page.clock.setFixedTime(new Date('2026-03-30T15:12:00Z'))
    const week = ['2026-03-24', '2026-03-25', '2026-03-26', '2026-03-27', '2026-03-28', '2026-03-29', '2026-03-30']
    await fakeStats(page, 'hour', hours(week))
    for (const address of ['from=2026-03-24&to=2026-03-30&interval=hour', 'from=2026-03-29&to=2026-03-30&interval=hour&range=24h']) {
      await page.goto(`${s.origin}/dashboard/links/${linkId}?${address}`)
      await page.getByRole('img', { name: /Clicks over time/ }).waitFor()
      await expect.poll(async () => (await xLabels(page)).length).toBeGreaterThanOrEqual(3)
      expect(overlaps(await xLabels(page)), address).toEqual([])
    }
    await page.unroute((u) => u.pathname === `/api/url/${linkId}/stats`)
    await fakeStats(page, 'day', days('2025-03-11', 365))
    for (const viewport of [desk, phone]) {
      await page.setViewportSize(viewport)
      await page.goto(`${s.origin}/dashboard/links/${linkId}?from=2025-03-11&to=2026-03-10&interval=day`)
      await expect.poll(async () => (await xLabels(page)).map((d) => d.text)).toContain('2026')
      expect(overlaps(await xLabels(page)), String(viewport.width)).toEqual([])
    }
    expect((await xLabels(page)).map((d) => d.text)).toContain('2025')
    await page.close()
  })

  it('while another range loads, the cards name the range of the figures they show, and the page says it is loading', async () => {
    const page = await s.signIn(user, { viewport: desk })
    await page.goto(`${s.origin}/dashboard/links/${linkId}`)
    await expect.poll(() => stat(page, 'Range').textContent()).toBe('30 days')
    expect(await stat(page, 'Clicks').textContent()).toBe('3')
    let release!: () => void
    const held = new Promise<void>((r) => (release = r))
    await page.route(
      (u) => u.pathname === `/api/url/${linkId}/stats`,
      async (route) => {
        await held
        await route.continue()
      },
    )
    await page.getByRole('button', { name: '90 days' }).click()
    await page.getByRole('status').filter({ hasText: /Loading the figures for .* to / }).waitFor()
    // the figures on screen are still the 30 days', and say so
    expect(await stat(page, 'Range').textContent()).toBe('30 days')
    expect(await stat(page, 'Clicks').textContent()).toBe('3')
    release()
    await expect.poll(() => stat(page, 'Range').textContent()).toBe('90 days')
    expect(await page.getByRole('status').filter({ hasText: /Loading the figures/ }).count()).toBe(0)
    await page.close()
  })

  it('a focused range button shows its whole focus ring (the button group clips what lies outside it)', async () => {
    for (const viewport of [desk, phone]) {
      const page = await s.signIn(user, { viewport })
      await page.goto(`${s.origin}/dashboard/links/${linkId}`)
      await page.getByRole('button', { name: '30 days' }).waitFor()
      for (const name of ['24 hours', '7 days', '1 year']) {
        const button = page.getByRole('group', { name: 'Range' }).getByRole('button', { name })
        // the keyboard's way there: from the button beside it
        const first = name === '24 hours'
        await button.evaluate((b, first) => ((first ? b.nextElementSibling : b.previousElementSibling) as HTMLElement).focus(), first)
        await page.keyboard.press(first ? 'Shift+Tab' : 'Tab')
        expect(await button.evaluate((b) => b === document.activeElement && b.matches(':focus-visible'))).toBe(true)
        const ring = await button.evaluate((b) => {
          const cs = getComputedStyle(b)
          const out = parseFloat(cs.outlineOffset) + parseFloat(cs.outlineWidth)
          const r = b.getBoundingClientRect()
          const g = b.parentElement!.getBoundingClientRect()
          const border = 1
          return { inside: r.left - out >= g.left + border - 0.5 && r.right + out <= g.right - border + 0.5 && r.top - out >= g.top + border - 0.5 && r.bottom + out <= g.bottom - border + 0.5, style: cs.outlineStyle }
        })
        expect(ring, `${name} at ${viewport.width}`).toEqual({ inside: true, style: 'solid' })
      }
      await page.close()
    }
  })

  it('a top link of the overview opens on the overview\'s range, so its count there and its Clicks agree', async () => {
    const page = await s.signIn(user, { viewport: desk })
    await page.goto(`${s.origin}/dashboard/overview`)
    await page.getByRole('button', { name: '7 days' }).click()
    await page.waitForURL(/interval=hour/)
    const range = new URL(page.url()).search
    const row = page.locator('section[aria-labelledby="top-links"] tbody tr').first()
    await expect.poll(() => row.textContent()).toMatch(/\/s38-spring3$/)
    await row.getByRole('link', { name: /\/s38-spring$/ }).click()
    await page.waitForURL(`${s.origin}/dashboard/links/${linkId}${range}`)
    expect(await page.getByRole('button', { name: '7 days' }).getAttribute('aria-pressed')).toBe('true')
    await expect.poll(() => stat(page, 'Range').textContent()).toBe('7 days')
    expect(await stat(page, 'Clicks').textContent()).toBe('3')
    await page.close()
  })

  it('eight-digit and longer figures stay inside their cards at 360 px, and the page does not scroll sideways', async () => {
    const page = await s.signIn(user, { viewport: phone })
    const big = [{ date: '2026-03-09', clicks: 1_845_131_148 }, { date: '2026-03-10', clicks: 12_345_678 }]
    await fakeStats(page, 'day', big)
    await page.goto(`${s.origin}/dashboard/links/${linkId}?from=2026-03-09&to=2026-03-10&interval=day`)
    await expect.poll(() => stat(page, 'Unique clicks').textContent()).toBe('1,857,476,826')
    const spill = await page.locator('.stat dd').evaluateAll((dds) => dds.map((d) => d.scrollWidth - d.clientWidth))
    expect(spill).toEqual([0, 0, 0, 0])
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0)
    await page.close()
  })

  it('desktop visits, which the user-agent parser gives no device type, are counted under "Desktop or unknown", not a bare "Unknown"', async () => {
    const page = await s.signIn(user, { viewport: desk })
    await page.goto(`${s.origin}/dashboard/links/${linkId}`)
    const devices = page.locator('section.card', { has: page.getByRole('heading', { name: 'Devices', exact: true }) })
    await expect.poll(() => devices.locator('tbody tr').first().textContent()).toMatch(/^Desktop or unknown/)
    expect(await devices.textContent()).not.toMatch(/Unknown/)
    await page.close()
  })
})
