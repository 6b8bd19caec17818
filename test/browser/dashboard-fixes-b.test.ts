import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { linkReports, links, webhookDeliveries } from '../../src/db/schema/index.js'
import { hasChromium, launchBrowser, listen } from '../helpers/fixtures.js'
import { testApp, type TestApp, type TestUser } from '../helpers/app.js'
import { ensureWebBuild } from './dashboard-web.js'

/**
 * Usability fixes of the dashboard, in a real browser (DECISIONS §10.1: by keyboard, at 360 px and
 * 1440 px): visible status messages, focus after a delete, the webhook deliveries dialog on a phone,
 * editing a webhook, accessible names that contain the visible text, the small-screen menu's
 * Escape, reports and their quarantine, plan prices, the sign-in page, badges and focus rings.
 */
describe.skipIf(!hasChromium)('dashboard in Chromium: usability fixes', () => {
  let t: TestApp
  let browser: Browser
  let origin: string
  let admin: TestUser
  let user: TestUser
  const scriptErrors: string[] = []
  const contexts: BrowserContext[] = []

  beforeAll(async () => {
    await ensureWebBuild()
    t = await testApp()
    origin = await listen(t.app)
    admin = await t.makeUser({ admin: true, username: 'fix.admin' })
    user = await t.makeUser({ plan: 'pro', username: 'fix.user', password: 'right password' })
    browser = await launchBrowser()
  })
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined)
    await browser?.close()
    await t?.close()
  })

  /** A fresh signed-in page (SSO), at 1440 px unless told. */
  async function open(u: TestUser, viewport = { width: 1440, height: 900 }): Promise<Page> {
    const context = await browser.newContext({ viewport })
    contexts.push(context)
    const page = await context.newPage()
    page.setDefaultTimeout(8000)
    page.on('pageerror', (e) => scriptErrors.push(e.message))
    await page.goto(origin + new URL((await admin.api.get(`/api/user/login/${u.user.id}`)).json().url).pathname)
    await page.waitForURL(`${origin}/dashboard/links`)
    await page.getByRole('heading', { name: 'Links', level: 1 }).waitFor()
    return page
  }
  const active = (page: Page) =>
    page.evaluate(() => {
      const a = document.activeElement
      return { tag: a?.tagName ?? '', id: a?.id ?? '', text: a?.textContent ?? '' }
    })
  /** The status message with this text, on screen (not a region moved off it). */
  async function expectShownStatus(page: Page, text: string | RegExp) {
    const status = page.getByRole('status').filter({ hasText: text })
    await status.waitFor()
    const box = await status.boundingBox()
    const size = page.viewportSize()!
    expect(box, 'status message box').not.toBeNull()
    expect(box!.width).toBeGreaterThan(20)
    expect(box!.x).toBeGreaterThanOrEqual(0)
    expect(box!.y).toBeGreaterThanOrEqual(0)
    expect(box!.x + box!.width).toBeLessThanOrEqual(size.width)
    expect(box!.y + box!.height).toBeLessThanOrEqual(size.height)
  }

  it('a saved email, a deleted channel and a deleted domain each show their own visible status message', async () => {
    const page = await open(user)
    await page.getByRole('navigation').getByRole('link', { name: 'Account' }).click()
    await page.getByLabel('Email address').fill('fix.user.new@example.com')
    await page.getByRole('button', { name: 'Change email' }).click()
    await expectShownStatus(page, 'Email changed to fix.user.new@example.com.')

    await user.api.post('/api/channel/add', { name: 'Short-lived' })
    await page.getByRole('navigation').getByRole('link', { name: 'Channels' }).click()
    await page.getByRole('button', { name: 'Delete Short-lived' }).click()
    await page.getByRole('dialog', { name: 'Delete this channel?' }).getByRole('button', { name: 'Delete channel' }).click()
    await expectShownStatus(page, 'Channel Short-lived deleted.')
    // one status message, with the delete's text, not a save's
    expect(await page.locator('#announcer').textContent()).toBe('Channel Short-lived deleted.')

    await user.api.post('/api/domain/add', { domain: 'https://go.fixes.example' })
    await page.getByRole('navigation').getByRole('link', { name: 'Domains' }).click()
    await page.getByRole('button', { name: 'Delete https://go.fixes.example' }).click()
    await page.getByRole('dialog', { name: 'Delete this domain?' }).getByRole('button', { name: 'Delete domain' }).click()
    await expectShownStatus(page, 'Domain https://go.fixes.example deleted.')

    // it can be dismissed, and then nothing is on screen
    await page.getByRole('button', { name: 'Dismiss message' }).click()
    await expect.poll(() => page.locator('#announcer').textContent()).toBe('')
  })

  it('deleting a link by keyboard moves focus to the next link, else the previous one, else the heading', async () => {
    const owner = await t.makeUser({ plan: 'pro' })
    for (const alias of ['kb-first', 'kb-second', 'kb-third']) await owner.api.post('/api/url/add', { url: `https://example.com/${alias}`, custom: alias })
    const page = await open(owner)
    const list = page.getByRole('list', { name: 'Your links' })
    await list.waitFor()
    const deleteByKeyboard = async (alias: string) => {
      await page.getByRole('button', { name: `Delete http://kurz.test/${alias}` }).focus()
      await page.keyboard.press('Enter')
      const dialog = page.getByRole('dialog', { name: 'Delete this link?' })
      await dialog.waitFor()
      // Cancel has focus; the delete button is next
      await page.keyboard.press('Tab')
      await page.keyboard.press('Enter')
      await page.getByRole('listitem').filter({ hasText: `/${alias}` }).waitFor({ state: 'detached' })
    }
    // newest first: third, second, first
    await deleteByKeyboard('kb-second')
    await expect.poll(() => active(page)).toEqual({ tag: 'A', id: '', text: 'http://kurz.test/kb-first' })
    await deleteByKeyboard('kb-first')
    await expect.poll(() => active(page)).toEqual({ tag: 'A', id: '', text: 'http://kurz.test/kb-third' })
    await deleteByKeyboard('kb-third')
    await page.getByRole('heading', { name: 'No links yet' }).waitFor()
    await expect.poll(() => active(page)).toEqual({ tag: 'H1', id: 'page-title', text: 'Links' })
    await expectShownStatus(page, 'Link http://kurz.test/kb-third deleted.')
  })

  it('the deliveries dialog fits a 360 px screen, scrolls its table in its own box, shows the next attempt and opens a long error', async () => {
    const long = `https://93.184.216.34/hooks/kurz/receiver/with/a/really-long-path-that-goes-on-and-on?token=${'abcdefghij'.repeat(4)}`
    const { id } = (await user.api.post('/api/webhook/add', { url: long, events: ['qr.scanned'] })).json()
    const error = `${long} could not be reached (ECONNREFUSED) after the receiver closed the connection without an answer`
    const soon = new Date(Date.now() + 3_600_000)
    await t.app.db.insert(webhookDeliveries).values([
      { webhookId: id, event: 'qr.scanned', data: '{}', status: 'pending', attempts: 2, error, nextAttemptAt: soon },
      { webhookId: id, event: 'qr.scanned', data: '{}', status: 'delivered', attempts: 1, responseStatus: 200, nextAttemptAt: soon },
    ])
    const page = await open(user, { width: 360, height: 740 })
    await page.goto(origin + '/dashboard/webhooks')
    await page.getByRole('button', { name: `Deliveries of ${long}` }).click()
    const dialog = page.getByRole('dialog', { name: `Deliveries to ${long}` })
    const table = dialog.getByRole('table')
    await table.waitFor()
    const fit = await dialog.evaluate((d) => {
      const r = d.getBoundingClientRect()
      const title = d.querySelector('h2')!.getBoundingClientRect()
      return { left: r.left, right: r.right, vw: innerWidth, scrollLeft: d.scrollLeft, overflow: d.scrollWidth - d.clientWidth, titleLeft: title.left, titleRight: title.right }
    })
    expect(fit.left).toBeGreaterThanOrEqual(0)
    expect(fit.right).toBeLessThanOrEqual(fit.vw)
    expect(fit.scrollLeft).toBe(0)
    expect(fit.overflow).toBeLessThanOrEqual(0)
    expect(fit.titleLeft).toBeGreaterThanOrEqual(fit.left)
    expect(fit.titleRight).toBeLessThanOrEqual(fit.right)
    // every column is there; the table scrolls in a focusable box of its own
    const headers = await table.getByRole('columnheader').allTextContents()
    expect(headers).toEqual(expect.arrayContaining(['Event', 'Status', 'Attempts', 'When', 'Next attempt']))
    const region = dialog.getByRole('region', { name: 'Deliveries table' })
    expect(await region.getAttribute('tabindex')).toBe('0')
    expect(await region.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true)
    const pending = table.getByRole('row').filter({ hasText: 'pending' })
    expect(await pending.getByRole('cell').nth(4).textContent()).not.toBe('—')
    expect(await table.getByRole('row').filter({ hasText: 'delivered' }).getByRole('cell').nth(4).textContent()).toBe('—')
    // the error, cut short at first, reads in full when opened
    const summary = pending.locator('summary')
    expect(await summary.textContent()).toBe(error)
    await summary.click()
    await expect.poll(() => pending.locator('details').evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true)
    const text = pending.locator('summary .truncate')
    expect(await text.evaluate((el) => el.scrollWidth <= el.clientWidth + 1 && getComputedStyle(el).whiteSpace === 'normal')).toBe(true)
  })

  it("edits a webhook's URL, events and description with the create form", async () => {
    const { id } = (await user.api.post('/api/webhook/add', { url: 'https://93.184.216.34/before', events: ['qr.scanned'], description: 'Before' })).json()
    const page = await open(user)
    await page.goto(origin + '/dashboard/webhooks')
    await page.getByRole('button', { name: 'Edit webhook https://93.184.216.34/before' }).click()
    const dialog = page.getByRole('dialog', { name: 'Edit webhook' })
    expect(await dialog.getByLabel('Endpoint URL').inputValue()).toBe('https://93.184.216.34/before')
    expect(await dialog.getByLabel('Description').inputValue()).toBe('Before')
    expect(await dialog.getByRole('checkbox', { name: 'qr.scanned' }).isChecked()).toBe(true)
    await dialog.getByLabel('Endpoint URL').fill('https://93.184.216.34/after')
    await dialog.getByLabel('Description').fill('After')
    await dialog.getByRole('checkbox', { name: 'qr.scanned' }).uncheck()
    await dialog.getByRole('checkbox', { name: 'qr.created' }).check()
    await dialog.getByRole('button', { name: 'Save webhook' }).click()
    await expectShownStatus(page, 'Webhook saved.')
    await page.getByRole('heading', { name: 'https://93.184.216.34/after' }).waitFor()
    expect((await user.api.get(`/api/webhook/${id}`)).json().data).toMatchObject({ url: 'https://93.184.216.34/after', events: ['qr.created'], description: 'After' })
  })

  it('accessible names start with the visible text and never hold a secret (WCAG 2.5.3)', async () => {
    await user.api.post('/api/campaign/add', { name: 'Autumn' })
    const { secret } = (await user.api.post('/api/webhook/add', { url: 'https://93.184.216.34/named', events: ['qr.scanned'] })).json()
    const page = await open(user)
    await page.goto(origin + '/dashboard/campaigns')
    const view = page.getByRole('link', { name: 'View links of Autumn', exact: true })
    expect(await view.textContent()).toBe('View links')
    await page.goto(origin + '/dashboard/webhooks')
    const copy = page.getByRole('button', { name: 'Copy secret of https://93.184.216.34/named', exact: true })
    expect(await copy.textContent()).toBe('Copy secret')
    const names = await page.getByRole('button').evaluateAll((bs) => bs.map((b) => b.getAttribute('aria-label') ?? b.textContent ?? ''))
    expect(names.join('\n')).not.toContain(secret)
  })

  it('at 360 px, Escape closes the open menu and gives focus back to the Menu button', async () => {
    const page = await open(user, { width: 360, height: 740 })
    const menu = page.getByRole('button', { name: 'Menu' })
    await menu.focus()
    await page.keyboard.press('Enter')
    expect(await menu.getAttribute('aria-expanded')).toBe('true')
    await page.getByRole('navigation').getByRole('link', { name: 'QR codes' }).focus()
    await page.keyboard.press('Escape')
    expect(await menu.getAttribute('aria-expanded')).toBe('false')
    expect(await page.locator('#sidenav').isVisible()).toBe(false)
    expect((await active(page)).text).toBe('Menu')
    // still one navigation landmark when open again (DECISIONS 10.1)
    await page.keyboard.press('Enter')
    expect(await page.getByRole('navigation').count()).toBe(1)
  })

  it('reports at 360 px: the card stacks, Release is offered for quarantined links only and asks first', async () => {
    const mk = async (alias: string, quarantined: boolean) => {
      const { id } = (await admin.api.post('/api/url/add', { url: `https://example.com/${alias}`, custom: alias })).json()
      if (quarantined) await t.app.db.update(links).set({ quarantined: true }).where(eq(links.id, id))
      await t.app.db.insert(linkReports).values({ linkId: id, shortUrl: `http://kurz.test/${alias}`, reason: 'phishing', comment: 'A fake bank login page, with a comment long enough to wrap', email: 'visitor@example.org' })
      return id as number
    }
    const held = await mk('report-held-with-a-long-alias', true)
    await mk('report-clean', false)
    const page = await open(admin, { width: 360, height: 740 })
    await page.goto(origin + '/dashboard/admin/blocklist')
    const reports = page.getByRole('list', { name: 'Reports' })
    const heldItem = reports.getByRole('listitem').filter({ hasText: 'report-held-with-a-long-alias' })
    const cleanItem = reports.getByRole('listitem').filter({ hasText: 'report-clean' })
    await heldItem.getByText('Quarantined', { exact: true }).waitFor()
    await cleanItem.getByText('Not quarantined', { exact: true }).waitFor()
    expect(await cleanItem.getByRole('button', { name: /^Release/ }).count()).toBe(0)

    // stacked: the short URL keeps whole words on a line, the button is whole and inside its card
    const release = heldItem.getByRole('button', { name: 'Release http://kurz.test/report-held-with-a-long-alias from quarantine' })
    const button = (await release.boundingBox())!
    const card = (await heldItem.boundingBox())!
    expect(await release.evaluate((b) => b.scrollWidth <= b.clientWidth)).toBe(true)
    expect(button.x + button.width).toBeLessThanOrEqual(card.x + card.width)
    const short = heldItem.getByText('http://kurz.test/report-held-with-a-long-alias')
    const lineHeight = await short.evaluate((el) => parseFloat(getComputedStyle(el).lineHeight) || 20)
    expect((await short.boundingBox())!.height).toBeLessThanOrEqual(lineHeight * 2.5)

    // it asks first; Cancel leaves the link quarantined
    await release.click()
    const ask = page.getByRole('dialog', { name: 'Release this link?' })
    await ask.getByRole('button', { name: 'Cancel' }).click()
    expect((await admin.api.get(`/api/url/${held}`)).json().details.quarantined).toBe(true)
    await release.click()
    await ask.getByRole('button', { name: 'Release link' }).click()
    await heldItem.getByText('Released', { exact: true }).waitFor()
    expect((await admin.api.get(`/api/url/${held}`)).json().details).not.toHaveProperty('quarantined')
    expect(await heldItem.getByRole('button', { name: /^Release/ }).count()).toBe(0)
  })

  it('a new plan with blank prices shows only the prices set, and one with none as free', async () => {
    const page = await open(admin)
    await page.goto(origin + '/dashboard/admin/plans')
    const create = async (name: string, monthly?: string) => {
      await page.getByRole('button', { name: 'New plan' }).click()
      const dialog = page.getByRole('dialog', { name: 'New plan' })
      await dialog.getByLabel('Plan name').fill(name)
      if (monthly) await dialog.getByLabel('Monthly price (optional)').fill(monthly)
      await dialog.getByRole('button', { name: 'Create plan' }).click()
      await dialog.waitFor({ state: 'hidden' })
      return page.getByRole('region', { name })
    }
    const monthly = await create('Monthly only', '19')
    await expect.poll(() => monthly.textContent()).toContain('19/month')
    expect(await monthly.textContent()).not.toMatch(/\b0\s*\/year|\b0 lifetime/)
    const none = await create('No prices')
    await none.waitFor()
    expect(await none.textContent()).toMatch(/free/i)
    expect(await none.textContent()).not.toMatch(/\b0\s*\/month|\b0\s*\/year|\b0 lifetime/)
  })

  it('/login keeps the email after a wrong password, fits a 360 px screen, and has an icon of its own', async () => {
    const context = await browser.newContext({ viewport: { width: 360, height: 740 } })
    contexts.push(context)
    const page = await context.newPage()
    const asked: string[] = []
    page.on('request', (r) => asked.push(new URL(r.url()).pathname))
    await page.goto(origin + '/login')
    const email = `o'brien&co@example.com`
    await page.fill('input[name="email"]', email)
    await page.fill('input[name="password"]', 'not the password')
    await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Sign in' }).click()])
    await page.getByText('Email or password is wrong.').waitFor()
    expect(await page.inputValue('input[name="email"]')).toBe(email)
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).name)).toBe('password')
    const layout = await page.evaluate(() => {
      const main = document.querySelector('main')!.getBoundingClientRect()
      const input = document.querySelector('input[name="email"]')!.getBoundingClientRect()
      const pad = parseFloat(getComputedStyle(document.querySelector('main')!).paddingLeft)
      return { left: main.left, right: innerWidth - main.right, inner: main.width - 2 * pad, input: input.width }
    })
    expect(layout.left).toBeGreaterThanOrEqual(8)
    expect(layout.right).toBeGreaterThanOrEqual(8)
    expect(layout.input).toBeGreaterThanOrEqual(layout.inner - 1)
    // its icon is Kurz's own, allowed by its CSP; no /favicon.ico is asked for
    const href = await page.locator('link[rel="icon"]').getAttribute('href')
    expect(href).toBe('/favicon.svg')
    const icon = await page.request.get(origin + href!)
    expect(icon.status()).toBe(200)
    expect(icon.headers()['content-type']).toBe('image/svg+xml')
    await page.waitForTimeout(300)
    expect(asked).not.toContain('/favicon.ico')
    // the dashboard names the same icon
    const dash = await open(user)
    expect(await dash.locator('link[rel="icon"]').getAttribute('href')).toBe('/favicon.svg')
  })

  it('shows the plan name once; a heading focused by the app has a ring for keyboard users only', async () => {
    const page = await open(user)
    // the SSO landing redirects to /dashboard/links before any input: its heading gets no ring
    await expect.poll(() => active(page)).toEqual({ tag: 'H1', id: 'page-title', text: 'Links' })
    expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).toBe('none')
    // by keyboard, the next page's heading shows where focus went
    await page.getByRole('navigation').getByRole('link', { name: 'Account' }).focus()
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor()
    await expect.poll(() => active(page)).toEqual({ tag: 'H1', id: 'page-title', text: 'Account' })
    expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).toBe('solid')
    // by mouse, it does not
    await page.getByRole('navigation').getByRole('link', { name: 'Links' }).click()
    await expect.poll(() => active(page)).toEqual({ tag: 'H1', id: 'page-title', text: 'Links' })
    expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).toBe('none')

    await page.getByRole('navigation').getByRole('link', { name: 'Account' }).click()
    const plan = page.locator('dt', { hasText: /^Plan$/ }).locator('xpath=following-sibling::dd[1]')
    await expect.poll(() => plan.textContent()).toBe('Pro')
    const adminPage = await open(admin)
    await adminPage.goto(origin + '/dashboard/admin/users')
    const row = adminPage.getByRole('row').filter({ hasText: 'fix.user' })
    await row.waitFor()
    expect(await row.getByRole('cell').nth(1).textContent()).toBe('Pro')
    expect(scriptErrors).toEqual([])
  })
})
