import { beforeAll, describe, expect, it } from 'vitest'
import type { Page, Request } from 'playwright-core'
import { hasChromium } from '../helpers/fixtures.js'
import type { TestUser } from '../helpers/app.js'
import { countryOptions } from '../../src/lib/targets.js'
import { browserSuite } from './session.js'

/**
 * Dashboard fixes found by an audit in Chromium: the country picker offers the server's countries
 * only, bulk create never sends a line twice, a link's clicks download again and again from a
 * button naming the link, import problems apart from the success, the analytics range checked
 * before it is sent, and "24 hours" meaning the last 24 hours.
 */
describe.skipIf(!hasChromium)('dashboard fixes in Chromium: countries, bulk create, click export, import result, analytics range', { timeout: 60_000 }, () => {
  const s = browserSuite({ dashboard: true })
  let user: TestUser
  let page: Page

  beforeAll(async () => {
    user = await s.t.makeUser({ username: 'browser.fixes', plan: 'pro' })
    page = await s.signIn(user, { acceptDownloads: true })
  })

  const stat = (p: Page, term: string) => p.locator('dt', { hasText: new RegExp(`^${term}$`) }).locator('xpath=following-sibling::dd[1]')
  const linkCount = async () => (await user.api.get('/api/urls?limit=100')).json().data.urls.length as number

  it("the country picker offers exactly the server's countries, once each, with its names; Germany is DE and saves", async () => {
    await page.goto(s.origin + '/dashboard/links')
    await page.getByRole('button', { name: 'New link' }).click()
    const dialog = page.getByRole('dialog', { name: 'New link' })
    await dialog.getByLabel('Destination URL').fill('https://example.com/geo')
    await dialog.getByLabel('Alias', { exact: true }).fill('geo-de')
    await dialog.getByText('Targeting').click()
    await dialog.getByRole('button', { name: 'Add country' }).click()
    const picker = dialog.getByLabel('Country 1', { exact: true })
    const options = await picker.locator('option').evaluateAll((os) => os.map((o) => ({ code: (o as HTMLOptionElement).value, name: o.textContent ?? '' })))
    expect(options[0]).toEqual({ code: '', name: 'Choose a country' })
    const offered = options.slice(1)
    const server = countryOptions()
    expect(offered.map((o) => o.code).sort()).toEqual(server.map((o) => o.code).sort())
    // the server's names; where Chromium's ICU names a region differently from Node's (FK: "Falkland
    // Islands (Islas Malvinas)") and the server has no override, the picker shows the browser's name
    const serverName = new Map(server.map((o) => [o.code, o.name]))
    const differing = offered.filter((o) => o.name !== serverName.get(o.code))
    const browserNames = await page.evaluate(
      (codes) => codes.map((c) => new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' }).of(c)?.replace(/\bSt\. /g, 'Saint ').replace(/ & /g, ' and ')),
      differing.map((o) => o.code),
    )
    expect(differing.map((o) => o.name)).toEqual(browserNames)
    expect(differing.length).toBeLessThan(5)
    for (const code of ['CD', 'CG', 'HK', 'MO', 'MM', 'PS', 'XK', 'KN', 'US', 'GB']) expect(offered.find((o) => o.code === code)?.name).toBe(serverName.get(code))
    // sorted by name, as the server sorts them
    expect(offered.map((o) => o.name)).toEqual([...offered.map((o) => o.name)].sort((a, b) => a.localeCompare(b, 'en')))
    // none of the retired or pseudo codes the API refuses, and one entry per name
    for (const code of ['DD', 'FX', 'SU', 'CS', 'YU', 'XA', 'XB', 'AN', 'AC', 'ZR', 'HV', 'UK']) expect(offered.map((o) => o.code)).not.toContain(code)
    expect(new Set(offered.map((o) => o.name)).size).toBe(offered.length)
    expect(offered.filter((o) => o.name === 'Germany')).toEqual([{ code: 'DE', name: 'Germany' }])

    await picker.selectOption({ label: 'Germany' })
    await dialog.getByLabel('Country URL 1').fill('https://example.de/')
    await dialog.getByRole('button', { name: 'Create link' }).click()
    await dialog.waitFor({ state: 'hidden' })
    const { id } = (await user.api.get('/api/urls?short=geo-de')).json()
    expect((await user.api.get(`/api/url/${id}?full=1`)).json().details.location).toEqual({ DE: 'https://example.de/' })
  })

  it('bulk create keeps only the failed lines for a retry (no link made twice), marks them as errors, one row per line', async () => {
    await page.goto(s.origin + '/dashboard/links')
    await page.getByRole('button', { name: 'Bulk create' }).click()
    const dialog = page.getByRole('dialog', { name: 'Bulk create links' })
    const box = dialog.getByLabel('Links to create')
    const before = await linkCount()
    await box.fill('https://example.com/bulk/random\nnot a url\nhttps://example.com/bulk/named bulk-named\nhttps://example.com/bulk/taken geo-de')
    await dialog.getByRole('button', { name: 'Create links' }).click()
    await dialog.getByText(/2 of 4 links created/).first().waitFor()
    expect(await linkCount()).toBe(before + 2)
    // the box holds the two failed lines only, and the page says so
    expect(await box.inputValue()).toBe('not a url\nhttps://example.com/bulk/taken geo-de')
    expect(await dialog.locator('p.note').textContent()).toMatch(/Only the 2 lines that failed are left/)

    // one table, both values on each row: the line cells are table cells (a block cell breaks the columns)
    const table = dialog.getByRole('table')
    const rows = table.getByRole('row')
    expect(await rows.count()).toBe(5)
    expect(await table.locator('tbody td').evaluateAll((tds) => tds.map((td) => getComputedStyle(td).display))).toEqual(Array(8).fill('table-cell'))
    const failed = rows.filter({ hasText: 'not a url' })
    expect(await failed.locator('.error-note').textContent()).toMatch(/^Not created: .*url/i)
    expect(await rows.filter({ hasText: 'bulk-named' }).locator('.error-note').count()).toBe(0)
    expect(await rows.filter({ hasText: 'geo-de' }).locator('.error-note').textContent()).toMatch(/taken/)

    // a retry sends the failed lines only: nothing made twice
    const sent: string[] = []
    const onRequest = (r: Request) => {
      if (new URL(r.url()).pathname === '/api/url/add') sent.push(r.postData() ?? '')
    }
    page.on('request', onRequest)
    await box.fill('https://example.com/bulk/fixed\nhttps://example.com/bulk/taken geo-de')
    await dialog.getByRole('button', { name: 'Create links' }).click()
    await dialog.getByText(/1 of 2 links created/).first().waitFor()
    page.off('request', onRequest)
    expect(sent.map((b) => JSON.parse(b).url)).toEqual(['https://example.com/bulk/fixed', 'https://example.com/bulk/taken'])
    expect(await linkCount()).toBe(before + 3)
    expect(await box.inputValue()).toBe('https://example.com/bulk/taken geo-de')
    await page.keyboard.press('Escape')
  })

  it("a link's clicks download from a button that names the link, again and again", async () => {
    if ((await user.api.get('/api/urls/export')).statusCode === 404) return
    await page.goto(s.origin + '/dashboard/import-export')
    await page.getByLabel('Search in').selectOption('alias')
    await page.getByLabel('Find a link').fill('bulk-named')
    const button = page.getByRole('button', { name: 'Download clicks of kurz.test/bulk-named' })
    await button.waitFor()
    // the visible label is the accessible name: it names the link
    expect((await button.textContent())?.trim()).toBe('Download clicks of kurz.test/bulk-named')
    expect(await button.getAttribute('aria-label')).toBeNull()
    for (let i = 0; i < 2; i++) {
      const [file] = await Promise.all([page.waitForEvent('download'), button.click()])
      expect(file.suggestedFilename()).toBe('kurz-clicks-bulk-named.csv')
      await expect.poll(() => button.isEnabled()).toBe(true)
    }
    await page.getByText('Downloaded', { exact: true }).waitFor()
  })

  it('an import lists the lines it did not import apart from its success: taken aliases as warnings, refused rows as errors', async () => {
    // imports and exports came together (DECISIONS: webhooks, import and export)
    if ((await user.api.get('/api/urls/export')).statusCode === 404) return
    await page.goto(s.origin + '/dashboard/import-export')
    await page.getByLabel('File').setInputFiles({
      name: 'links.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('url,alias,title\nhttps://example.com/imported,imported-one,One\nnot a url,imported-bad,Bad\nhttps://example.com/again,geo-de,Taken\n'),
    })
    await page.getByRole('button', { name: 'Import', exact: true }).click()
    const success = page.locator('.success')
    await success.waitFor()
    // the per-line problems are not inside the success box: a warning for the taken alias, an error for the refused row
    expect(await success.textContent()).not.toMatch(/Line \d/)
    expect(await success.textContent()).toMatch(/^1 link imported, 1 skipped/)
    expect(await page.locator('.note').filter({ hasText: 'Line 4' }).textContent()).toMatch(/Skipped/)
    expect(await page.locator('.error-note').filter({ hasText: 'Line 3' }).textContent()).toMatch(/Not imported/)
  })

  it('analytics: a From date after To is named beside the inputs and never sent; the cards keep the range they were loaded for', async () => {
    const { id } = (await user.api.post('/api/url/add', { url: 'https://example.com/counted', custom: 'counted' })).json()
    for (let i = 0; i < 2; i++) {
      await s.t.app.inject({ method: 'GET', url: '/counted', headers: { host: 'kurz.test', 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/127.0' }, remoteAddress: `203.0.113.${i + 1}` })
    }
    await s.t.app.clicks.flush()
    const stats: string[] = []
    page.on('request', (r) => {
      if (new URL(r.url()).pathname.endsWith('/stats')) stats.push(r.url())
    })
    await page.goto(s.origin + `/dashboard/links/${id}`)
    await expect.poll(() => stat(page, 'Range').textContent(), { timeout: 10_000 }).toBe('30 days')
    expect(await stat(page, 'Clicks').textContent()).toBe('2')
    await page.getByRole('button', { name: '30 days' }).click()
    const sent = stats.length
    const from = page.getByLabel('From', { exact: true })
    const to = page.getByLabel('To', { exact: true })
    const toDay = await to.inputValue()
    await from.fill('2099-01-10')
    const alert = page.getByRole('alert').filter({ hasText: 'is after To' })
    await alert.waitFor()
    expect(await alert.textContent()).toMatch(/^From \(.*2099\) is after To \(.*\): choose a From date on or before the To date\./)
    expect(await from.getAttribute('aria-invalid')).toBe('true')
    expect(await to.getAttribute('min')).toBe('2099-01-10')
    expect(await from.getAttribute('max')).toBe(toDay)
    await page.waitForTimeout(500)
    expect(stats.length).toBe(sent)
    // the cards still describe the 30 days they were loaded for, not the all-time totals
    expect(await stat(page, 'Clicks').textContent()).toBe('2')
    expect(await stat(page, 'Range').textContent()).toBe('30 days')
    expect(await page.getByRole('button', { name: 'Try again' }).count()).toBe(0)

    // a valid range again is loaded at once, and the problem goes
    await from.fill(toDay)
    await alert.waitFor({ state: 'detached' })
    await expect.poll(() => stats.length, { timeout: 10_000 }).toBe(sent + 1)
    expect(new URL(stats.at(-1)!).searchParams.get('from')).toBe(toDay)
    await expect.poll(() => stat(page, 'Range').textContent(), { timeout: 10_000 }).toBe('1 day')

    // a refused request: its message and "Try again", and no totals of another range beside them
    const refuse = (u: URL) => u.pathname === `/api/url/${id}/stats`
    await page.route(refuse, (route) => route.fulfill({ status: 503, json: { error: 1, message: 'Statistics are resting.' } }))
    await page.getByRole('button', { name: '7 days' }).click()
    await page.getByRole('alert').filter({ hasText: 'Statistics are resting.' }).waitFor()
    expect(await stat(page, 'Clicks').textContent()).toBe('—')
    expect(await stat(page, 'Range').textContent()).toBe('—')
    await page.unroute(refuse)
    await page.getByRole('button', { name: 'Try again' }).click()
    await expect.poll(() => stat(page, 'Range').textContent(), { timeout: 10_000 }).toBe('7 days')
    expect(await stat(page, 'Clicks').textContent()).toBe('2')
  })

  it('analytics: "24 hours" asks for the hourly series of yesterday and today (UTC) and shows the last 24 hours up to the current hour', async () => {
    const id = (await user.api.get('/api/urls?short=counted')).json().id as number
    // 01:12 UTC, the auditor's time: the last 24 hours start at 02:00 yesterday
    await page.clock.setFixedTime(new Date('2026-03-10T01:12:00Z'))
    const asked: URL[] = []
    const hour = (day: string, h: number) => `${day} ${String(h).padStart(2, '0')}:00:00`
    const series = ['2026-03-09', '2026-03-10'].flatMap((day) => Array.from({ length: 24 }, (_, h) => ({ date: hour(day, h), clicks: 0, uniqueClicks: 0, botClicks: 0 })))
    const set = (date: string, clicks: number, uniqueClicks: number, botClicks: number) => Object.assign(series.find((p) => p.date === date)!, { clicks, uniqueClicks, botClicks })
    set('2026-03-09 00:00:00', 7, 7, 1) // before the window
    set('2026-03-09 01:00:00', 4, 4, 0) // before the window
    set('2026-03-09 02:00:00', 2, 2, 0) // its first hour
    set('2026-03-10 01:00:00', 3, 1, 1) // the current hour
    const top = { topCountries: {}, topReferrers: {}, topBrowsers: {}, topOs: {}, topDevices: {}, topLanguages: {} }
    await page.route(
      (u) => u.pathname === `/api/url/${id}/stats`,
      async (route) => {
        const u = new URL(route.request().url())
        asked.push(u)
        const hourly = u.searchParams.get('interval') === 'hour'
        const data = hourly
          ? { from: u.searchParams.get('from'), to: u.searchParams.get('to'), interval: 'hour', series, totals: { clicks: 16, uniqueClicks: 14, botClicks: 2 }, ...top }
          : { from: u.searchParams.get('from'), to: u.searchParams.get('to'), interval: 'day', series: [], totals: { clicks: 0, uniqueClicks: 0, botClicks: 0 }, ...top }
        await route.fulfill({ json: { error: 0, data } })
      },
    )
    await page.goto(s.origin + `/dashboard/links/${id}`)
    await page.getByRole('img', { name: /Clicks over time/ }).waitFor()
    await page.getByRole('button', { name: '24 hours' }).click()
    await expect.poll(() => asked.at(-1)?.search, { timeout: 10_000 }).toBe('?from=2026-03-09&to=2026-03-10&interval=hour')
    await expect.poll(() => stat(page, 'Range').textContent(), { timeout: 10_000 }).toBe('24 hours')
    expect(await stat(page, 'Clicks').textContent()).toBe('5')
    expect(await stat(page, 'Unique clicks').textContent()).toBe('3')
    expect(await stat(page, 'Bot clicks').textContent()).toBe('1')
    expect(await page.getByRole('img', { name: /Clicks over time/ }).getAttribute('aria-label')).toMatch(/last 24 hours.*: 5 clicks, 3 unique, 1 from bots/)
    // the totals differ from the two days' API totals, and the page says so
    const note = page.getByText(/The totals add up these 24 hourly figures/)
    expect(await note.textContent()).toMatch(/have 16 clicks, 14 unique and 2 from bots/)

    await page.getByText('Show the numbers as a table').click()
    const cells = await page.locator('details table tbody tr td:first-child').allTextContents()
    expect(cells).toHaveLength(24)
    // the chart's names of the hours, in the viewer's time (UTC on this machine), with the zone
    expect(cells[0]).toMatch(/^Mon, Mar 9, 2:00\sAM UTC$/)
    expect(cells.at(-1)).toMatch(/^Tue, Mar 10, 1:00\sAM UTC$/)
    await page.unroute((u) => u.pathname === `/api/url/${id}/stats`)
    expect(s.scriptErrors).toEqual([])
  })
})
