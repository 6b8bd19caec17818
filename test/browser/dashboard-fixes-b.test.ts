import { beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import type { Page } from 'playwright-core'
import { linkReports, links, webhookDeliveries } from '../../src/db/schema/index.js'
import { hasChromium } from '../helpers/fixtures.js'
import type { TestUser } from '../helpers/app.js'
import { visit } from '../helpers/visits.js'
import { browserSuite } from './session.js'

/**
 * Usability fixes of the dashboard, in a real browser (DECISIONS §10.1: by keyboard, at 360 px and
 * 1440 px): visible status messages, focus after a delete, the webhook deliveries dialog on a phone,
 * editing a webhook, accessible names that contain the visible text, the small-screen navigation
 * by keyboard, reports (their quarantine, dismissing one), plan prices, the sign-in page, badges and
 * focus rings.
 */
describe.skipIf(!hasChromium)('dashboard in Chromium: usability fixes', () => {
  const s = browserSuite({ dashboard: true, admin: { username: 'fix.admin' }, timeout: 8000 })
  let user: TestUser

  beforeAll(async () => {
    user = await s.t.makeUser({ plan: 'pro', username: 'fix.user', password: 'right password' })
  })

  /** A fresh signed-in page (SSO), at 1440 px unless told. */
  const open = (u: TestUser, viewport = { width: 1440, height: 900 }) => s.signIn(u, { viewport })
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
    const owner = await s.t.makeUser({ plan: 'pro' })
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
    await s.t.app.db.insert(webhookDeliveries).values([
      { webhookId: id, event: 'qr.scanned', data: '{}', status: 'pending', attempts: 2, error, nextAttemptAt: soon },
      { webhookId: id, event: 'qr.scanned', data: '{}', status: 'delivered', attempts: 1, responseStatus: 200, nextAttemptAt: soon },
    ])
    const page = await open(user, { width: 360, height: 740 })
    await page.goto(s.origin + '/dashboard/webhooks')
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
    await page.goto(s.origin + '/dashboard/webhooks')
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
    await page.goto(s.origin + '/dashboard/campaigns')
    const view = page.getByRole('link', { name: 'View links of Autumn', exact: true })
    expect(await view.textContent()).toBe('View links')
    await page.goto(s.origin + '/dashboard/webhooks')
    const copy = page.getByRole('button', { name: 'Copy secret of https://93.184.216.34/named', exact: true })
    expect(await copy.textContent()).toBe('Copy secret')
    const names = await page.getByRole('button').evaluateAll((bs) => bs.map((b) => b.getAttribute('aria-label') ?? b.textContent ?? ''))
    expect(names.join('\n')).not.toContain(secret)
  })

  it('at 360 px the navigation needs no Menu button: its links are reached by keyboard, with a focus ring, in view', async () => {
    const page = await open(user, { width: 360, height: 740 })
    expect(await page.getByRole('button', { name: 'Menu' }).count()).toBe(0)
    const link = page.getByRole('navigation').getByRole('link', { name: 'Account' })
    // by Tab from the Links link, as a keyboard user would reach it
    await page.getByRole('navigation').getByRole('link', { name: 'Links' }).focus()
    for (let i = 0; i < 12 && (await active(page)).text !== 'Account'; i++) await page.keyboard.press('Tab')
    expect((await active(page)).text).toBe('Account')
    expect(await link.evaluate((a) => getComputedStyle(a).outlineStyle)).toBe('solid')
    const inView = await link.evaluate((a) => {
      const r = a.getBoundingClientRect()
      return r.left >= 0 && r.right <= innerWidth
    })
    expect(inView).toBe(true)
    // still one navigation landmark (DECISIONS 10.1)
    expect(await page.getByRole('navigation').count()).toBe(1)
  })

  it('reports at 360 px: the card stacks, Release is offered for quarantined links only and asks first', async () => {
    const mk = async (alias: string, quarantined: boolean) => {
      const { id } = (await s.admin.api.post('/api/url/add', { url: `https://example.com/${alias}`, custom: alias })).json()
      if (quarantined) await s.t.app.db.update(links).set({ quarantined: true }).where(eq(links.id, id))
      await s.t.app.db.insert(linkReports).values({ linkId: id, shortUrl: `http://kurz.test/${alias}`, reason: 'phishing', comment: 'A fake bank login page, with a comment long enough to wrap', email: 'visitor@example.org' })
      return id as number
    }
    const held = await mk('report-held-with-a-long-alias', true)
    await mk('report-clean', false)
    const page = await open(s.admin, { width: 360, height: 740 })
    await page.goto(s.origin + '/dashboard/admin/blocklist')
    const reports = page.getByRole('list', { name: 'Reports' })
    const heldItem = reports.getByRole('listitem').filter({ hasText: 'report-held-with-a-long-alias' })
    const cleanItem = reports.getByRole('listitem').filter({ hasText: 'report-clean' })
    await heldItem.getByText('Quarantined', { exact: true }).waitFor()
    await cleanItem.getByText('Not quarantined', { exact: true }).waitFor()
    expect(await cleanItem.getByRole('button', { name: /^Release/ }).count()).toBe(0)
    // where the reported link leads, to judge it without visiting it: text, never a link to follow
    await heldItem.getByText('→ https://example.com/report-held-with-a-long-alias', { exact: true }).waitFor()
    expect(await heldItem.getByRole('link').count()).toBe(0)

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
    expect((await s.admin.api.get(`/api/url/${held}`)).json().details.quarantined).toBe(true)
    await release.click()
    await ask.getByRole('button', { name: 'Release link' }).click()
    await heldItem.getByText('Released', { exact: true }).waitFor()
    expect((await s.admin.api.get(`/api/url/${held}`)).json().details).not.toHaveProperty('quarantined')
    expect(await heldItem.getByRole('button', { name: /^Release/ }).count()).toBe(0)
  })

  it('reports: Dismiss asks first, then the report leaves the list and the others stay; focus stays in the list, then on the heading', async () => {
    // a link nobody reports first, so that no report here has its link's id: a request naming the link instead fails
    await s.admin.api.post('/api/url/add', { url: 'https://example.com/unreported', custom: 'dismiss-unreported' })
    const ids: Record<string, number> = {}
    for (const alias of ['dismiss-one', 'dismiss-two', 'dismiss-three']) {
      ids[alias] = (await s.admin.api.post('/api/url/add', { url: `https://example.com/${alias}`, custom: alias })).json().id
      // as a visitor reports it: the public form
      const res = await visit(s.t, `/${alias}/report`, { form: { reason: 'spam', comment: `Spam behind ${alias}`, email: '' } })
      expect(res.statusCode).toBe(200)
    }
    const listed = async () => (await s.admin.api.get('/api/reports?limit=100')).json().data.reports as { id: number; shorturl: string }[]
    const two = (await listed()).find((r) => r.shorturl === 'http://kurz.test/dismiss-two')!
    const page = await open(s.admin)
    const deletes: string[] = []
    page.on('request', (r) => {
      if (r.method() === 'DELETE') deletes.push(new URL(r.url()).pathname)
    })
    await page.goto(s.origin + '/dashboard/admin/blocklist')
    const reports = page.getByRole('list', { name: 'Reports' })
    const item = (alias: string) => reports.getByRole('listitem').filter({ hasText: `http://kurz.test/${alias}` })
    await item('dismiss-one').waitFor()
    // every report has one, its visible text first in its name
    expect(await reports.getByRole('button', { name: /^Dismiss report about / }).count()).toBe(await reports.getByRole('listitem').count())
    // the name tells two reports of one link apart: their reasons and times follow the short URL
    const dismiss = page.getByRole('button', { name: /^Dismiss report about http:\/\/kurz\.test\/dismiss-two \(spam, .+\)$/ })
    expect(await dismiss.textContent()).toBe('Dismiss')

    // it asks first; Cancel sends nothing and keeps the report
    await dismiss.click()
    const ask = page.getByRole('dialog', { name: 'Dismiss this report?' })
    await ask.getByRole('button', { name: 'Cancel' }).click()
    await ask.waitFor({ state: 'hidden' })
    expect(deletes).toEqual([])
    expect((await listed()).map((r) => r.id)).toContain(two.id)

    await dismiss.click()
    await ask.getByRole('button', { name: 'Dismiss report' }).click()
    await expectShownStatus(page, 'Report about http://kurz.test/dismiss-two dismissed.')
    await item('dismiss-two').waitFor({ state: 'detached' })
    expect(deletes).toEqual([`/api/reports/${two.id}/delete`])
    await item('dismiss-one').waitFor()
    await item('dismiss-three').waitFor()
    const left = (await listed()).map((r) => r.shorturl)
    expect(left).not.toContain('http://kurz.test/dismiss-two')
    expect(left).toEqual(expect.arrayContaining(['http://kurz.test/dismiss-one', 'http://kurz.test/dismiss-three']))
    // the link itself stays
    expect((await s.admin.api.get(`/api/url/${ids['dismiss-two']}`)).statusCode).toBe(200)
    // focus went to the next report (newest first: three, two, one), not to <body>
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toMatch(/^Dismiss report about http:\/\/kurz\.test\/dismiss-one \(/)

    // the rest by keyboard: focus stays in the list while it has reports, then goes to the heading
    const rest = await listed()
    const inList = () => page.evaluate(() => document.activeElement?.closest('[aria-label="Reports"]') != null)
    for (const [i, r] of rest.entries()) {
      await reports.getByRole('button', { name: `Dismiss report about ${r.shorturl} (` }).first().focus()
      await page.keyboard.press('Enter')
      await ask.waitFor()
      // Cancel has focus; the dismiss button is next
      await page.keyboard.press('Tab')
      await page.keyboard.press('Enter')
      await expectShownStatus(page, `Report about ${r.shorturl} dismissed.`)
      await expect.poll(() => reports.getByRole('listitem').count()).toBe(rest.length - i - 1)
      if (i < rest.length - 1) await expect.poll(inList).toBe(true)
    }
    await page.getByRole('heading', { name: 'No reports' }).waitFor()
    await expect.poll(() => active(page)).toEqual({ tag: 'H1', id: 'page-title', text: 'Blocklist' })
    expect(await listed()).toEqual([])
    expect(deletes).toHaveLength(rest.length + 1)
  })

  it('reports: dismissing the only report of the last page shows the page before it, not an empty list', async () => {
    const linkId = (await s.admin.api.post('/api/url/add', { url: 'https://example.com/paged', custom: 'dismiss-paged' })).json().id
    // 51 reports: a page of 50 and one more
    await s.t.app.db.insert(linkReports).values(
      Array.from({ length: 51 }, (_, i) => ({ linkId, shortUrl: 'http://kurz.test/dismiss-paged', reason: 'spam' as const, comment: `report ${i}`, createdAt: new Date(Date.now() - i * 60_000) })),
    )
    const page = await open(s.admin)
    await page.goto(s.origin + '/dashboard/admin/blocklist')
    const pager = page.getByRole('group', { name: 'Pages of reports' })
    await pager.getByText('Page 1 of 2').waitFor()
    await pager.getByRole('button', { name: 'Next page' }).click()
    await pager.getByText('Page 2 of 2').waitFor()
    const reports = page.getByRole('list', { name: 'Reports' })
    await expect.poll(() => reports.getByRole('listitem').count()).toBe(1)
    await reports.getByRole('button', { name: /^Dismiss report about / }).click()
    await page.getByRole('dialog', { name: 'Dismiss this report?' }).getByRole('button', { name: 'Dismiss report' }).click()
    await expectShownStatus(page, 'Report about http://kurz.test/dismiss-paged dismissed.')
    // one page of 50 now: shown, with the count where the pager was
    await expect.poll(() => reports.getByRole('listitem').count()).toBe(50)
    await page.getByText('50 reports', { exact: true }).waitFor()
    expect(await page.getByRole('heading', { name: 'No reports' }).count()).toBe(0)
    await s.t.app.db.delete(linkReports).where(eq(linkReports.linkId, linkId))
  })

  it('a new plan with blank prices shows only the prices set, and one with none as free', async () => {
    const page = await open(s.admin)
    await page.goto(s.origin + '/dashboard/admin/plans')
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
    const context = await s.context({ viewport: { width: 360, height: 740 } })
    const page = await context.newPage()
    const asked: string[] = []
    page.on('request', (r) => asked.push(new URL(r.url()).pathname))
    await page.goto(s.origin + '/login')
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
    const icon = await page.request.get(s.origin + href!)
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
    // the SSO landing redirects to /dashboard/links: the first page shown, it starts at the top
    // (Skip to content first; dashboard-fixes-f), focus on no heading
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))))
    expect((await active(page)).tag).toBe('BODY')
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
    const adminPage = await open(s.admin)
    // the plan names arrive after the users: a row never shows a plan's number in place of its name
    await adminPage.route('**/api/plans', async (route) => {
      await new Promise((r) => setTimeout(r, 400))
      await route.continue()
    })
    await adminPage.goto(s.origin + '/dashboard/admin/users')
    const row = adminPage.getByRole('row').filter({ hasText: 'fix.user' })
    await row.waitFor()
    expect(await row.getByRole('cell').nth(1).textContent()).toBe('Pro')
    expect(s.scriptErrors).toEqual([])
  })
})
