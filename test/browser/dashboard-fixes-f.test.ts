import { beforeAll, describe, expect, it } from 'vitest'
import { inArray } from 'drizzle-orm'
import type { Page } from 'playwright-core'
import { blocklistEntries, channelItems, channels, users, webhookDeliveries } from '../../src/db/schema/index.js'
import { hasChromium, insertLink } from '../helpers/fixtures.js'
import type { TestUser } from '../helpers/app.js'
import { browserSuite } from './session.js'

/**
 * Dashboard fixes from an audit by keyboard alone and at 390 px (DECISIONS §10.1): focus never drops
 * to <body> (a dialog whose opener is gone, a pager's last page, an assigned link, a removed
 * targeting row), lists keep their search, filter and page in the address, a bad sort in the
 * address is the default, sign-in starts at the top, a slow server shows a loading line and a
 * silent one an error, links already in a campaign say so, headings nest, long lists page or say
 * what they leave out, and a checkbox keeps its size beside a long label.
 */
describe.skipIf(!hasChromium)('dashboard in Chromium: focus, the address, loading, headings, long lists', { timeout: 60_000 }, () => {
  const s = browserSuite({ dashboard: true, admin: { username: 'fix.f.admin' }, timeout: 8000 })
  let n = 0
  /** A pro account of its own: its pages start empty. */
  const fresh = () => s.t.makeUser({ plan: 'pro', username: `fix.f.${++n}` })

  const WIDE = { width: 1440, height: 900 }
  const PHONE = { width: 390, height: 844 }
  const open = (u: TestUser, viewport = WIDE) => s.signIn(u, { viewport })
  /** What has focus: its tag, accessible name (aria-label or text) and aria-disabled. */
  const focused = (p: Page) =>
    p.evaluate(() => {
      const a = document.activeElement
      return { tag: a?.tagName ?? '', name: a?.getAttribute('aria-label') ?? a?.textContent?.trim() ?? '', off: a?.getAttribute('aria-disabled') ?? '' }
    })
  const query = (p: Page) => Object.fromEntries(new URL(p.url()).searchParams)
  const addLinks = (u: TestUser, count: number, prefix: string) => Promise.all(Array.from({ length: count }, (_, i) => insertLink(s.t, u.user.id, { alias: `${prefix}${i}`, url: `https://example.com/${prefix}/${i}` })))

  it('1a: saving a dialog opened from an empty state focuses the page\'s New button, not <body>', async () => {
    const u = await fresh()
    const page = await open(u)
    // Links: "Create your first link" goes with the empty state once the list reloads
    await page.getByRole('button', { name: 'Create your first link' }).focus()
    await page.keyboard.press('Enter')
    const dialog = page.getByRole('dialog', { name: 'New link' })
    await dialog.getByLabel('Destination URL').fill('https://example.com/first')
    await dialog.getByLabel('Destination URL').press('Enter')
    await dialog.waitFor({ state: 'hidden' })
    await page.getByRole('list', { name: 'Your links' }).waitFor()
    await expect.poll(() => focused(page)).toMatchObject({ tag: 'BUTTON', name: 'New link' })
    // Campaigns: the same, in the shared Modal
    await page.goto(s.origin + '/dashboard/campaigns')
    await page.getByRole('button', { name: 'Create a campaign' }).focus()
    await page.keyboard.press('Enter')
    const form = page.getByRole('dialog', { name: 'New campaign' })
    await form.getByLabel('Campaign name').fill('Summer')
    await form.getByLabel('Campaign name').press('Enter')
    await page.getByRole('heading', { name: 'Summer', level: 2 }).waitFor()
    await expect.poll(() => focused(page)).toMatchObject({ tag: 'BUTTON', name: 'New campaign' })
  })

  it('1b: Next page onto the last page keeps focus on the pager, on the Links and Users pages', async () => {
    const u = await fresh()
    await addLinks(u, 21, 'pg')
    const page = await open(u)
    const pager = page.getByRole('group', { name: 'Pages of links' })
    await pager.getByText('Page 1 of 2 · 21 links').waitFor()
    await pager.getByRole('button', { name: 'Next page' }).focus()
    await page.keyboard.press('Enter')
    await pager.getByText('Page 2 of 2 · 21 links').waitFor()
    expect(await focused(page)).toEqual({ tag: 'BUTTON', name: 'Next page', off: 'true' })
    // pressing it again does nothing; Shift+Tab reaches Previous page, and Next is disabled then
    await page.keyboard.press('Enter')
    expect(query(page).page).toBe('2')
    await page.keyboard.press('Shift+Tab')
    expect(await focused(page)).toMatchObject({ name: 'Previous page' })
    expect(await pager.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true)

    // Users: the shared pager, over a list that tells no total
    const made = await s.t.app.db
      .insert(users)
      .values(Array.from({ length: 55 }, (_, i) => ({ email: `pager.${i}@example.com`, username: `pager.${i}`, passwordHash: 'x' })))
      .returning({ id: users.id })
    try {
      const admin = await open(s.admin)
      await admin.goto(s.origin + '/dashboard/admin/users')
      const users50 = admin.getByRole('group', { name: 'Pages of users' })
      await users50.getByText('Page 1', { exact: true }).waitFor()
      // a group, not a second navigation landmark beside the menu (DECISIONS 10.1)
      expect(await admin.getByRole('navigation').count()).toBe(1)
      await users50.getByRole('button', { name: 'Next page' }).focus()
      await admin.keyboard.press('Enter')
      // the last page, less than full, knows the total
      await users50.getByText(/^Page 2 of 2 · \d+ users$/).waitFor()
      await expect.poll(() => focused(admin)).toEqual({ tag: 'BUTTON', name: 'Next page', off: 'true' })
      expect(query(admin).page).toBe('2')
    } finally {
      await s.t.app.db.delete(users).where(inArray(users.id, made.map((r) => r.id)))
    }
  })

  it('1c, 6: Assign keeps focus on the now Assigned button and says so; a link already in the campaign shows Assigned', async () => {
    const u = await fresh()
    await u.api.post('/api/url/add', { url: 'https://example.com/assign-me', custom: 'assign-me' })
    await u.api.post('/api/url/add', { url: 'https://example.com/already', custom: 'already-in' })
    const campaign = (await u.api.post('/api/campaign/add', { name: 'Autumn' })).json().id
    const already = (await u.api.get('/api/v1/links?search=already-in&by=alias')).json().data[0].id
    await u.api.post(`/api/campaign/${campaign}/assign/${already}`)
    const page = await open(u)
    await page.goto(s.origin + '/dashboard/campaigns')
    await page.getByRole('button', { name: 'Assign links to Autumn' }).click()
    const dialog = page.getByRole('dialog', { name: 'Assign links to Autumn' })
    const assigned = dialog.getByRole('button', { name: /^Assigned: .*already-in$/ })
    await assigned.waitFor()
    expect(await assigned.getAttribute('aria-disabled')).toBe('true')
    await dialog.getByRole('button', { name: /^Assign .*assign-me$/ }).focus()
    await page.keyboard.press('Enter')
    await dialog.getByRole('button', { name: /^Assigned: .*assign-me$/ }).waitFor()
    expect(await focused(page)).toMatchObject({ tag: 'BUTTON', name: expect.stringMatching(/^Assigned: .*assign-me$/), off: 'true' })
    // announced inside the dialog (outside it, a modal's page is hidden from screen readers)
    await dialog.getByRole('status').filter({ hasText: /assign-me assigned to Autumn\./ }).waitFor()
    // a link already in the channel shows Added there too
    const channel = (await u.api.post('/api/channel/add', { name: 'Shelf' })).json().id
    await u.api.post(`/api/channel/${channel}/assign/links/${already}`)
    await page.goto(`${s.origin}/dashboard/channels/${channel}`)
    await page.getByRole('button', { name: 'Add items' }).click()
    await page.getByRole('dialog', { name: 'Add items to Shelf' }).getByRole('button', { name: /^Added: .*already-in$/ }).waitFor()
  })

  it('1d, 7: Add country focuses the new row; removing a row focuses the previous Remove, the last one Add country', async () => {
    const page = await open(await fresh())
    await page.getByRole('button', { name: 'New link' }).click()
    const dialog = page.getByRole('dialog', { name: 'New link' })
    await dialog.getByText('Targeting', { exact: true }).click()
    const add = dialog.getByRole('button', { name: 'Add country' })
    await add.focus()
    await page.keyboard.press('Enter')
    expect(await page.evaluate(() => document.activeElement?.id)).toBe(await dialog.getByLabel('Country 1', { exact: true }).getAttribute('id'))
    await add.focus()
    await page.keyboard.press('Enter')
    expect(await page.evaluate(() => document.activeElement?.id)).toBe(await dialog.getByLabel('Country 2', { exact: true }).getAttribute('id'))
    await dialog.getByRole('button', { name: 'Remove country row 2' }).focus()
    await page.keyboard.press('Enter')
    await expect.poll(() => focused(page)).toMatchObject({ name: 'Remove country row 1' })
    await page.keyboard.press('Enter')
    await expect.poll(() => focused(page)).toMatchObject({ name: 'Add country' })
    // parameters too: the new row's name field
    await dialog.getByText('Deep links and parameters', { exact: true }).click()
    await dialog.getByRole('button', { name: 'Add parameter' }).click()
    expect(await page.evaluate(() => document.activeElement?.id)).toBe(await dialog.getByLabel('Parameter name 1', { exact: true }).getAttribute('id'))
  })

  it('2: Users, Blocklist and webhook deliveries keep their search, filter and page in the address: reload and Back keep them', async () => {
    const page = await open(s.admin)
    await page.goto(s.origin + '/dashboard/admin/users')
    const email = s.admin.user.email
    await page.getByLabel('Search by email').fill(email)
    await page.getByRole('button', { name: 'Search' }).click()
    await expect.poll(() => query(page)).toEqual({ search: email })
    await page.getByLabel('Show').selectOption('admin')
    await expect.poll(() => query(page)).toEqual({ search: email, filter: 'admin' })
    await page.getByRole('row').filter({ hasText: 'fix.f.admin' }).waitFor()
    await page.reload()
    await page.getByRole('row').filter({ hasText: 'fix.f.admin' }).waitFor()
    expect(await page.getByLabel('Search by email').inputValue()).toBe(email)
    expect(await page.getByLabel('Show').inputValue()).toBe('admin')
    await page.goBack()
    await expect.poll(() => query(page)).toEqual({ search: email })
    await expect.poll(() => page.getByLabel('Show').inputValue()).toBe('')

    // the blocklist: its kind and page
    const entries = await s.t.app.db
      .insert(blocklistEntries)
      .values(Array.from({ length: 55 }, (_, i) => ({ type: 'domain' as const, value: `f${i}.blocked.invalid` })))
      .returning({ id: blocklistEntries.id })
    try {
      await page.goto(s.origin + '/dashboard/admin/blocklist')
      await page.getByLabel('Show').selectOption('domain')
      const pager = page.getByRole('group', { name: 'Pages of entries' })
      await pager.getByRole('button', { name: 'Next page' }).click()
      await pager.getByText('Page 2 of 2 · 55 entries').waitFor()
      expect(query(page)).toEqual({ type: 'domain', page: '2' })
      await page.reload()
      await pager.getByText('Page 2 of 2 · 55 entries').waitFor()
      expect(await page.getByLabel('Show').inputValue()).toBe('domain')
    } finally {
      await s.t.app.db.delete(blocklistEntries).where(inArray(blocklistEntries.id, entries.map((e) => e.id)))
    }

    // webhook deliveries: the open dialog and its page
    const u = await fresh()
    const url = 'https://93.184.216.34/hooks/f'
    const hook = (await u.api.post('/api/webhook/add', { url, events: ['link.created'] })).json().id
    await s.t.app.db.insert(webhookDeliveries).values(Array.from({ length: 60 }, () => ({ webhookId: hook, event: 'link.created' as const, data: '{}', status: 'delivered' as const, attempts: 1, responseStatus: 200, nextAttemptAt: new Date() })))
    const mine = await open(u)
    await mine.goto(s.origin + '/dashboard/webhooks')
    await mine.getByRole('button', { name: `Deliveries of ${url}` }).click()
    const deliveries = mine.getByRole('dialog', { name: `Deliveries to ${url}` }).getByRole('group', { name: 'Pages of deliveries' })
    await deliveries.getByRole('button', { name: 'Next page' }).click()
    await deliveries.getByText('Page 2 of 2 · 60 deliveries').waitFor()
    expect(query(mine)).toEqual({ deliveries: String(hook), page: '2' })
    await mine.reload()
    await deliveries.getByText('Page 2 of 2 · 60 deliveries').waitFor()
    await mine.goBack()
    await deliveries.getByText('Page 1 of 2 · 60 deliveries').waitFor()
  })

  it('3: an unknown sort, filter or page in the address is the default, not an error that Try again repeats', async () => {
    const u = await fresh()
    await addLinks(u, 2, 'sorted')
    const page = await open(u)
    await page.goto(s.origin + '/dashboard/links?sort=zzz&domain=abc&channel=-1&campaign=1.5&page=x')
    await page.getByRole('list', { name: 'Your links' }).waitFor()
    expect(await page.getByRole('alert').count()).toBe(0)
    expect(await page.getByLabel('Sort by').inputValue()).toBe('desc')
    expect(await page.getByLabel('Domain filter').inputValue()).toBe('')
    expect(await page.getByRole('list', { name: 'Your links' }).getByRole('listitem').count()).toBe(2)
  })

  it('4: after signing in (SSO lands on /dashboard), the first Tab reaches Skip to content', async () => {
    const page = await open(await fresh())
    // the layout moves focus a frame after a route change: give it two
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))))
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('BODY')
    await page.keyboard.press('Tab')
    expect(await focused(page)).toMatchObject({ tag: 'A', name: 'Skip to content' })
  })

  it('5: a slow /api/session shows a loading line from the first paint; a silent one ends in "cannot be reached"', async () => {
    const page = await open(await fresh())
    let answer = () => {}
    let gate = new Promise<void>((r) => (answer = r))
    await page.route('**/api/session', async (route) => {
      await gate
      await route.continue().catch(() => undefined)
    })
    let asked = page.waitForRequest('**/api/session')
    await page.goto(s.origin + '/dashboard/links', { waitUntil: 'commit' })
    const loading = page.getByRole('status').filter({ hasText: 'Loading the dashboard…' })
    await loading.waitFor()
    await asked
    expect(await loading.isVisible()).toBe(true)
    answer()
    await page.getByRole('heading', { name: 'Links', level: 1 }).waitFor()

    // a server that never answers: the page's clock moves past the 30 s timeout
    gate = new Promise<void>((r) => (answer = r))
    await page.clock.install()
    asked = page.waitForRequest('**/api/session')
    await page.goto(s.origin + '/dashboard/links')
    await asked
    await loading.waitFor()
    await page.clock.fastForward(31_000)
    await page.getByRole('heading', { name: 'The dashboard could not start' }).waitFor()
    expect(await page.getByText(/^Kurz cannot be reached/).textContent()).toMatch(/did not answer within 30 seconds/)
    answer()
  })

  it('8: empty states nest under their section, a non-admin gets an "Admins only" page, the SSO URL has a visible name', async () => {
    const u = await fresh()
    const page = await open(u)
    await page.goto(s.origin + '/dashboard/pages')
    await page.getByRole('heading', { name: 'No splash pages yet', level: 3 }).waitFor()
    await page.goto(s.origin + '/dashboard/admin/users')
    await page.getByRole('heading', { name: 'Admins only', level: 1 }).waitFor()
    expect(await page.title()).toBe('Admins only · Kurz')

    const admin = await open(s.admin)
    await admin.goto(s.origin + '/dashboard/admin/users?search=' + encodeURIComponent(u.user.email))
    await admin.getByRole('button', { name: `SSO URL of ${u.user.username}` }).click()
    const dialog = admin.getByRole('dialog', { name: `SSO URL of ${u.user.username}` })
    const box = dialog.getByRole('textbox', { name: 'SSO URL' })
    expect(await box.textContent()).toMatch(/\/sso\//)
    expect(await dialog.getByText('SSO URL', { exact: true }).isVisible()).toBe(true)
  })

  it('9: a channel\'s items page with the shared pager; a list longer than 1,000 says how much it leaves out', async () => {
    const u = await fresh()
    const channel = (await u.api.post('/api/channel/add', { name: 'Big shelf' })).json().id
    const made = await addLinks(u, 60, 'item')
    await s.t.app.db.insert(channelItems).values(made.map((l) => ({ channelId: channel, itemType: 'links' as const, itemId: l.id })))
    const page = await open(u)
    await page.goto(`${s.origin}/dashboard/channels/${channel}`)
    const pager = page.getByRole('group', { name: 'Pages of items' })
    await pager.getByText('Page 1 of 2 · 60 items').waitFor()
    await pager.getByRole('button', { name: 'Next page' }).click()
    await pager.getByText('Page 2 of 2 · 60 items').waitFor()
    expect(await page.locator('tbody tr').count()).toBe(10)
    expect(query(page)).toEqual({ page: '2' })

    await s.t.app.db.insert(channels).values(Array.from({ length: 1000 }, (_, i) => ({ userId: u.user.id, name: `Shelf ${i}` })))
    await page.goto(s.origin + '/dashboard/channels')
    await page.getByText('Showing 1,000 of 1,001 channels.').waitFor()
    // the oldest channel is past the first thousand: its page still finds its name
    await page.goto(`${s.origin}/dashboard/channels/${channel}`)
    await page.getByRole('heading', { name: 'Big shelf', level: 1 }).waitFor()
  })

  it('10: at 390 px the "Build app links" checkbox keeps its size beside its long label', async () => {
    const page = await open(await fresh(), PHONE)
    await page.getByRole('button', { name: 'New link' }).click()
    const dialog = page.getByRole('dialog', { name: 'New link' })
    await dialog.getByText('Deep links and parameters', { exact: true }).click()
    const box = await dialog.getByLabel('Build app links from the destination automatically').boundingBox()
    expect(box!.width).toBeGreaterThanOrEqual(13)
    expect(box!.height).toBeGreaterThanOrEqual(13)
  })
})
