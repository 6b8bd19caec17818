import { beforeAll, describe, expect, it } from 'vitest'
import type { Locator } from 'playwright-core'
import { hasChromium, makePixel } from '../helpers/fixtures.js'
import type { TestUser } from '../helpers/app.js'
import { browserSuite } from './session.js'
import { expectMarked, focusedAlert as focused } from './refusal-checks.js'

/**
 * Every form of the dashboard marks the field a refusal names, as the link form does
 * (dashboard-fixes-c): the API names it first by its body name; the form marks that control
 * (aria-invalid, described by the message, a red edge), the message takes focus and says the
 * field by the form's label. A message naming no field of the form marks nothing.
 */
describe.skipIf(!hasChromium)('dashboard in Chromium: a refused form marks the field it names', () => {
  const s = browserSuite({ dashboard: true, timeout: 8000 })
  let user: TestUser

  beforeAll(async () => {
    user = await s.t.makeUser({ plan: 'pro' })
  })

  const marked = (scope: Locator) => scope.locator('[aria-invalid="true"]').count()


  it('Add domain: a domain with a path marks Domain name (its hint still describes it); a refused root redirect then moves the mark there', async () => {
    const page = await s.signIn(user)
    await page.goto(`${s.origin}/dashboard/domains`)
    await page.getByRole('button', { name: 'Add domain' }).first().click()
    const dialog = page.getByRole('dialog', { name: 'Add domain' })
    const name = dialog.getByLabel('Domain name')
    await name.fill('https://go.refused.example/path')
    await dialog.getByRole('button', { name: 'Add domain' }).click()
    await expectMarked(page, dialog, name, /^Domain name must be an origin only/)
    const described = (await name.getAttribute('aria-describedby'))!.split(' ')
    expect(await page.locator(`[id="${described[0]}"]`).textContent()).toMatch(/^With http:\/\/ or https:\/\//)

    // submitted again with the name fixed: the new refusal names the root redirect, and only it is marked
    await name.fill('https://go.refused.example')
    const root = dialog.getByLabel('Root redirect')
    await root.fill('https://go.refused.example/home')
    await root.press('Enter')
    await expectMarked(page, dialog, root, /^Root redirect must not point back at the domain itself/)
    expect(await name.getAttribute('aria-invalid')).toBeNull()
    expect((await name.getAttribute('aria-describedby'))?.split(' ')).toEqual([described[0]])

    // fixed, it goes through
    await root.fill('https://example.com/')
    await dialog.getByRole('button', { name: 'Add domain' }).click()
    await dialog.waitFor({ state: 'hidden' })
    await page.close()
  })

  it('New campaign: a bad slug marks Rotator slug and says it by that label', async () => {
    const page = await s.signIn(user)
    await page.goto(`${s.origin}/dashboard/campaigns`)
    await page.getByRole('button', { name: 'New campaign' }).first().click()
    const dialog = page.getByRole('dialog', { name: 'New campaign' })
    await dialog.getByLabel('Campaign name').fill('Spring')
    const slug = dialog.getByLabel('Rotator slug')
    await slug.fill('a!')
    await dialog.getByRole('button', { name: 'Create campaign' }).click()
    await expectMarked(page, dialog, slug, /^Rotator slug must be 3 to 64 letters/)
    expect(await dialog.getByLabel('Campaign name').getAttribute('aria-invalid')).toBeNull()
    await page.close()
  })

  it('New pixel: a bad tag marks Tag; a refusal naming no field (the plan) then marks nothing and is shown as the API says it', async () => {
    // a plan of one pixel, used up after the page loaded (by the API, another tab): the page still
    // offers New pixel (it hides it once its list is at the cap), and the API's count refusal names no field
    const onePixel = await s.t.makeUser({ features: { pixels: { enabled: '1', count: '1' } } })
    const page = await s.signIn(onePixel)
    await page.goto(`${s.origin}/dashboard/pixels`)
    await page.getByRole('heading', { name: 'No pixels yet' }).waitFor()
    await makePixel(s.t, onePixel.user.id, 'The one')
    await page.getByRole('button', { name: 'New pixel' }).first().click()
    const dialog = page.getByRole('dialog', { name: 'New pixel' })
    await dialog.getByLabel('Pixel name').fill('Site tags')
    const tag = dialog.getByLabel('Tag')
    await tag.fill('GTM <script>')
    await dialog.getByRole('button', { name: 'Create pixel' }).click()
    await expectMarked(page, dialog, tag, /^Tag must be 1 to 64 letters/)

    await tag.fill('GTM-AB12CD3')
    await dialog.getByRole('button', { name: 'Create pixel' }).click()
    const alert = dialog.getByRole('alert')
    await expect.poll(() => alert.textContent()).toBe('Your plan allows 1 of the "pixels" feature; delete one or upgrade.')
    await expect.poll(() => focused(page)).toMatchObject({ role: 'alert' })
    expect(await marked(dialog)).toBe(0)
    expect(await tag.getAttribute('aria-invalid')).toBeNull()
    expect((await tag.getAttribute('aria-describedby'))?.split(' ')).not.toContain(await alert.getAttribute('id'))
    await page.close()
  })

  it('New webhook: a URL that is not http(s) marks Endpoint URL', async () => {
    const page = await s.signIn(user)
    await page.goto(`${s.origin}/dashboard/webhooks`)
    await page.getByRole('button', { name: 'New webhook' }).first().click()
    const dialog = page.getByRole('dialog', { name: 'New webhook' })
    const url = dialog.getByLabel('Endpoint URL')
    await url.fill('ftp://example.com/hook')
    await dialog.getByRole('button', { name: 'Add webhook' }).click()
    await expectMarked(page, dialog, url, /^Endpoint URL must be an http\(s\) URL/)
    await page.close()
  })

  it('New QR code: a phone number that is none marks Phone number, the field the API calls data', async () => {
    const page = await s.signIn(user)
    await page.goto(`${s.origin}/dashboard/qr`)
    await page.getByRole('button', { name: 'New QR code' }).click()
    const dialog = page.getByRole('dialog', { name: 'New QR code' })
    await dialog.getByLabel('Type', { exact: true }).selectOption('phone')
    const phone = dialog.getByLabel('Phone number')
    await phone.fill('call me')
    await dialog.getByRole('button', { name: 'Create QR code' }).click()
    await expectMarked(page, dialog, phone, /^Phone number must be a phone number/)
    await page.close()
  })

  it('Account: a password too short marks New password in its own form only', async () => {
    const page = await s.signIn(user)
    await page.goto(`${s.origin}/dashboard/account`)
    const form = page.getByRole('form', { name: 'Password' })
    const password = form.getByLabel('New password', { exact: true })
    await password.fill('abc')
    await form.getByLabel('New password again').fill('abc')
    await form.getByRole('button', { name: 'Change password' }).click()
    await expectMarked(page, form, password, /^New password must be at least 5 characters/)
    expect(await page.getByRole('form', { name: 'Email' }).getByLabel('Email address').getAttribute('aria-invalid')).toBeNull()
    await page.close()
  })

  it('New plan, as admin: a links limit too large marks Links, the field named by its path limits.links', async () => {
    const page = await s.signIn(s.admin)
    await page.goto(`${s.origin}/dashboard/admin/plans`)
    await page.getByRole('button', { name: 'New plan' }).click()
    const dialog = page.getByRole('dialog', { name: 'New plan' })
    await dialog.getByLabel('Plan name').fill('Huge')
    const links = dialog.getByLabel('Links', { exact: true })
    await links.fill('3000000000')
    await dialog.getByRole('button', { name: 'Create plan' }).click()
    await expectMarked(page, dialog, links, /^Links is too large\.$/)
    await page.close()
  })
})
