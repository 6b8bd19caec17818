import { beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { hasChromium } from '../helpers/fixtures.js'
import type { TestUser } from '../helpers/app.js'
import { browserSuite } from './session.js'

/**
 * Dashboard fixes found by an audit (DECISIONS §10.1: a navigation landmark with its links, at
 * 360 px and 1440 px): a page whose code cannot be loaded shows an error page inside the layout,
 * the navigation exists at 360 px without opening anything, the New link form asks before it
 * throws typed changes away, and form errors name fields by their labels.
 */
describe.skipIf(!hasChromium)('dashboard in Chromium: route errors, the narrow navigation, discarding a link, field labels', () => {
  const s = browserSuite({ dashboard: true, admin: { username: 'fix.e.admin' }, timeout: 8000 })
  let user: TestUser

  beforeAll(async () => {
    user = await s.t.makeUser({ plan: 'pro', username: 'fix.e', password: 'right password' })
  })

  const WIDE = { width: 1440, height: 900 }
  const PHONE = { width: 360, height: 740 }
  const open = (u: TestUser, viewport = WIDE) => s.signIn(u, { viewport })
  const activeId = (page: Page) => page.evaluate(() => document.activeElement?.id ?? '')
  const NAMES = ['Links', 'QR codes', 'Domains', 'Campaigns', 'Channels', 'Pixels', 'Pages', 'Webhooks', 'Account']

  it('a page whose code cannot be loaded shows an error page inside the layout, focused, with Reload', async () => {
    const page = await open(user)
    // the chunk file is gone (an upgrade while the tab was open)
    await page.route('**/CampaignsPage-*.js', (r) => r.fulfill({ status: 404, body: 'Not found' }))
    await page.getByRole('navigation').getByRole('link', { name: 'Campaigns' }).click()
    const heading = page.getByRole('heading', { name: 'This page could not be loaded', level: 1 })
    await heading.waitFor()
    expect(await page.getByText('Hey developer').count()).toBe(0)
    expect(await page.getByRole('alert').textContent()).toMatch(/Kurz was updated/)
    // the layout stays: navigation, Sign out
    const nav = page.getByRole('navigation', { name: 'Dashboard' })
    for (const name of NAMES) expect(await nav.getByRole('link', { name, exact: true }).isVisible()).toBe(true)
    expect(await page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(true)
    await expect.poll(() => activeId(page)).toBe('page-title')
    // another page still opens from the navigation
    await nav.getByRole('link', { name: 'Channels' }).click()
    await page.getByRole('heading', { name: 'Channels', level: 1 }).waitFor()
    // back on the broken page, Reload fetches it again once the file is there
    await page.goBack()
    await heading.waitFor()
    await page.unroute('**/CampaignsPage-*.js')
    await page.getByRole('button', { name: 'Reload' }).click()
    await page.getByRole('heading', { name: 'Campaigns', level: 1 }).waitFor()
  })

  it('at 360 px every navigation link is visible without opening anything, the strip scrolls and the page does not', async () => {
    const page = await open(user, PHONE)
    const nav = page.getByRole('navigation')
    expect(await nav.count()).toBe(1)
    expect(await page.getByRole('button', { name: 'Menu' }).count()).toBe(0)
    for (const name of NAMES) {
      const link = nav.getByRole('link', { name, exact: true })
      await link.scrollIntoViewIfNeeded()
      expect(await link.isVisible(), name).toBe(true)
    }
    const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
    expect(await overflow()).toBeLessThanOrEqual(0)
    const strip = await nav.evaluate((el) => ({ scrolls: el.scrollWidth > el.clientWidth, overflowX: getComputedStyle(el).overflowX }))
    expect(strip).toEqual({ scrolls: true, overflowX: 'auto' })
    // a click navigates; the current page's link is marked and brought into the strip's view
    await nav.getByRole('link', { name: 'Account', exact: true }).click()
    await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor()
    const current = nav.getByRole('link', { name: 'Account', exact: true })
    expect(await current.getAttribute('aria-current')).toBe('page')
    const inView = await current.evaluate((a) => {
      const r = a.getBoundingClientRect()
      const n = a.closest('nav')!.getBoundingClientRect()
      return r.left >= n.left && r.right <= n.right
    })
    expect(inView).toBe(true)
    expect(await overflow()).toBeLessThanOrEqual(0)
    // admins' links are in the strip too
    const admin = await open(s.admin, PHONE)
    for (const name of ['Users', 'Plans']) expect(await admin.getByRole('navigation').getByRole('link', { name, exact: true }).count()).toBe(1)
  })

  it('Escape, ✕ or Cancel on a New link form with typed changes asks first; an untouched one closes at once', async () => {
    const page = await open(user)
    const dialog = page.getByRole('dialog', { name: 'New link' })
    const ask = page.getByRole('dialog', { name: 'Discard this link?' })
    // untouched: Escape closes it, nothing asked
    await page.getByRole('button', { name: 'New link' }).click()
    await dialog.getByLabel('Destination URL').waitFor()
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'hidden' })
    expect(await ask.isVisible()).toBe(false)

    await page.getByRole('button', { name: 'New link' }).click()
    const url = dialog.getByLabel('Destination URL')
    await url.fill('https://example.com/typed-with-care')
    await url.press('Escape')
    await ask.waitFor()
    expect(await dialog.isVisible()).toBe(true)
    await ask.getByRole('button', { name: 'Keep editing' }).click()
    await ask.waitFor({ state: 'hidden' })
    expect(await url.inputValue()).toBe('https://example.com/typed-with-care')
    // ✕ asks too; Discard closes it
    await dialog.getByRole('button', { name: 'Close' }).click()
    await ask.getByRole('button', { name: 'Discard' }).click()
    await dialog.waitFor({ state: 'hidden' })
    // opened again, it starts empty
    await page.getByRole('button', { name: 'New link' }).click()
    expect(await dialog.getByLabel('Destination URL').inputValue()).toBe('')
    await dialog.getByLabel('Alias').fill('kept')
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await ask.waitFor()
    await ask.getByRole('button', { name: 'Keep editing' }).click()
    expect(await dialog.getByLabel('Alias').inputValue()).toBe('kept')
    // a created link closes it without asking
    await dialog.getByLabel('Destination URL').fill('https://example.com/created')
    await dialog.getByRole('button', { name: 'Create link' }).click()
    await dialog.waitFor({ state: 'hidden' })
    expect(await ask.isVisible()).toBe(false)
    expect(s.scriptErrors).toEqual([])
  })

  it('the Add domain form says a refused field by its label', async () => {
    const page = await open(user)
    await page.getByRole('navigation').getByRole('link', { name: 'Domains' }).click()
    await page.getByRole('button', { name: 'Add domain' }).first().click()
    const dialog = page.getByRole('dialog', { name: 'Add domain' })
    await dialog.getByLabel('Domain name').fill('not a domain')
    await dialog.getByRole('button', { name: 'Add domain' }).click()
    const note = dialog.getByRole('alert')
    await note.waitFor()
    expect(await note.textContent()).toBe('Domain name must not contain spaces or control characters.')
  })

  it('other forms say the API field by their label too: a webhook, a campaign', async () => {
    const page = await open(user)
    await page.goto(s.origin + '/dashboard/webhooks')
    await page.getByRole('button', { name: 'New webhook' }).click()
    let dialog = page.getByRole('dialog', { name: 'New webhook' })
    await dialog.getByLabel('Endpoint URL').fill('https://93.184.216.34/hook')
    await dialog.getByLabel('link.created').uncheck()
    await dialog.getByRole('button', { name: 'Add webhook' }).click()
    await expect.poll(() => dialog.getByRole('alert').textContent()).toBe('Events: must name at least one event.')

    await page.goto(s.origin + '/dashboard/campaigns')
    await page.getByRole('button', { name: 'New campaign' }).click()
    dialog = page.getByRole('dialog', { name: 'New campaign' })
    await dialog.getByLabel('Campaign name').fill('Spring')
    await dialog.getByLabel('Rotator slug').fill('bad slug!')
    await dialog.getByRole('button', { name: 'Create campaign' }).click()
    await expect.poll(() => dialog.getByRole('alert').textContent()).toBe('Rotator slug must be 3 to 64 letters, digits, dashes or underscores.')
  })
})
