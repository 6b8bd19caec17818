import { describe, expect, it } from 'vitest'
import type { Page, Route } from 'playwright-core'
import { addLink, created, hasChromium } from '../helpers/fixtures.js'
import type { TestUser } from '../helpers/app.js'
import { browserSuite } from './session.js'

/**
 * Bulk selection on the Links list: a checkbox a row and "Select all on this page", a bar of what
 * can be done to the ticked links (delete, add to a campaign or a channel), each link its own
 * request of the JSON API, one at a time, a refused one named with the API's message and kept
 * selected. What the page says it did is checked against the server through the API.
 */
describe.skipIf(!hasChromium)('dashboard in Chromium: bulk selection and bulk actions on Links', () => {
  const s = browserSuite({ dashboard: true, admin: { username: 'bulk.admin' }, timeout: 8000 })
  const WIDE = { width: 1440, height: 900 }
  const PHONE = { width: 360, height: 780 }
  const short = (alias: string) => `http://kurz.test/${alias}`

  /** A user whose links carry these aliases (created in this order: the list shows the last first). */
  async function owner(aliases: string[]): Promise<{ u: TestUser; id: Record<string, number> }> {
    const u = await s.t.makeUser({ features: {} })
    const id: Record<string, number> = {}
    for (const alias of aliases) id[alias] = await addLink(u, { url: `https://example.com/${alias}`, custom: alias })
    return { u, id }
  }
  const exists = async (u: TestUser, id: number) => {
    const res = await u.api.get(`/api/url/${id}`)
    expect([200, 404], res.body).toContain(res.statusCode)
    return res.statusCode === 200
  }
  async function open(u: TestUser, viewport = WIDE) {
    const page = await s.signIn(u, { viewport })
    await page.getByRole('list', { name: 'Your links' }).waitFor()
    return page
  }
  const bar = (page: Page) => page.getByRole('region', { name: 'Selected links' })
  const box = (page: Page, alias: string) => page.getByRole('checkbox', { name: `Select ${short(alias)}`, exact: true })
  const selectAll = (page: Page) => page.getByRole('checkbox', { name: 'Select all on this page' })
  const row = (page: Page, alias: string) => page.getByRole('list', { name: 'Your links' }).getByRole('listitem').filter({ has: page.getByRole('link', { name: short(alias), exact: true }) })
  const status = (page: Page, text: string | RegExp) => page.getByRole('status').filter({ hasText: text })
  /** the focused element's accessible name, as far as these tests need it: aria-label, label, text */
  const focused = (page: Page) =>
    page.evaluate(() => {
      const el = document.activeElement as HTMLInputElement | null
      return (el?.getAttribute('aria-label') ?? el?.labels?.[0]?.textContent ?? el?.textContent ?? '').trim()
    })

  it('two rows ticked and deleted: the confirmation names how many and which, one request at a time with progress, only those two are gone on the server', async () => {
    const { u, id } = await owner(['del-a', 'del-b', 'del-c', 'del-d'])
    const page = await open(u)
    expect(await bar(page).count()).toBe(0)
    await box(page, 'del-b').check()
    await box(page, 'del-c').check()
    await expect.poll(() => bar(page).textContent()).toContain('2 selected')

    // each delete is held a moment: the bar says how far it is, and no second request starts meanwhile
    let inFlight = 0
    let most = 0
    const deletes: string[] = []
    await page.route('**/api/url/*/delete', async (route: Route) => {
      inFlight++
      most = Math.max(most, inFlight)
      deletes.push(new URL(route.request().url()).pathname)
      await new Promise((r) => setTimeout(r, 300))
      await route.continue()
      inFlight--
    })

    await bar(page).getByRole('button', { name: 'Delete selected' }).click()
    const dialog = page.getByRole('dialog', { name: 'Delete 2 links?' })
    await dialog.waitFor()
    const text = await dialog.textContent()
    expect(text).toContain(short('del-b'))
    expect(text).toContain(short('del-c'))
    expect(text).not.toContain(short('del-a'))
    await dialog.getByRole('button', { name: 'Delete 2 links' }).click()
    await bar(page).getByText('Deleting 1 of 2…').waitFor()
    await status(page, '2 links deleted.').waitFor()
    await row(page, 'del-b').waitFor({ state: 'detached' })
    await row(page, 'del-c').waitFor({ state: 'detached' })

    expect(most).toBe(1)
    expect(deletes.sort()).toEqual([`/api/url/${id['del-b']}/delete`, `/api/url/${id['del-c']}/delete`].sort())
    expect(await exists(u, id['del-b'])).toBe(false)
    expect(await exists(u, id['del-c'])).toBe(false)
    expect(await exists(u, id['del-a'])).toBe(true)
    expect(await exists(u, id['del-d'])).toBe(true)
    // the selection went with them: no bar, nothing ticked, and focus is not dropped on <body>
    await expect.poll(() => bar(page).count()).toBe(0)
    expect(await box(page, 'del-a').isChecked()).toBe(false)
    expect(await box(page, 'del-d').isChecked()).toBe(false)
    expect(await focused(page)).toBe('Select all on this page')
    expect(s.scriptErrors).toEqual([])
  })

  it('"Select all on this page" ticks the page only, shows indeterminate for some; another page, search or sort starts with nothing selected', async () => {
    // 22 links: a page of 20 and a second page of 2
    const aliases = Array.from({ length: 22 }, (_, i) => `all-${String(i + 1).padStart(2, '0')}`)
    const { u, id } = await owner(aliases)
    const page = await open(u)
    await selectAll(page).check()
    await expect.poll(() => bar(page).textContent()).toContain('20 selected')
    // newest first: the page holds all-22 … all-03
    expect(await box(page, 'all-22').isChecked()).toBe(true)
    expect(await box(page, 'all-03').isChecked()).toBe(true)
    const indeterminate = () => selectAll(page).evaluate((el) => (el as HTMLInputElement).indeterminate)
    expect(await indeterminate()).toBe(false)

    await box(page, 'all-10').uncheck()
    await expect.poll(() => bar(page).textContent()).toContain('19 selected')
    expect(await indeterminate()).toBe(true)
    expect(await selectAll(page).isChecked()).toBe(false)
    // ticking it again from "some" ticks all
    await selectAll(page).check()
    await expect.poll(() => bar(page).textContent()).toContain('20 selected')
    expect(await indeterminate()).toBe(false)

    // the next page: nothing selected there, and nothing of page 1 kept (deleting acts on page 2's only)
    await page.getByRole('button', { name: 'Next page' }).click()
    await box(page, 'all-01').waitFor()
    expect(await bar(page).count()).toBe(0)
    expect(await selectAll(page).isChecked()).toBe(false)
    await selectAll(page).check()
    await expect.poll(() => bar(page).textContent()).toContain('2 selected')
    await bar(page).getByRole('button', { name: 'Delete selected' }).click()
    await page.getByRole('dialog', { name: 'Delete 2 links?' }).getByRole('button', { name: 'Delete 2 links' }).click()
    await status(page, '2 links deleted.').waitFor()
    expect(await exists(u, id['all-01'])).toBe(false)
    expect(await exists(u, id['all-02'])).toBe(false)
    for (const alias of aliases.slice(2)) expect(await exists(u, id[alias]), alias).toBe(true)

    // a search or a sort is another list: the ticks go
    await page.goto(`${s.origin}/dashboard/links`)
    await box(page, 'all-22').check()
    await expect.poll(() => bar(page).count()).toBe(1)
    await page.getByLabel('Sort by').selectOption('asc')
    await expect.poll(() => bar(page).count()).toBe(0)
    await box(page, 'all-03').waitFor()
    await box(page, 'all-03').check()
    await page.getByLabel('Search links').fill('all-1')
    await page.getByRole('button', { name: 'Search', exact: true }).click()
    await expect.poll(() => bar(page).count()).toBe(0)
  })

  it('Add to campaign…: the chosen campaign gets the selected links, on the server', async () => {
    const { u, id } = await owner(['camp-a', 'camp-b', 'camp-c'])
    const spring = (await created(u, '/api/campaign/add', { name: 'Spring' })).id
    await created(u, '/api/campaign/add', { name: 'Autumn' })
    const page = await open(u)
    await box(page, 'camp-a').check()
    await box(page, 'camp-c').check()
    await bar(page).getByRole('button', { name: 'Add to campaign…' }).click()
    const dialog = page.getByRole('dialog', { name: 'Add 2 links to a campaign' })
    await dialog.waitFor()
    await dialog.getByLabel('Campaign').selectOption({ label: 'Spring' })
    await dialog.getByRole('button', { name: 'Add to campaign' }).click()
    await status(page, '2 links added to campaign Spring.').waitFor()
    await expect.poll(() => bar(page).count()).toBe(0)

    const campaignOf = async (alias: string) => (await u.api.get(`/api/url/${id[alias]}?full=1`)).json().details.campaign
    expect(await campaignOf('camp-a')).toBe(spring)
    expect(await campaignOf('camp-c')).toBe(spring)
    expect(await campaignOf('camp-b')).toBeNull()
    const listed = (await u.api.get(`/api/v1/links?campaign=${spring}`)).json().data.map((l: { alias: string }) => l.alias).sort()
    expect(listed).toEqual(['camp-a', 'camp-c'])
  })

  it('Add to channel…: GET /api/channel/:id lists the selected links; a link the API refuses is named with its message and stays selected', async () => {
    const { u, id } = await owner(['chan-a', 'chan-b', 'chan-c'])
    const launch = (await created(u, '/api/channel/add', { name: 'Launch' })).id
    const page = await open(u)
    // the API refuses chan-b (as it would a link gone meanwhile)
    await page.route(`**/api/channel/${launch}/assign/links/${id['chan-b']}`, (route) =>
      route.fulfill({ status: 404, contentType: 'application/json', body: JSON.stringify({ error: 1, message: 'Link not found.' }) }),
    )
    for (const alias of ['chan-a', 'chan-b', 'chan-c']) await box(page, alias).check()
    await bar(page).getByRole('button', { name: 'Add to channel…' }).click()
    const dialog = page.getByRole('dialog', { name: 'Add 3 links to a channel' })
    await dialog.getByLabel('Channel').selectOption({ label: 'Launch' })
    await dialog.getByRole('button', { name: 'Add to channel' }).click()

    const report = page.getByRole('group', { name: 'Bulk action result' })
    await report.waitFor()
    expect(await report.textContent()).toContain('2 of 3 links added to channel Launch.')
    expect(await report.getByRole('listitem').allTextContents()).toEqual([`${short('chan-b')} (chan-b): Link not found.`])
    await status(page, /^2 of 3 links added to channel Launch\. 1 link failed/).waitFor()
    // the refused one stays selected, the others do not
    await expect.poll(() => bar(page).textContent()).toContain('1 selected')
    expect(await box(page, 'chan-b').isChecked()).toBe(true)
    expect(await box(page, 'chan-a').isChecked()).toBe(false)
    expect(await box(page, 'chan-c').isChecked()).toBe(false)

    const items = (await u.api.get(`/api/channel/${launch}`)).json().data.items as { id: number; type: string }[]
    expect(items.filter((i) => i.type === 'links').map((i) => i.id).sort()).toEqual([id['chan-a'], id['chan-c']].sort())
    await report.getByRole('button', { name: 'Dismiss' }).click()
    expect(await report.count()).toBe(0)
  })

  it('an account without campaigns or channels: the dialog says so and links to the page that makes one', async () => {
    const { u } = await owner(['none-a'])
    const page = await open(u)
    await box(page, 'none-a').check()
    await bar(page).getByRole('button', { name: 'Add to channel…' }).click()
    let dialog = page.getByRole('dialog', { name: 'Add 1 link to a channel' })
    await dialog.getByRole('heading', { name: 'No channels yet' }).waitFor()
    await dialog.getByRole('button', { name: 'Close' }).click()
    await bar(page).getByRole('button', { name: 'Add to campaign…' }).click()
    dialog = page.getByRole('dialog', { name: 'Add 1 link to a campaign' })
    await dialog.getByRole('heading', { name: 'No campaigns yet' }).waitFor()
    await dialog.getByRole('link', { name: 'Go to Campaigns' }).click()
    await page.waitForURL(`${s.origin}/dashboard/campaigns`)
    await page.getByRole('heading', { name: 'Campaigns', level: 1 }).waitFor()
  })

  it('a link deleted behind the page\'s back: the others are deleted, that one is reported by alias with the API\'s message', async () => {
    const { u, id } = await owner(['part-a', 'part-b', 'part-c', 'part-d'])
    const page = await open(u)
    for (const alias of ['part-a', 'part-b', 'part-c']) await box(page, alias).check()
    await bar(page).getByRole('button', { name: 'Delete selected' }).click()
    const dialog = page.getByRole('dialog', { name: 'Delete 3 links?' })
    await dialog.waitFor()
    expect((await u.api.del(`/api/url/${id['part-b']}/delete`)).statusCode).toBe(200)
    await dialog.getByRole('button', { name: 'Delete 3 links' }).click()

    const report = page.getByRole('group', { name: 'Bulk action result' })
    await report.waitFor()
    expect(await report.textContent()).toContain('2 of 3 links deleted.')
    expect(await report.getByRole('listitem').allTextContents()).toEqual([`${short('part-b')} (part-b): Link not found.`])
    await status(page, /^2 of 3 links deleted\. 1 link failed/).waitFor()
    // focus goes to the report, which says which and why
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Bulk action result')
    expect(await exists(u, id['part-a'])).toBe(false)
    expect(await exists(u, id['part-c'])).toBe(false)
    expect(await exists(u, id['part-d'])).toBe(true)
    // the list reloaded: only part-d left, and nothing selected (the failed one is gone from the list)
    await expect.poll(() => page.getByRole('list', { name: 'Your links' }).getByRole('link').allTextContents()).toEqual([short('part-d')])
    expect(await bar(page).count()).toBe(0)
  })

  it('a session that ends mid-way stops the run: no request after the refused one, the page goes to the sign-in form', async () => {
    const { u, id } = await owner(['end-a', 'end-b', 'end-c'])
    const page = await open(u)
    for (const alias of ['end-a', 'end-b', 'end-c']) await box(page, alias).check()
    const deletes: string[] = []
    await page.route('**/api/url/*/delete', (route) => {
      deletes.push(new URL(route.request().url()).pathname)
      // the second answers as an ended session does
      if (deletes.length === 2) return route.fulfill({ status: 401, contentType: 'application/json', body: JSON.stringify({ error: 1, message: 'Sign in again.' }) })
      return route.continue()
    })
    await bar(page).getByRole('button', { name: 'Delete selected' }).click()
    await page.getByRole('dialog', { name: 'Delete 3 links?' }).getByRole('button', { name: 'Delete 3 links' }).click()
    await page.waitForURL((url) => url.pathname === '/login')
    // newest first: end-c went, end-b was refused, end-a was never asked for
    expect(deletes).toEqual([`/api/url/${id['end-c']}/delete`, `/api/url/${id['end-b']}/delete`])
    expect(await exists(u, id['end-c'])).toBe(false)
    expect(await exists(u, id['end-b'])).toBe(true)
    expect(await exists(u, id['end-a'])).toBe(true)
  })

  it('by keyboard alone: Space ticks, Tab reaches each of the bar\'s buttons, Clear selection returns focus to Select all', async () => {
    const { u, id } = await owner(['kb-a', 'kb-b', 'kb-c'])
    const page = await open(u)
    await selectAll(page).focus()
    await page.keyboard.press('Tab')
    // the first row's checkbox comes first in the row, before its short URL
    expect(await focused(page)).toBe(`Select ${short('kb-c')}`)
    await page.keyboard.press('Space')
    await expect.poll(() => bar(page).count()).toBe(1)
    await selectAll(page).focus()
    await page.keyboard.press('Space')
    await expect.poll(() => bar(page).textContent()).toContain('3 selected')
    const order: string[] = []
    for (let i = 0; i < 4; i++) {
      await page.keyboard.press('Tab')
      order.push(await focused(page))
    }
    expect(order).toEqual(['Delete selected', 'Add to campaign…', 'Add to channel…', 'Clear selection'])
    await page.keyboard.press('Enter')
    await expect.poll(() => bar(page).count()).toBe(0)
    expect(await focused(page)).toBe('Select all on this page')

    // and a whole delete: Space on a row, Tab to Delete selected, Enter, Tab to the confirm, Enter
    await box(page, 'kb-b').focus()
    await page.keyboard.press('Space')
    await bar(page).waitFor()
    await bar(page).getByRole('button', { name: 'Delete selected' }).focus()
    await page.keyboard.press('Enter')
    await page.getByRole('dialog', { name: 'Delete 1 link?' }).waitFor()
    await page.keyboard.press('Tab')
    await page.keyboard.press('Enter')
    await status(page, '1 link deleted.').waitFor()
    expect(await exists(u, id['kb-b'])).toBe(false)
    expect(await exists(u, id['kb-a'])).toBe(true)
    await expect.poll(() => focused(page)).toBe('Select all on this page')
  })

  it('at 360 px the bar and its buttons fit the screen, and the page does not scroll sideways', async () => {
    const { u } = await owner(['narrow-a', 'narrow-b'])
    const page = await open(u, PHONE)
    await selectAll(page).check()
    await bar(page).waitFor()
    for (const name of ['Delete selected', 'Add to campaign…', 'Add to channel…', 'Clear selection']) {
      const b = await bar(page).getByRole('button', { name }).boundingBox()
      expect(b, name).not.toBeNull()
      expect(b!.x, name).toBeGreaterThanOrEqual(0)
      expect(b!.x + b!.width, name).toBeLessThanOrEqual(PHONE.width)
    }
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width)
    // the existing names of the row are kept (DECISIONS §10.1): its short URL opens its analytics
    await page.getByRole('link', { name: short('narrow-a'), exact: true }).click()
    await page.waitForURL(/\/dashboard\/links\/\d+$/)
    await page.getByRole('heading', { name: short('narrow-a'), level: 1 }).waitFor()
  })
})
