import { describe, expect, it } from 'vitest'
import type { Locator } from 'playwright-core'
import { addLink, hasChromium, makeCampaign, makeDomain, makePage, makePixel } from '../helpers/fixtures.js'
import { browserSuite } from './session.js'

/**
 * The link form of session 40: what the plan lacks is locked before anyone fills it in, and says
 * so beside it; what a link already uses stays open so it can be dropped.
 */
describe.skipIf(!hasChromium)('dashboard in Chromium: session 40, the link form and the plan', () => {
  const s = browserSuite({ dashboard: true, timeout: 8000 })
  const viewport = { width: 1280, height: 900 }

  /** the hint a control's aria-describedby names */
  const description = async (control: Locator) => {
    const ids = (await control.getAttribute('aria-describedby'))?.split(' ') ?? []
    const texts = await Promise.all(ids.map((id) => control.page().locator(`[id="${id}"]`).innerText()))
    return texts.join(' ')
  }

  it('a plan without the features locks their fields, says why, and a plain link is still made', async () => {
    const user = await s.t.makeUser({ off: ['custom', 'domain', 'geo', 'device', 'parameters', 'pixels', 'bundle', 'splash'], username: 'lean.plan' })
    // objects made before the plan lost the features: the form lists them but cannot attach them
    await makeDomain(s.t, user.user.id, 'https://go.lean.example')
    await makePixel(s.t, user.user.id, 'Old tag')
    await makeCampaign(s.t, user.user.id, 'Old campaign')
    await makePage(s.t, user.user.id, 'splash', 'Old splash')
    await makePage(s.t, user.user.id, 'overlay', 'Still fine')

    const page = await s.signIn(user, { viewport })
    await page.getByRole('button', { name: 'New link' }).click()
    const dialog = page.getByRole('dialog', { name: 'New link' })
    const alias = dialog.getByLabel('Alias', { exact: true })
    // the alias stays editable (a named field of DECISIONS §10.1); its hint says what the plan lacks
    await alias.waitFor()
    expect(await alias.isDisabled()).toBe(false)
    expect(await description(alias)).toBe('Your plan does not include custom aliases. Leave it empty for a random one.')
    const domain = dialog.getByLabel('Domain', { exact: true })
    expect(await domain.isDisabled()).toBe(true)
    expect(await description(domain)).toBe('Your plan does not include branded domains.')
    if (process.env.SHOT) await page.screenshot({ path: '/tmp/s40-locked-top.png' })

    await dialog.getByText('Redirect type, password and expiry').click()
    const type = dialog.getByLabel('Redirect type')
    expect(await description(type)).toBe('Your plan does not include splash pages.')
    expect(await type.locator('option', { hasText: 'Splash: Old splash' }).isDisabled()).toBe(true)
    // overlays are in this plan
    expect(await type.locator('option', { hasText: 'Overlay: Still fine' }).isDisabled()).toBe(false)
    expect(await type.locator('option', { hasText: 'Splash page with a countdown' }).isDisabled()).toBe(false)

    await dialog.getByText('Targeting', { exact: true }).click()
    const country = dialog.getByRole('group', { name: 'By country' })
    await expect.poll(() => country.getByText('Your plan does not include targeting by country.').isVisible()).toBe(true)
    expect(await country.getByRole('button', { name: 'Add country' }).isDisabled()).toBe(true)
    expect(await dialog.getByRole('group', { name: 'By device' }).getByRole('button', { name: 'Add device' }).isDisabled()).toBe(true)
    // languages need no feature
    expect(await dialog.getByRole('group', { name: 'By language' }).getByRole('button', { name: 'Add language' }).isDisabled()).toBe(false)

    await dialog.getByText('Deep links and parameters').click()
    const params = dialog.getByRole('group', { name: 'Parameters' })
    expect(await params.getByText('Your plan does not include parameters.').isVisible()).toBe(true)
    expect(await params.getByRole('button', { name: 'Add parameter' }).isDisabled()).toBe(true)

    await dialog.getByText('Channel, campaign and pixels').click()
    const campaign = dialog.getByLabel('Campaign')
    expect(await campaign.isDisabled()).toBe(true)
    expect(await description(campaign)).toBe('Your plan does not include campaigns.')
    const pixels = dialog.getByRole('group', { name: 'Pixels' })
    expect(await pixels.getByText('Your plan does not include pixels.').isVisible()).toBe(true)
    expect(await pixels.getByRole('checkbox', { name: /Old tag/ }).isDisabled()).toBe(true)
    expect(await dialog.getByLabel('Channel').isDisabled()).toBe(false)

    if (process.env.SHOT) await dialog.screenshot({ path: '/tmp/s40-locked-form.png' })
    await dialog.getByLabel('Destination URL').fill('https://lean.example/page')
    await dialog.getByRole('button', { name: 'Create link' }).click()
    await dialog.waitFor({ state: 'hidden' })
    const urls = (await user.api.get('/api/urls')).json().data.urls
    expect(urls.map((u: { longurl: string }) => u.longurl)).toEqual(['https://lean.example/page'])

    // the links it selects cannot go into a campaign; a bulk create's lines take no alias
    await page.getByRole('checkbox', { name: 'Select all on this page' }).check()
    await page.getByRole('button', { name: 'Add to channel…' }).waitFor()
    expect(await page.getByRole('button', { name: 'Add to campaign…' }).count()).toBe(0)
    await page.getByRole('button', { name: 'Bulk create' }).click()
    const bulk = page.getByRole('dialog', { name: 'Bulk create links' })
    expect(await description(bulk.getByLabel('Links to create'))).toMatch(/^One destination URL per line\. Your plan does not include custom aliases\. Each link gets a random alias\. At most/)
  })

  it('a plan with every feature locks nothing and says nothing of its plan', async () => {
    const user = await s.t.makeUser({ off: [], username: 'full.plan' })
    const page = await s.signIn(user, { viewport })
    await page.getByRole('button', { name: 'New link' }).click()
    const dialog = page.getByRole('dialog', { name: 'New link' })
    const alias = dialog.getByLabel('Alias', { exact: true })
    await alias.waitFor()
    expect(await alias.isDisabled()).toBe(false)
    expect(await description(alias)).toBe('Optional; a random one is chosen otherwise.')
    expect(await dialog.getByText(/Your plan does not include/).count()).toBe(0)
    expect(await dialog.locator(':disabled').count()).toBe(0)
    await dialog.getByLabel('Destination URL').fill('https://full.example/')
    await dialog.getByRole('button', { name: 'Create link' }).click()
    await dialog.waitFor({ state: 'hidden' })
    await page.getByRole('checkbox', { name: 'Select all on this page' }).check()
    await page.getByRole('button', { name: 'Add to campaign…' }).waitFor()
  })

  it('a link that uses what its plan lost keeps it open to drop: its targets and campaign are removed', async () => {
    const user = await s.t.makeUser({ off: [], username: 'downgraded' })
    const campaign = await makeCampaign(s.t, user.user.id, 'Spring')
    const id = await addLink(user, { url: 'https://down.example/', geotarget: [{ location: 'DE', link: 'https://down.example/de' }], campaign: campaign.id })
    const off = { geo: { enabled: '0' }, bundle: { enabled: '0' } }
    expect((await s.admin.api.put(`/api/plan/${user.user.planId}/update`, { limits: off })).statusCode).toBe(200)

    const page = await s.signIn(user, { viewport })
    await page.goto(`${s.origin}/dashboard/links/${id}/edit`)
    const country = page.getByRole('group', { name: 'By country' })
    await expect.poll(() => country.getByText('Your plan does not include targeting by country.').isVisible()).toBe(true)
    // the row is there and can go; nothing new can be added once it has
    await country.getByRole('button', { name: 'Remove country row 1' }).click()
    expect(await country.getByRole('button', { name: 'Add country' }).isDisabled()).toBe(true)
    await page.getByText('Channel, campaign and pixels').click()
    const select = page.getByLabel('Campaign')
    expect(await select.isDisabled()).toBe(false)
    expect(await description(select)).toBe('Your plan does not include campaigns.')
    await select.selectOption({ label: 'None' })
    await page.getByRole('button', { name: 'Save changes' }).click()
    await expect.poll(async () => (await user.api.get(`/api/url/${id}?full=1`)).json().details.campaign).toBe(null)
    expect((await user.api.get(`/api/url/${id}?full=1`)).json().details.location).toEqual({})
  })

  it('the Account page shows the plan\'s caps and what is used of them, and what the plan leaves out', async () => {
    const user = await s.t.makeUser({ off: ['pixels', 'team'], maxLinks: 10, username: 'counting' })
    await addLink(user, { url: 'https://count.example/1' })
    await addLink(user, { url: 'https://count.example/2' })
    await makePage(s.t, user.user.id, 'splash', 'Hello')
    const page = await s.signIn(user, { viewport })
    await page.goto(`${s.origin}/dashboard/account`)
    const card = page.locator('section.card', { has: page.getByRole('heading', { name: 'Plan and usage' }) })
    const rows = async () => {
      const dts = await card.locator('dt').allInnerTexts()
      const dds = await card.locator('dd').allInnerTexts()
      return Object.fromEntries(dts.map((dt, i) => [dt, dds[i]]))
    }
    await card.locator('dl').waitFor()
    const month = new Date().toLocaleDateString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' })
    expect(await rows()).toEqual({
      Links: '2 of 10',
      [`Detailed clicks in ${month}`]: '0, no limit',
      'Click details kept': 'Forever',
      'Branded domains': '0, no limit',
      Pixels: 'Not in your plan',
      'Splash pages': '1, no limit',
      'CTA overlays': '0, no limit',
    })
    const meter = card.getByRole('meter', { name: 'Links: 2 of 10' })
    expect(await meter.getAttribute('value')).toBe('2')
    expect(await meter.getAttribute('max')).toBe('10')
    expect(await card.getByText('Not in your plan: pixels, team members.').isVisible()).toBe(true)
    if (process.env.SHOT) {
      await page.screenshot({ path: '/tmp/s40-account.png', fullPage: true })
      await page.setViewportSize({ width: 360, height: 800 })
      await card.screenshot({ path: '/tmp/s40-account-360.png' })
    }
  })
})
