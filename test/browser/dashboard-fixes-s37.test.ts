import { beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { addLink, hasChromium } from '../helpers/fixtures.js'
import type { TestUser } from '../helpers/app.js'
import { browserSuite } from './session.js'

/**
 * Dashboard of session 37, a new user's walk through it: the users table keeps its buttons in sight
 * at phone width, a link deleted from its own page says so, a link search of an account without
 * links says there are none (not that the search missed), the link tester's sentence stands apart
 * from its fields, Cancel on an edit page opened in its own tab goes somewhere, and the empty
 * Webhooks page offers to add one.
 */
describe.skipIf(!hasChromium)('dashboard in Chromium: session 37 fixes', () => {
  const s = browserSuite({ dashboard: true, timeout: 8000 })
  const phone = { width: 360, height: 740 }
  const desk = { width: 1440, height: 900 }
  let user: TestUser

  beforeAll(async () => {
    user = await s.t.makeUser({ plan: 'pro', email: 'margaret.hamilton@apollo-guidance.example' })
  })

  const box = async (page: Page, selector: string) => (await page.locator(selector).first().boundingBox())!

  it('at 360 px the users table shows every row\'s Plan, SSO URL and Delete without scrolling sideways; a long email wraps', async () => {
    const page = await s.signIn(s.admin, { viewport: phone })
    await page.goto(s.origin + '/dashboard/admin/users')
    const table = page.getByRole('table', { name: 'Users' })
    await table.getByText('margaret.hamilton@apollo-guidance.example').waitFor()
    await expect.poll(() => page.locator('.table-wrap').evaluate((w) => w.scrollWidth - w.clientWidth)).toBeLessThanOrEqual(0)
    const wrap = await box(page, '.table-wrap')
    for (const name of [`Change plan of ${user.user.username}`, `SSO URL of ${user.user.username}`, `Delete ${user.user.username}`]) {
      const button = (await page.getByRole('button', { name }).boundingBox())!
      expect(button.x + button.width, name).toBeLessThanOrEqual(wrap.x + wrap.width)
    }
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(phone.width)
    await page.close()
  })

  it('deleting a link from its analytics page goes back to the list and says which link was deleted', async () => {
    const id = await addLink(user, { url: 'https://acme.example/gone', custom: 's37-gone' })
    for (const viewport of [desk, phone]) {
      const alias = `s37-gone-${viewport.width}`
      const linkId = viewport === desk ? id : await addLink(user, { url: 'https://acme.example/gone', custom: alias })
      const short = `http://kurz.test/${viewport === desk ? 's37-gone' : alias}`
      const page = await s.signIn(user, { viewport })
      await page.goto(`${s.origin}/dashboard/links/${linkId}`)
      await page.getByRole('heading', { name: short, level: 1 }).waitFor()
      await page.getByRole('button', { name: 'Delete', exact: true }).click()
      await page.getByRole('dialog', { name: 'Delete this link?' }).getByRole('button', { name: 'Delete link' }).click()
      await page.waitForURL(`${s.origin}/dashboard/links`)
      await page.getByRole('status').filter({ hasText: `Link ${short} deleted.` }).waitFor()
      await page.close()
    }
  })

  it('an account without links: the link search of Import/export says there are none yet, and a search that finds nothing says so', async () => {
    const fresh = await s.t.makeUser()
    const page = await s.signIn(fresh, { viewport: phone })
    await page.getByRole('navigation').getByRole('link', { name: 'Import/export' }).click()
    await page.getByText('You have no links yet: create them on the Links page.').waitFor()
    expect(await page.getByText('No link matches.').count()).toBe(0)
    await page.getByLabel('Find a link').fill('nothing-like-this')
    await page.getByText('No link matches.').waitFor()
    expect(await page.getByText(/You have no links yet/).count()).toBe(0)
    await page.close()
  })

  it('the "Test this link" panel: its sentence has room under it before the Device field', async () => {
    const id = await addLink(user, { url: 'https://acme.example/tested', custom: 's37-tested' })
    for (const viewport of [desk, phone]) {
      const page = await s.signIn(user, { viewport })
      await page.goto(`${s.origin}/dashboard/links/${id}/edit`)
      const panel = page.getByRole('region', { name: 'Test this link' })
      const sentence = panel.getByText('Describe a visitor to see where they would go. Nothing is counted.')
      await sentence.waitFor()
      const label = panel.getByText('Device', { exact: true })
      await expect.poll(async () => (await label.boundingBox())!.y - ((await sentence.boundingBox())!.y + (await sentence.boundingBox())!.height)).toBeGreaterThanOrEqual(8)
      await page.close()
    }
  })

  it('Cancel on an edit page opened in a tab of its own shows the link; opened from the list it goes back to the list', async () => {
    const id = await addLink(user, { url: 'https://acme.example/own-tab', custom: 's37-own-tab' })
    const list = await s.signIn(user, { viewport: desk })
    const tab = await list.context().newPage()
    tab.setDefaultTimeout(8000)
    await tab.goto(`${s.origin}/dashboard/links/${id}/edit`)
    await tab.getByRole('heading', { name: 'Edit link', level: 1 }).waitFor()
    await tab.getByRole('button', { name: 'Cancel' }).click()
    await tab.waitForURL(`${s.origin}/dashboard/links/${id}`)
    await tab.getByRole('heading', { name: 'http://kurz.test/s37-own-tab', level: 1 }).waitFor()
    await tab.close()

    await list.getByRole('button', { name: 'Edit http://kurz.test/s37-own-tab' }).click()
    await list.getByRole('heading', { name: 'Edit link', level: 1 }).waitFor()
    await list.getByRole('button', { name: 'Cancel' }).click()
    await list.waitForURL(`${s.origin}/dashboard/links`)
    await list.close()
  })

  it('the empty Webhooks page offers to add one from its empty state, like the other pages', async () => {
    const fresh = await s.t.makeUser({ plan: 'pro' })
    const page = await s.signIn(fresh, { viewport: phone })
    await page.getByRole('navigation').getByRole('link', { name: 'Webhooks' }).click()
    await page.getByRole('heading', { name: 'No webhooks yet' }).waitFor()
    await page.getByRole('button', { name: 'Add a webhook' }).click()
    await page.getByRole('dialog', { name: 'New webhook' }).getByLabel('Endpoint URL').waitFor()
    await page.close()
  })
})
