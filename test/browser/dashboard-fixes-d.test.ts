import { beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import type { Page } from 'playwright-core'
import { sessions, webhookDeliveries } from '../../src/db/schema/index.js'
import { contrastRatio, lowContrast, MIN_CONTRAST, parseColour } from '../../src/lib/colour.js'
import { hasChromium } from '../helpers/fixtures.js'
import type { TestUser } from '../helpers/app.js'
import { browserSuite } from './session.js'

/**
 * Dashboard fixes found by an audit in Chromium (DECISIONS §10.1, at 360 px and 1440 px): webhook
 * deliveries paged and retried wherever the API allows, a private campaign's list not offered,
 * sign-in returning to the page asked for, the QR designer's contrast warning, and the QR detail
 * page's content, scan address, edit and download size.
 */
describe.skipIf(!hasChromium)('dashboard in Chromium: deliveries, campaigns, sign-in return, QR codes', () => {
  const s = browserSuite({ dashboard: true, timeout: 8000 })
  let user: TestUser

  beforeAll(async () => {
    user = await s.t.makeUser({ plan: 'pro', username: 'fix.d', password: 'right password' })
  })

  const WIDE = { width: 1440, height: 900 }
  const PHONE = { width: 360, height: 740 }
  const open = (u: TestUser, viewport = WIDE) => s.signIn(u, { viewport })
  /** The status message with this text, shown. */
  const expectStatus = (page: Page, text: string | RegExp) => page.getByRole('status').filter({ hasText: text }).waitFor()

  describe('webhook deliveries', () => {
    const url = 'https://93.184.216.34/hooks/kurz/deliveries'
    let hook: number
    const later = () => new Date(Date.now() + 3_600_000)
    const error = `${url} could not be reached (ECONNREFUSED) after the receiver closed the connection without an answer`

    beforeAll(async () => {
      hook = (await user.api.post('/api/webhook/add', { url, events: ['link.created', 'link.clicked'] })).json().id
      // 263 deliveries; the 4 newest (the last inserted) are one of each case a retry differs in
      const older = Array.from({ length: 259 }, (_, i) => ({
        webhookId: hook,
        event: 'link.clicked' as const,
        data: '{}',
        status: i % 3 === 0 ? ('failed' as const) : ('delivered' as const),
        attempts: i % 3 === 0 ? 8 : 1,
        responseStatus: i % 3 === 0 ? 503 : 200,
        error: i % 3 === 0 ? error : null,
        nextAttemptAt: later(),
      }))
      await s.t.app.db.insert(webhookDeliveries).values([
        ...older,
        { webhookId: hook, event: 'link.created', data: '{}', status: 'delivered', attempts: 1, responseStatus: 200, nextAttemptAt: later() },
        { webhookId: hook, event: 'link.created', data: '{}', status: 'failed', attempts: 8, responseStatus: 500, error, nextAttemptAt: later() },
        { webhookId: hook, event: 'link.created', data: '{}', status: 'pending', attempts: 0, nextAttemptAt: later() },
        { webhookId: hook, event: 'link.created', data: '{}', status: 'pending', attempts: 3, responseStatus: 502, error, nextAttemptAt: later() },
      ])
    })

    async function openDeliveries(page: Page, of: string) {
      await page.goto(s.origin + '/dashboard/webhooks')
      await page.getByRole('button', { name: `Deliveries of ${of}` }).click()
      const dialog = page.getByRole('dialog', { name: `Deliveries to ${of}` })
      await dialog.getByRole('table').waitFor()
      return dialog
    }
    const bodyRows = (page: Page) => page.getByRole('dialog').locator('tbody tr')

    it('pages through all 263 deliveries with the shared pager, 50 a page, newest first', async () => {
      const page = await open(user)
      const asked: string[] = []
      page.on('request', (r) => {
        const u = new URL(r.url())
        if (u.pathname === `/api/webhook/${hook}/deliveries`) asked.push(u.search)
      })
      const dialog = await openDeliveries(page, url)
      const pager = dialog.getByRole('group', { name: 'Pages of deliveries' })
      await pager.getByText('Page 1 of 6 · 263 deliveries').waitFor()
      expect(await bodyRows(page).count()).toBe(50)
      // newest first: the pending one retried 3 times leads
      expect(await bodyRows(page).first().textContent()).toMatch(/^link\.createdpending/)
      await pager.getByRole('button', { name: 'Next page' }).click()
      await pager.getByText('Page 2 of 6 · 263 deliveries').waitFor()
      await expect.poll(() => bodyRows(page).first().textContent()).toMatch(/^link\.clicked/)
      for (let p = 3; p <= 6; p++) {
        await pager.getByRole('button', { name: 'Next page' }).click()
        await pager.getByText(`Page ${p} of 6 · 263 deliveries`).waitFor()
      }
      await expect.poll(() => bodyRows(page).count()).toBe(13)
      expect(await pager.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true)
      expect(asked).toContain('?page=6&limit=50')
    })

    it('at 1440 px the table fits the dialog, its Actions column included; at 360 px the dialog and its pager fit the screen', async () => {
      const page = await open(user)
      const dialog = await openDeliveries(page, url)
      const region = dialog.getByRole('region', { name: 'Deliveries table' })
      expect(await region.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0)
      const box = (await region.boundingBox())!
      const retries = dialog.getByRole('button', { name: /^(Retry|Send again|Send now) the / })
      expect(await retries.count()).toBeGreaterThan(0)
      for (const b of await retries.all()) {
        const r = (await b.boundingBox())!
        expect(r.x).toBeGreaterThanOrEqual(box.x)
        expect(r.x + r.width).toBeLessThanOrEqual(box.x + box.width)
      }
      // a long error opened in full still keeps the table inside the dialog
      await dialog.locator('tbody tr').first().locator('summary').click()
      expect(await region.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0)

      const phone = await open(user, PHONE)
      const small = await openDeliveries(phone, url)
      const pager = small.getByRole('group', { name: 'Pages of deliveries' })
      await pager.scrollIntoViewIfNeeded()
      const fit = await small.evaluate((d) => ({ right: d.getBoundingClientRect().right, vw: innerWidth, overflow: d.scrollWidth - d.clientWidth }))
      expect(fit.right).toBeLessThanOrEqual(fit.vw)
      expect(fit.overflow).toBeLessThanOrEqual(0)
      const p = (await pager.boundingBox())!
      expect(p.x).toBeGreaterThanOrEqual(0)
      expect(p.x + p.width).toBeLessThanOrEqual(fit.vw)
    })

    it('offers a retry for every delivery the API takes one for: failed, pending (tried or not) and delivered', async () => {
      const page = await open(user)
      const dialog = await openDeliveries(page, url)
      const row = (n: number) => bodyRows(page).nth(n)
      // newest first: pending tried 3 times, pending not yet tried, failed, delivered
      expect(await row(0).getByRole('button').last().textContent()).toBe('Retry')
      expect(await row(1).getByRole('button').last().textContent()).toBe('Send now')
      expect(await row(2).getByRole('button').last().textContent()).toBe('Retry')
      expect(await row(3).getByRole('button').last().textContent()).toBe('Send again')
      const retry = row(0).getByRole('button', { name: /^Retry the link\.created delivery of / })
      const [res] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST' && /\/deliveries\/\d+\/retry$/.test(r.url())), retry.click()])
      expect(res.status()).toBe(200)
      await expectStatus(page, 'The link.created delivery will be attempted again now.')
      expect(await dialog.getByRole('alert').count()).toBe(0)
    })

    it('a disabled webhook says why nothing can be retried instead of offering a retry the API refuses', async () => {
      const off = 'https://93.184.216.34/hooks/kurz/disabled'
      const { id } = (await user.api.post('/api/webhook/add', { url: off, events: ['link.created'] })).json()
      await s.t.app.db.insert(webhookDeliveries).values({ webhookId: id, event: 'link.created', data: '{}', status: 'failed', attempts: 8, error, nextAttemptAt: later() })
      await user.api.put(`/api/webhook/${id}/update`, { enabled: false })
      const page = await open(user)
      const dialog = await openDeliveries(page, off)
      await dialog.getByText('This webhook is disabled, so nothing is sent: enable it to retry a delivery.').waitFor()
      expect(await dialog.getByRole('button', { name: /^(Retry|Send)/ }).count()).toBe(0)
    })
  })

  describe('campaigns', () => {
    it("a private campaign offers no list URL, says only its owner sees its links and how to share them; made public, it offers one that opens", async () => {
      const { id } = (await user.api.post('/api/campaign/add', { name: 'Hidden plans' })).json()
      await user.api.post('/api/campaign/add', { name: 'Open day', public: true })
      const page = await open(user)
      await page.goto(s.origin + '/dashboard/campaigns')
      const hidden = page.getByRole('region', { name: 'Hidden plans' })
      const shown = page.getByRole('region', { name: 'Open day' })
      await hidden.waitFor()
      const list = `http://kurz.test/u/fix.d/${id}`
      expect(await hidden.textContent()).not.toContain('/u/fix.d/')
      expect(await hidden.getByRole('button', { name: /^Copy/ }).count()).toBe(0)
      await hidden.getByText('Private: only you see its links (View links). To share them on a public list page, edit the campaign and tick Public list page.').waitFor()
      expect(await shown.getByRole('button', { name: /^Copy: http:\/\/kurz\.test\/u\/fix\.d\/\d+$/ }).count()).toBe(1)
      // a visitor to the private list gets a 404, as the page now says
      expect((await page.request.get(`${s.origin}/u/fix.d/${id}`)).status()).toBe(404)

      await hidden.getByRole('button', { name: 'Edit Hidden plans' }).click()
      const dialog = page.getByRole('dialog', { name: 'Edit campaign' })
      await dialog.getByRole('checkbox', { name: 'Public list page' }).check()
      await dialog.getByRole('button', { name: 'Save campaign' }).click()
      await hidden.getByRole('button', { name: `Copy: ${list}` }).waitFor()
      expect(await hidden.getByText(/^Private:/).count()).toBe(0)
      expect((await page.request.get(`${s.origin}/u/fix.d/${id}`)).status()).toBe(200)
    })
  })

  describe('sign-in returns to the page asked for', () => {
    it('signed out, /dashboard/links/:id/edit goes to /login?next=…, and signing in lands back there', async () => {
      const { id } = (await user.api.post('/api/url/add', { url: 'https://example.com/next', custom: 'next-target' })).json()
      const page = await s.page({ viewport: PHONE })
      await page.goto(`${s.origin}/dashboard/links/${id}/edit?from=mail`)
      const asked = `/dashboard/links/${id}/edit?from=mail`
      await page.waitForURL(`${s.origin}/login?next=${encodeURIComponent(asked)}`)
      expect(await page.locator('input[type="hidden"][name="next"]').getAttribute('value')).toBe(asked)
      // a wrong password keeps it
      await page.fill('input[name="email"]', user.user.email)
      await page.fill('input[name="password"]', 'wrong password')
      await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Sign in' }).click()])
      await page.getByText('Email or password is wrong.').waitFor()
      expect(await page.locator('input[type="hidden"][name="next"]').getAttribute('value')).toBe(asked)
      await page.fill('input[name="password"]', 'right password')
      await Promise.all([page.waitForURL(s.origin + asked), page.getByRole('button', { name: 'Sign in' }).click()])
      await page.getByRole('heading', { name: 'Edit link', level: 1 }).waitFor()
    })

    it('a session ending under the app sends its next request to /login?next=<this page>, and back after signing in', async () => {
      const page = await open(user)
      await page.getByRole('navigation').getByRole('link', { name: 'Campaigns' }).click()
      await page.getByRole('heading', { name: 'Campaigns', level: 1 }).waitFor()
      await page.waitForLoadState('networkidle')
      await s.t.app.db.delete(sessions).where(eq(sessions.userId, user.user.id))
      await Promise.all([
        page.waitForURL(`${s.origin}/login?next=${encodeURIComponent('/dashboard/webhooks')}`),
        page.getByRole('navigation').getByRole('link', { name: 'Webhooks' }).click(),
      ])
      await page.fill('input[name="email"]', user.user.email)
      await page.fill('input[name="password"]', 'right password')
      await Promise.all([page.waitForURL(`${s.origin}/dashboard/webhooks`), page.getByRole('button', { name: 'Sign in' }).click()])
      await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor()
    })

    it('a next that leaves the dashboard is dropped: signing in lands on the link list', async () => {
      const page = await s.page({ viewport: WIDE })
      await page.goto(`${s.origin}/login?next=${encodeURIComponent('//evil.example/dashboard')}`)
      expect(await page.locator('input[name="next"]').count()).toBe(0)
      await page.fill('input[name="email"]', user.user.email)
      await page.fill('input[name="password"]', 'right password')
      await Promise.all([page.waitForURL(`${s.origin}/dashboard/links`), page.getByRole('button', { name: 'Sign in' }).click()])
    })
  })

  describe('QR codes', () => {
    it('the designer warns, next to the colours and before saving, of colours too alike to scan; nothing is disabled and the API says the same', async () => {
      const page = await open(user)
      await page.goto(s.origin + '/dashboard/qr')
      await page.getByRole('button', { name: 'New QR code' }).click()
      const dialog = page.getByRole('dialog', { name: 'New QR code' })
      await dialog.getByLabel('Name').fill('Pale')
      await dialog.getByLabel('Link URL').fill('https://example.com/pale')
      const fg = dialog.getByLabel('Foreground colour')
      const bg = dialog.getByLabel('Background colour')
      const warning = dialog.getByText(/^Too little contrast/)
      expect(await warning.count()).toBe(0)
      expect(await fg.getAttribute('aria-describedby')).toBeNull()

      await fg.fill('#eeeeee')
      await warning.waitFor()
      expect(await warning.textContent()).toBe('Too little contrast for a scanner (1.1:1; at least 2:1): darken the foreground or lighten the background.')
      const id = await warning.getAttribute('id')
      expect(id).toBeTruthy()
      expect(await fg.getAttribute('aria-describedby')).toBe(id)
      expect(await bg.getAttribute('aria-describedby')).toBe(id)
      // nothing silently disabled: saving is still offered, and the API refuses with its own words
      const create = dialog.getByRole('button', { name: 'Create QR code' })
      expect(await create.isEnabled()).toBe(true)
      await create.click()
      await dialog.getByRole('alert').filter({ hasText: 'foreground and background are too similar' }).waitFor()

      await fg.fill('#333333')
      await warning.waitFor({ state: 'detached' })
      expect(await fg.getAttribute('aria-describedby')).toBeNull()
      await create.click()
      await dialog.waitFor({ state: 'hidden' })
      await expectStatus(page, 'QR code created.')
    })

    it('the detail page shows what the code encodes and its scan address with a copy button, edits the code, and downloads the PNG at the list size', async () => {
      const made = (await user.api.post('/api/qr/add', { type: 'link', data: 'https://example.com/flyer', name: 'Flyer' })).json()
      const alias = new URL(made.link).pathname.split('/').pop()!
      const page = await open(user)
      await page.goto(s.origin + '/dashboard/qr')
      const listPng = await page.getByRole('link', { name: 'Download Flyer as PNG' }).getAttribute('href')
      await page.getByRole('link', { name: 'Flyer', exact: true }).click()
      await page.getByRole('heading', { name: 'Flyer', level: 1 }).waitFor()

      const scan = `http://kurz.test/q/${alias}`
      const about = page.getByRole('region', { name: 'What it encodes' })
      await about.getByText(scan, { exact: true }).waitFor()
      await about.getByText('https://example.com/flyer', { exact: true }).waitFor()
      await about.getByRole('button', { name: `Copy: ${scan}` }).click()
      await expectStatus(page, 'Scan address copied to the clipboard.')

      // the same PNG as the list's button, 600 px
      const png = await page.getByRole('link', { name: 'Download PNG' }).getAttribute('href')
      expect(png).toBe(listPng)
      expect(png).toContain('size=600')

      await page.getByRole('button', { name: 'Edit Flyer' }).click()
      const edit = page.getByRole('dialog', { name: 'Edit Flyer' })
      await expect.poll(() => edit.getByLabel('Link URL').inputValue()).toBe('https://example.com/flyer')
      await edit.getByLabel('Link URL').fill('https://example.com/flyer-2')
      await edit.getByRole('button', { name: 'Save QR code' }).click()
      await edit.waitFor({ state: 'hidden' })
      await expectStatus(page, 'QR code saved.')
      await about.getByText('https://example.com/flyer-2', { exact: true }).waitFor()
      expect((await user.api.get(`/api/qr/${made.id}/design`)).json().data.data).toBe('https://example.com/flyer-2')
    })

    it('a text code shows its text and says it has no scan address', async () => {
      const made = (await user.api.post('/api/qr/add', { type: 'text', data: 'Meet at <gate> 4 & "bring" tickets', name: 'Note' })).json()
      const page = await open(user, PHONE)
      await page.goto(`${s.origin}/dashboard/qr/${made.id}`)
      const about = page.getByRole('region', { name: 'What it encodes' })
      await about.getByText('Meet at <gate> 4 & "bring" tickets', { exact: true }).waitFor()
      await about.getByText('None: the code holds its text itself, so its scans are not counted.').waitFor()
      expect(await about.getByRole('button', { name: /^Copy/ }).count()).toBe(0)
      // the card fits the phone's screen
      const box = (await about.boundingBox())!
      expect(box.x + box.width).toBeLessThanOrEqual(360)
    })
  })
})

/** The one colour rule the API applies and the designer bundles (src/lib/colour.ts). */
describe('QR contrast rule', () => {
  it('warns exactly where the ratio is under the minimum, for a grid of colour pairs, in either order', () => {
    expect(MIN_CONTRAST).toBe(2)
    expect(contrastRatio(parseColour('#000')!, parseColour('#fff')!)).toBeCloseTo(21, 10)
    expect(lowContrast('#eeeeee', '#ffffff')).toBe(true)
    expect(lowContrast('#000000', '#ffffff')).toBe(false)
    const steps = ['00', '33', '66', '80', '99', 'bb', 'cc', 'ee', 'ff']
    const colours = steps.flatMap((a) => steps.flatMap((b) => ['00', 'aa', 'ff'].map((c) => `#${a}${b}${c}`)))
    for (let i = 0; i < colours.length; i += 7) {
      for (let j = 0; j < colours.length; j += 11) {
        const [fg, bg] = [colours[i], colours[j]]
        const ratio = contrastRatio(parseColour(fg)!, parseColour(bg)!)
        expect(ratio).toBeCloseTo(contrastRatio(parseColour(bg)!, parseColour(fg)!), 10)
        expect(lowContrast(fg, bg)).toBe(ratio < MIN_CONTRAST)
      }
    }
  })
})
