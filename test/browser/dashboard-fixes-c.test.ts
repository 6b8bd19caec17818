import { beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { hasChromium } from '../helpers/fixtures.js'
import type { TestUser } from '../helpers/app.js'
import { visit } from '../helpers/visits.js'
import { browserSuite } from './session.js'

/**
 * Dashboard fixes of the links and analytics pages, in a real browser (DECISIONS §10.1: at 360 px
 * and 1440 px, by keyboard): long values that wrap, a link search that looks everywhere, a search
 * box in step with the filters, focus on a refusal's message and the field it names, the
 * analytics range in the address, and the polish around them.
 */
describe.skipIf(!hasChromium)('dashboard in Chromium: links and analytics fixes', { timeout: 60_000 }, () => {
  const s = browserSuite({ dashboard: true, timeout: 8000 })
  let user: TestUser

  beforeAll(async () => {
    user = await s.t.makeUser({ plan: 'pro', username: 'fix.c.user' })
  })

  const WIDE = { width: 1440, height: 900 }
  const NARROW = { width: 360, height: 740 }
  const open = (u: TestUser, viewport = WIDE) => s.signIn(u, { viewport })
  const addLink = async (u: TestUser, body: Record<string, unknown>) => {
    const res = await u.api.post('/api/url/add', body)
    if (res.statusCode !== 200) throw new Error(`no link: ${res.statusCode} ${res.body}`)
    return res.json().id as number
  }
  const stat = (p: Page, term: string) => p.locator('dt', { hasText: new RegExp(`^${term}$`) }).locator('xpath=following-sibling::dd[1]')
  const query = (p: Page) => Object.fromEntries(new URL(p.url()).searchParams)
  const today = () => new Date().toISOString().slice(0, 10)
  const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10)
  /** What has focus: its role, id and text. */
  const focused = (p: Page) =>
    p.evaluate(() => {
      const a = document.activeElement
      return { tag: a?.tagName ?? '', role: a?.getAttribute('role') ?? '', id: a?.id ?? '', text: a?.textContent ?? '' }
    })
  /** Clicks on `alias` from `n` visitors, counted. */
  async function clicks(alias: string, n: number) {
    for (let i = 0; i < n; i++) await visit(s.t, `/${alias}`, { remoteAddress: `203.0.113.${i + 1}`, headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/127.0' } })
    await s.t.app.clicks.flush()
  }

  it('a 2,000-character destination, a 255-character title and a 64-character alias fit the analytics page at 360 px and 1440 px, and read in full on request', async () => {
    const url = `https://example.com/${'a'.repeat(1980)}`
    const title = 'T'.repeat(255)
    const alias = 'l'.repeat(64)
    const id = await addLink(user, { url, custom: alias, title })
    await clicks(alias, 2)
    for (const viewport of [NARROW, WIDE]) {
      const page = await open(user, viewport)
      await page.goto(`${s.origin}/dashboard/links/${id}`)
      await expect.poll(() => stat(page, 'Range').textContent(), { timeout: 10_000 }).toBe('30 days')
      await page.getByRole('img', { name: /Clicks over time/ }).waitFor()
      const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, view: window.innerWidth }))
      expect(widths.scroll, `page width at ${viewport.width} px`).toBeLessThanOrEqual(widths.view)
      expect(widths.view).toBe(viewport.width)
      // the whole values are on the page (screen readers, find) and shown on request
      const destination = page.getByRole('link', { name: url })
      expect(await destination.getAttribute('href')).toBe(url)
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(`http://kurz.test/${alias}`)
      for (const what of ['the destination', 'the title']) {
        const more = page.getByRole('button', { name: `Show all of ${what}` })
        expect(await more.getAttribute('aria-expanded')).toBe('false')
        await more.click()
        await page.getByRole('button', { name: `Show less of ${what}` }).waitFor()
      }
      const box = await destination.boundingBox()
      expect(box!.height, 'the whole destination shown').toBeGreaterThan(40)
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width)
    }
  })

  it('link search looks in aliases, destinations and titles by default ("Everywhere"); "Search in" narrows it, on the links page and in link pickers', async () => {
    const u = await s.t.makeUser({ plan: 'pro' })
    await addLink(u, { url: 'https://example.com/fruit', custom: 'kiwi-sale', title: 'Tropical offers' })
    await addLink(u, { url: 'https://example.org/kiwi-juice', custom: 'juice', title: 'Juice' })
    await addLink(u, { url: 'https://example.net/other', custom: 'other' })
    const page = await open(u)
    const list = page.getByRole('list', { name: 'Your links' })
    const shown = async () => (await list.getByRole('link').allTextContents()).sort()
    const searchIn = page.getByLabel('Search in')
    expect(await searchIn.inputValue()).toBe('any')
    expect(await searchIn.locator('option:checked').textContent()).toBe('Everywhere')
    const search = async (words: string) => {
      await page.getByLabel('Search links').fill(words)
      await page.getByRole('button', { name: 'Search', exact: true }).click()
    }
    // a title, as the placeholder promises
    await search('tropical')
    await expect.poll(shown).toEqual(['http://kurz.test/kiwi-sale'])
    // one alias and one destination
    await search('kiwi')
    await expect.poll(shown).toEqual(['http://kurz.test/juice', 'http://kurz.test/kiwi-sale'])
    expect(await page.getByLabel('Search links').inputValue()).toBe('kiwi')
    await searchIn.selectOption('alias')
    await expect.poll(shown).toEqual(['http://kurz.test/kiwi-sale'])
    expect(query(page)).toMatchObject({ search: 'kiwi', by: 'alias' })
    await searchIn.selectOption('url')
    await expect.poll(shown).toEqual(['http://kurz.test/juice'])
    await searchIn.selectOption('title')
    await page.getByRole('heading', { name: 'No links match' }).waitFor()
    await searchIn.selectOption('any')
    await expect.poll(shown).toEqual(['http://kurz.test/juice', 'http://kurz.test/kiwi-sale'])
    expect(query(page).by).toBeUndefined()
    // an address with an unknown `by` searches everywhere rather than failing
    await page.goto(`${s.origin}/dashboard/links?search=tropical&by=everything`)
    await expect.poll(shown).toEqual(['http://kurz.test/kiwi-sale'])
    expect(await searchIn.inputValue()).toBe('any')

    // a link picker (a channel's "Add items") searches everywhere too
    const channel = (await u.api.post('/api/channel/add', { name: 'Fruit' })).json().id as number
    await page.goto(`${s.origin}/dashboard/channels/${channel}`)
    await page.getByRole('button', { name: 'Add links or QR codes' }).click()
    const dialog = page.getByRole('dialog', { name: 'Add items to Fruit' })
    expect(await dialog.getByLabel('Search in').inputValue()).toBe('any')
    await dialog.getByLabel('Find a link').fill('tropical')
    await dialog.getByRole('button', { name: 'Add http://kurz.test/kiwi-sale' }).waitFor()
    await expect.poll(() => dialog.getByRole('button', { name: /^Add http/ }).count()).toBe(1)
  })

  it('a filter changed on the links page applies the words in the search box as they are now, and the box follows Back', async () => {
    const u = await s.t.makeUser({ plan: 'pro' })
    const channel = (await u.api.post('/api/channel/add', { name: 'Steps' })).json().id as number
    await addLink(u, { url: 'https://example.com/step/alpha', custom: 'step-alpha', channel })
    await addLink(u, { url: 'https://example.com/step/beta', custom: 'step-beta', channel })
    await addLink(u, { url: 'https://example.com/gamma', custom: 'gamma' })
    const page = await open(u)
    const list = page.getByRole('list', { name: 'Your links' })
    const shown = async () => (await list.getByRole('link').allTextContents()).sort()
    const box = page.getByLabel('Search links')
    await box.fill('alpha')
    await page.getByRole('button', { name: 'Search', exact: true }).click()
    await expect.poll(shown).toEqual(['http://kurz.test/step-alpha'])

    // the box emptied, then a channel picked: the channel's links, not the old words'
    await box.fill('')
    await page.getByLabel('Channel filter').selectOption({ label: 'Steps' })
    await expect.poll(() => query(page)).toEqual({ channel: String(channel) })
    await expect.poll(shown).toEqual(['http://kurz.test/step-alpha', 'http://kurz.test/step-beta'])
    expect(await box.inputValue()).toBe('')

    // new words typed, not submitted, then the sort changed: the words apply with it
    await box.fill(' beta ')
    await page.getByLabel('Sort by').selectOption('asc')
    await expect.poll(() => query(page)).toEqual({ channel: String(channel), search: 'beta', sort: 'asc' })
    await expect.poll(shown).toEqual(['http://kurz.test/step-beta'])

    // Back shows the earlier list and its words in the box
    await page.goBack()
    await expect.poll(() => query(page)).toEqual({ channel: String(channel) })
    await expect.poll(() => box.inputValue()).toBe('')
    await page.goBack()
    await expect.poll(() => query(page)).toEqual({ search: 'alpha' })
    await expect.poll(() => box.inputValue()).toBe('alpha')
    await expect.poll(shown).toEqual(['http://kurz.test/step-alpha'])
  })

  it('a refused New link form moves focus to its message, which names the field by its label and describes the field', async () => {
    await addLink(user, { url: 'https://example.com/taken', custom: 'taken-alias' })
    const page = await open(user)
    await page.getByRole('button', { name: 'New link' }).click()
    const dialog = page.getByRole('dialog', { name: 'New link' })
    await dialog.getByLabel('Destination URL').fill('https://example.com/second')
    const alias = dialog.getByLabel('Alias', { exact: true })
    await alias.fill('taken-alias')
    await dialog.getByRole('button', { name: 'Create link' }).click()
    const alert = dialog.getByRole('alert')
    await alert.waitFor()
    expect(await alert.textContent()).toMatch(/^Alias: "taken-alias" is already taken/)
    // focus is on the message, not lost to <body> with the disabled button
    await expect.poll(() => focused(page)).toMatchObject({ role: 'alert', text: expect.stringMatching(/^Alias: /) })
    expect(await alert.getAttribute('tabindex')).toBe('-1')
    // the field it names is marked and described by it (after its own hint)
    const alertId = await alert.getAttribute('id')
    expect(alertId).toBeTruthy()
    expect(await alias.getAttribute('aria-invalid')).toBe('true')
    expect((await alias.getAttribute('aria-describedby'))?.split(' ')).toContain(alertId)
    expect(await dialog.getByLabel('Destination URL').getAttribute('aria-invalid')).toBeNull()
    // a second refusal (Enter in the field this time) takes focus again
    await alias.fill('taken-alias')
    await alias.press('Enter')
    await expect.poll(() => focused(page)).toMatchObject({ role: 'alert' })
    // fixed, it goes through and the marks go with the form
    await alias.fill('free-alias')
    await dialog.getByRole('button', { name: 'Create link' }).click()
    await dialog.waitFor({ state: 'hidden' })
    expect((await user.api.get('/api/urls?short=free-alias')).statusCode).toBe(200)
  })

  it('a refused edit opens the closed section holding the field it names, marks that field (the right row of a list) and focuses the message', async () => {
    const id = await addLink(user, { url: 'https://example.com/edit-me', custom: 'edit-me' })
    const page = await open(user)
    await page.goto(`${s.origin}/dashboard/links/${id}/edit`)
    const section = (name: string) => page.locator('details', { has: page.locator('summary', { hasText: name }) })
    const isOpen = (name: string) => section(name).evaluate((d) => (d as HTMLDetailsElement).open)

    // a bad fallback URL typed, its section closed again, then saved
    const fallbackSection = 'Redirect status, caching and fallback'
    await page.getByText(fallbackSection).click()
    const fallback = page.getByLabel('Fallback URL')
    await fallback.fill('ftp://example.com/down')
    await page.getByText(fallbackSection).click()
    expect(await isOpen(fallbackSection)).toBe(false)
    await page.getByRole('button', { name: 'Save changes' }).click()
    const alert = page.getByRole('alert')
    await alert.waitFor()
    expect(await alert.textContent()).toMatch(/^Fallback URL: /)
    await expect.poll(() => focused(page)).toMatchObject({ role: 'alert', text: expect.stringMatching(/^Fallback URL: /) })
    expect(await isOpen(fallbackSection)).toBe(true)
    expect(await fallback.isVisible()).toBe(true)
    expect(await fallback.getAttribute('aria-invalid')).toBe('true')
    const describedBy = (await fallback.getAttribute('aria-describedby'))!.split(' ')
    expect(describedBy).toContain(await alert.getAttribute('id'))
    // its hint still describes it too
    expect(await page.locator(`#${describedBy[0]}`).textContent()).toMatch(/^Where visitors go/)

    // a list entry: the API numbers the entries sent, the form its rows (a blank first row is not sent)
    await fallback.fill('')
    await page.getByText('Targeting').click()
    await page.getByRole('button', { name: 'Add country' }).click()
    await page.getByRole('button', { name: 'Add country' }).click()
    await page.getByLabel('Country 2', { exact: true }).selectOption('DE')
    await page.getByLabel('Country URL 2').fill('ftp://example.de/')
    await page.getByText('Targeting').click()
    expect(await isOpen('Targeting')).toBe(false)
    await page.getByRole('button', { name: 'Save changes' }).click()
    await expect.poll(() => alert.textContent()).toMatch(/^Country URL 2: /)
    await expect.poll(() => focused(page)).toMatchObject({ role: 'alert', text: expect.stringMatching(/^Country URL 2: /) })
    expect(await isOpen('Targeting')).toBe(true)
    expect(await page.getByLabel('Country URL 2').getAttribute('aria-invalid')).toBe('true')
    expect(await page.getByLabel('Country URL 2').getAttribute('aria-describedby')).toBe(await alert.getAttribute('id'))
    expect(await page.getByLabel('Country URL 1').getAttribute('aria-invalid')).toBeNull()
    expect(await fallback.getAttribute('aria-invalid')).toBeNull()
    // nothing was saved
    expect((await user.api.get(`/api/url/${id}?full=1`)).json().details.location).toEqual({})
  })

  it('the analytics range is in the address: a preset survives a reload, a shared range loads as given, and bad values fall back to 30 days', async () => {
    const id = await addLink(user, { url: 'https://example.com/ranged', custom: 'ranged' })
    const page = await open(user)
    const asked: URLSearchParams[] = []
    page.on('request', (r) => {
      const u = new URL(r.url())
      if (u.pathname === `/api/url/${id}/stats`) asked.push(u.searchParams)
    })
    const lastAsked = () => (asked.length ? Object.fromEntries(asked[asked.length - 1]) : undefined)
    const pressed = () => page.getByRole('group', { name: 'Range' }).locator('button[aria-pressed="true"]').allTextContents()
    const from = page.getByLabel('From', { exact: true })
    const to = page.getByLabel('To', { exact: true })
    const interval = page.getByLabel('Interval')
    const visitRange = async (search: string) => {
      asked.length = 0
      await page.goto(`${s.origin}/dashboard/links/${id}${search}`)
      await expect.poll(lastAsked, { timeout: 10_000 }).toBeDefined()
    }

    await visitRange('')
    expect(lastAsked()).toEqual({ from: daysAgo(29), to: today(), interval: 'day' })
    expect(query(page)).toEqual({})
    await page.getByRole('button', { name: '7 days' }).click()
    await expect.poll(() => query(page)).toEqual({ from: daysAgo(6), to: today(), interval: 'hour' })
    await page.reload()
    await expect.poll(lastAsked, { timeout: 10_000 }).toEqual({ from: daysAgo(6), to: today(), interval: 'hour' })
    await expect.poll(() => stat(page, 'Range').textContent()).toBe('7 days')
    expect(await pressed()).toEqual(['7 days'])
    expect(await interval.inputValue()).toBe('hour')

    // the last 24 hours come back as the last 24 hours
    await page.getByRole('button', { name: '24 hours' }).click()
    await expect.poll(() => query(page)).toEqual({ from: daysAgo(1), to: today(), interval: 'hour', range: '24h' })
    await page.reload()
    await expect.poll(() => stat(page, 'Range').textContent(), { timeout: 10_000 }).toBe('24 hours')
    expect(await pressed()).toEqual(['24 hours'])

    // a shared range, as given; typed dates go into the address
    await visitRange('?from=2026-01-01&to=2026-01-05&interval=hour')
    expect(lastAsked()).toEqual({ from: '2026-01-01', to: '2026-01-05', interval: 'hour' })
    await expect.poll(() => stat(page, 'Range').textContent()).toBe('5 days')
    expect(await from.inputValue()).toBe('2026-01-01')
    expect(await to.inputValue()).toBe('2026-01-05')
    expect(await interval.inputValue()).toBe('hour')
    expect(await pressed()).toEqual([])
    await to.fill('2026-01-03')
    await expect.poll(() => query(page)).toEqual({ from: '2026-01-01', to: '2026-01-03', interval: 'hour' })
    await expect.poll(lastAsked).toEqual({ from: '2026-01-01', to: '2026-01-03', interval: 'hour' })
    await interval.selectOption('day')
    await expect.poll(() => query(page)).toEqual({ from: '2026-01-01', to: '2026-01-03', interval: 'day' })
    await expect.poll(lastAsked).toEqual({ from: '2026-01-01', to: '2026-01-03', interval: 'day' })

    // hourly figures only up to 7 days: a longer range is daily
    await visitRange('?from=2026-01-01&to=2026-01-20&interval=hour')
    expect(lastAsked()).toEqual({ from: '2026-01-01', to: '2026-01-20', interval: 'day' })
    expect(await interval.inputValue()).toBe('day')

    // bad values fall back to the defaults, never to a request the API refuses
    const defaults = { from: daysAgo(29), to: today(), interval: 'day' }
    for (const bad of ['?from=2026-02-30&to=2026-03-05', '?from=2026-01-10&to=2026-01-01', '?from=2024-01-01&to=2026-01-01', '?from=yesterday&to=today&interval=minute', '?from=2026-01-01']) {
      await visitRange(bad)
      expect(lastAsked(), bad).toEqual(defaults)
      await expect.poll(() => stat(page, 'Range').textContent()).toBe('30 days')
      expect(await pressed()).toEqual(['30 days'])
    }
    await visitRange('?from=2026-01-01&to=2026-01-02&interval=minute')
    expect(lastAsked()).toEqual({ from: '2026-01-01', to: '2026-01-02', interval: 'day' })
    expect(s.scriptErrors).toEqual([])
  })

  it('the links page filters show their whole choice at 1440 px and 360 px', async () => {
    const u = await s.t.makeUser({ plan: 'pro' })
    await u.api.post('/api/campaign/add', { name: 'Spring campaign of the whole year' })
    await u.api.post('/api/channel/add', { name: 'A channel with a long name' })
    await u.api.post('/api/domain/add', { domain: 'https://links.a-rather-long-branded-domain.example' })
    await addLink(u, { url: 'https://example.com/filtered', custom: 'filtered' })
    for (const viewport of [WIDE, NARROW]) {
      const page = await open(u, viewport)
      await page.getByLabel('Campaign filter').locator('option', { hasText: 'Spring campaign' }).waitFor({ state: 'attached' })
      for (const label of ['Search in', 'Sort by', 'Domain filter', 'Channel filter', 'Campaign filter']) {
        // the select is at least as wide as it would be holding just its chosen option
        const fit = await page.getByLabel(label).evaluate((el) => {
          const select = el as HTMLSelectElement
          const alone = select.cloneNode(false) as HTMLSelectElement
          alone.append(select.selectedOptions[0].cloneNode(true))
          alone.style.width = 'max-content'
          select.parentElement!.append(alone)
          const needed = alone.getBoundingClientRect().width
          alone.remove()
          return { needed, has: select.getBoundingClientRect().width, text: select.selectedOptions[0].textContent }
        })
        expect(fit.has, `${label} (${fit.text}) at ${viewport.width} px`).toBeGreaterThanOrEqual(fit.needed - 0.5)
      }
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width)
    }
  })

  it('analytics: the chart legend says "Bot clicks" as the card does', async () => {
    const id = await addLink(user, { url: 'https://example.com/legend', custom: 'legend' })
    await clicks('legend', 3)
    const page = await open(user)
    // the legend is drawn on the canvas: record the words drawn
    await page.addInitScript(() => {
      const drawn: string[] = []
      ;(window as unknown as { drawn: string[] }).drawn = drawn
      const fillText = CanvasRenderingContext2D.prototype.fillText
      CanvasRenderingContext2D.prototype.fillText = function (text: string, x: number, y: number, maxWidth?: number) {
        drawn.push(String(text))
        return maxWidth === undefined ? fillText.call(this, text, x, y) : fillText.call(this, text, x, y, maxWidth)
      }
    })
    await page.goto(`${s.origin}/dashboard/links/${id}`)
    await expect.poll(() => stat(page, 'Clicks').textContent(), { timeout: 10_000 }).toBe('3')
    const drawn = () => page.evaluate(() => (window as unknown as { drawn: string[] }).drawn)
    await expect.poll(drawn).toContain('Bot clicks')
    expect(await drawn()).not.toContain('Bots')
    expect(await drawn()).toEqual(expect.arrayContaining(['Clicks', 'Unique clicks']))
    const numbers = page.locator('details', { has: page.getByText('Show the numbers as a table') })
    await numbers.getByText('Show the numbers as a table').click()
    expect(await numbers.getByRole('columnheader').allTextContents()).toEqual(['Day (UTC)', 'Clicks', 'Unique clicks', 'Bot clicks'])
  })

  it('analytics: a range without clicks says "No clicks in this range" in an image named like the chart, not a flat line', async () => {
    const quiet = await addLink(user, { url: 'https://example.com/quiet', custom: 'quiet' })
    const busy = await addLink(user, { url: 'https://example.com/busy', custom: 'busy' })
    await clicks('busy', 1)
    for (const viewport of [WIDE, NARROW]) {
      const page = await open(user, viewport)
      await page.goto(`${s.origin}/dashboard/links/${quiet}`)
      const chart = page.getByRole('img', { name: /Clicks over time/ })
      await chart.waitFor()
      expect(await chart.getAttribute('aria-label')).toMatch(/^Clicks over time, .+ to .+: no clicks in this range$/)
      expect(await chart.textContent()).toBe('No clicks in this range')
      expect(await page.getByText('No clicks in this range', { exact: true }).isVisible()).toBe(true)
      expect(await page.locator('canvas').count()).toBe(0)
      // a link with a click still draws its chart
      await page.goto(`${s.origin}/dashboard/links/${busy}`)
      await page.locator('canvas[role="img"]').waitFor()
      expect(await page.getByText('No clicks in this range').count()).toBe(0)
      expect(await page.getByRole('img', { name: /Clicks over time/ }).getAttribute('aria-label')).toMatch(/: 1 click, 1 unique, 0 from bots$/)
    }
  })

  it("another account's or a missing link's analytics and edit pages say Link not found. and offer no Try again", async () => {
    const other = await s.t.makeUser({ plan: 'pro' })
    const theirs = await addLink(other, { url: 'https://example.com/theirs', custom: 'not-yours' })
    const page = await open(user)
    for (const path of [`/links/${theirs}`, '/links/2147483647', `/links/${theirs}/edit`]) {
      await page.goto(`${s.origin}/dashboard${path}`)
      const alert = page.getByRole('alert')
      await alert.waitFor()
      expect(await alert.textContent(), path).toBe('Link not found.')
      expect(await page.getByRole('button', { name: 'Try again' }).count(), path).toBe(0)
    }
    // a failure worth repeating still offers it
    await page.route(/\/api\/url\/\d+\?full=1$/, (route) => route.fulfill({ status: 503, json: { error: 1, message: 'Resting.' } }))
    await page.goto(`${s.origin}/dashboard/links/${theirs}`)
    await page.getByRole('button', { name: 'Try again' }).waitFor()
  })
})
