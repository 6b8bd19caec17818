import { beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { hasChromium } from '../helpers/fixtures.js'
import type { TestUser } from '../helpers/app.js'
import { browserSuite } from './session.js'

const CLIPBOARD = ['clipboard-read', 'clipboard-write']

/** Domains, campaigns, channels, pixels, pages, and the admin's users and plans, in a real browser. */
describe.skipIf(!hasChromium)('dashboard in Chromium: resources and admin', () => {
  const s = browserSuite({ dashboard: true, admin: { username: 'the.admin' }, timeout: 8000 })
  let user: TestUser
  let page: Page

  beforeAll(async () => {
    user = await s.t.makeUser({ plan: 'pro', username: 'maker' })
  })

  const go = async (name: string) => {
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name, exact: true }).click()
    await page.getByRole('heading', { name, level: 1, exact: true }).waitFor()
  }

  it('adds a domain, a pixel, a channel with items and a campaign with a link assigned', async () => {
    page = await s.signIn(user, { permissions: CLIPBOARD })
    const link = (await user.api.post('/api/url/add', { url: 'https://example.com/launch', custom: 'launch' })).json()

    await go('Domains')
    await page.getByRole('button', { name: 'Add domain' }).first().click()
    let dialog = page.getByRole('dialog', { name: 'Add domain' })
    await dialog.getByLabel('Domain name').fill('https://go.maker.example')
    await dialog.getByLabel('Root redirect').fill('https://maker.example')
    await dialog.getByRole('button', { name: 'Add domain' }).click()
    await page.getByRole('cell', { name: 'https://go.maker.example', exact: true }).waitFor()

    await go('Pixels')
    await page.getByRole('button', { name: 'New pixel' }).click()
    dialog = page.getByRole('dialog', { name: 'New pixel' })
    await dialog.getByLabel('Provider').selectOption('gtmpixel')
    await dialog.getByLabel('Pixel name').fill('Site tags')
    await dialog.getByLabel('Tag').fill('GTM-AB12CD3')
    await dialog.getByRole('button', { name: 'Create pixel' }).click()
    await page.getByRole('cell', { name: 'Site tags', exact: true }).waitFor()

    await go('Channels')
    await page.getByRole('button', { name: 'New channel' }).click()
    dialog = page.getByRole('dialog', { name: 'New channel' })
    await dialog.getByLabel('Channel name').fill('Launch')
    await dialog.getByRole('button', { name: 'Create channel' }).click()
    await page.getByRole('link', { name: 'Launch' }).click()
    await page.getByRole('heading', { name: 'This channel is empty' }).waitFor()
    await page.getByRole('button', { name: 'Add items' }).click()
    dialog = page.getByRole('dialog', { name: 'Add items to Launch' })
    await dialog.getByRole('button', { name: 'Add http://kurz.test/launch' }).click()
    await dialog.getByRole('button', { name: 'Added: http://kurz.test/launch' }).waitFor()
    await dialog.getByRole('button', { name: 'Close' }).click()
    await page.getByRole('row').filter({ hasText: 'http://kurz.test/launch' }).waitFor()

    await go('Campaigns')
    await page.getByRole('button', { name: 'New campaign' }).click()
    dialog = page.getByRole('dialog', { name: 'New campaign' })
    await dialog.getByLabel('Campaign name').fill('Spring')
    await dialog.getByLabel('Rotator slug').fill('spring-rotator')
    await dialog.getByRole('button', { name: 'Create campaign' }).click()
    await page.getByRole('button', { name: 'Assign links to Spring' }).click()
    dialog = page.getByRole('dialog', { name: 'Assign links to Spring' })
    await dialog.getByRole('button', { name: 'Assign http://kurz.test/launch' }).click()
    await dialog.getByRole('button', { name: 'Assigned: http://kurz.test/launch' }).waitFor()
    await page.keyboard.press('Escape')
    // the campaign's links: the Links page filtered to it
    await page.getByRole('link', { name: 'Links of Spring' }).click()
    await page.getByRole('link', { name: 'http://kurz.test/launch' }).waitFor()
    // the campaign list loads beside the links: wait for its name, not just any option
    await expect.poll(() => page.getByLabel('Campaign filter').locator('option:checked').textContent()).toBe('Spring')
    expect(new URL(page.url()).searchParams.get('campaign')).toMatch(/^\d+$/)

    expect((await user.api.get('/api/domains')).json().data.domains).toEqual([expect.objectContaining({ domain: 'https://go.maker.example', redirectroot: 'https://maker.example' })])
    expect((await user.api.get('/api/pixels')).json().data.pixels).toEqual([expect.objectContaining({ type: 'gtmpixel', name: 'Site tags', tag: 'GTM-AB12CD3' })])
    const channel = (await user.api.get('/api/channels')).json().data.channels[0]
    expect((await user.api.get(`/api/channel/${channel.id}`)).json().data.items).toEqual([expect.objectContaining({ type: 'links', id: link.id })])
    const full = (await user.api.get(`/api/url/${link.id}?full=1`)).json().details
    const campaign = (await user.api.get('/api/campaigns')).json().data.campaigns[0]
    expect(campaign.name).toBe('Spring')
    expect(full.campaign).toBe(campaign.id)
  })

  it('creates a splash page and a poll overlay with the editors, their previews following the fields', async () => {
    await go('Pages')
    await page.getByRole('button', { name: 'New splash page' }).click()
    let dialog = page.getByRole('dialog', { name: 'New splash page' })
    await dialog.getByLabel('Splash page name').fill('Teaser')
    await dialog.getByLabel('Title').fill('Almost there')
    await dialog.getByLabel('Message').fill('Our spring range is coming.')
    await expect.poll(() => dialog.getByRole('group', { name: 'Splash page preview' }).textContent()).toContain('Almost there')
    await dialog.getByRole('button', { name: 'Save splash page' }).click()
    await page.getByRole('cell', { name: 'Teaser', exact: true }).waitFor()

    await page.getByRole('button', { name: 'New overlay' }).click()
    dialog = page.getByRole('dialog', { name: 'New overlay' })
    await dialog.getByLabel('Overlay name').fill('Colour poll')
    await dialog.getByLabel('Kind').selectOption('poll')
    await dialog.getByLabel('Title').fill('Which colour?')
    await dialog.getByLabel('Poll answers').fill('Blue\nGreen')
    await expect.poll(() => dialog.getByRole('group', { name: 'Overlay preview' }).textContent()).toContain('Green')
    await dialog.getByRole('button', { name: 'Save overlay' }).click()
    await page.getByRole('cell', { name: 'Colour poll', exact: true }).waitFor()
    await page.getByRole('button', { name: 'Responses to Colour poll' }).click()
    await page.getByRole('heading', { name: 'No responses yet' }).waitFor()
    await page.keyboard.press('Escape')

    expect((await user.api.get('/api/splash')).json().data.splash).toEqual([expect.objectContaining({ name: 'Teaser' })])
    const overlays = (await user.api.get('/api/overlay')).json().data.cta
    expect(overlays).toEqual([expect.objectContaining({ name: 'Colour poll', type: 'poll' })])
    expect((await user.api.get(`/api/overlay/${overlays[0].id}`)).json().data.options).toEqual(['Blue', 'Green'])
    // the link form now offers both
    await go('Links')
    await page.getByRole('button', { name: 'New link' }).click()
    await page.getByText('Redirect type, password and expiry').click()
    const types = await page.getByLabel('Redirect type').locator('option').allTextContents()
    expect(types).toEqual(expect.arrayContaining(['Splash: Teaser', 'Overlay: Colour poll']))
    await page.keyboard.press('Escape')
    await page.context().close()
  })

  it('as admin: creates a user, gives them a plan, copies their SSO URL and opens it in a fresh context', async () => {
    page = await s.signIn(s.admin, { permissions: CLIPBOARD })
    await go('Users')
    // one page of users: its count, no pager (the pager, a group and not a second navigation
    // landmark, is tested with more users in dashboard-fixes-f)
    await page.getByText(/^\d+ users?$/).waitFor()
    expect(await page.getByRole('navigation').count()).toBe(1)
    await page.getByRole('button', { name: 'New user' }).click()
    let dialog = page.getByRole('dialog', { name: 'New user' })
    await dialog.getByLabel('Username').fill('newcomer')
    await dialog.getByLabel('Email').fill('newcomer@example.com')
    await dialog.getByLabel('Password').fill('a fine password')
    await dialog.getByRole('button', { name: 'Create user' }).click()
    await page.getByRole('row').filter({ hasText: 'newcomer@example.com' }).waitFor()

    await page.getByRole('button', { name: 'Change plan of newcomer' }).click()
    dialog = page.getByRole('dialog', { name: 'Plan of newcomer' })
    await dialog.getByLabel('New plan').selectOption({ label: 'Pro' })
    await dialog.getByLabel('Billing period').selectOption('yearly')
    await dialog.getByRole('button', { name: 'Change plan' }).click()
    await page.getByRole('row').filter({ hasText: 'newcomer' }).filter({ hasText: 'Pro' }).waitFor()
    const created = (await s.admin.api.get('/api/users?search=newcomer')).json().data[0]
    expect(created).toMatchObject({ username: 'newcomer', status: 'pro' })

    await page.getByRole('button', { name: 'SSO URL of newcomer' }).click()
    dialog = page.getByRole('dialog', { name: 'SSO URL of newcomer' })
    await dialog.getByRole('button', { name: /Copy SSO URL/ }).click()
    const url = await page.evaluate(() => navigator.clipboard.readText())
    expect(url).toMatch(/^http:\/\/kurz\.test\/sso\/[\w-]+$/)
    expect(await dialog.getByLabel('SSO URL', { exact: true }).textContent()).toBe(url)

    const fresh = await s.browser.newContext()
    const theirs = await fresh.newPage()
    await theirs.goto(s.origin + new URL(url).pathname)
    await theirs.waitForURL(`${s.origin}/dashboard/links`)
    expect(await theirs.getByRole('banner').textContent()).toContain('newcomer')
    await fresh.close()
    await dialog.getByRole('button', { name: 'Close' }).click()

    // plans: create one with a links limit and a switch off
    await go('Plans')
    await page.getByRole('button', { name: 'New plan' }).click()
    dialog = page.getByRole('dialog', { name: 'New plan' })
    await dialog.getByLabel('Plan name').fill('Team')
    await dialog.getByLabel('Links', { exact: true }).fill('250')
    await dialog.getByLabel('Export').uncheck()
    await dialog.getByRole('button', { name: 'Create plan' }).click()
    await page.getByRole('heading', { name: 'Team' }).waitFor()
    const team = (await s.admin.api.get('/api/plans')).json().data.find((p: { name: string }) => p.name === 'Team')
    expect(team.limits).toMatchObject({ links: 250, export: { enabled: '0' }, api: { enabled: '1' } })

    // the blocklist (once the server has it): block a domain
    if ((await s.admin.api.get('/api/blocklist')).statusCode === 200) {
      await go('Blocklist')
      await page.getByRole('button', { name: 'Block a domain or keyword' }).click()
      dialog = page.getByRole('dialog', { name: 'Block a domain or keyword' })
      await dialog.getByLabel('Domain to block').fill('phish.example')
      await dialog.getByLabel('Reason').fill('phishing')
      await dialog.getByRole('button', { name: 'Block', exact: true }).click()
      await page.getByRole('cell', { name: 'phish.example', exact: true }).waitFor()
      expect((await s.admin.api.get('/api/blocklist')).json().data.entries).toEqual([expect.objectContaining({ type: 'domain', value: 'phish.example', reason: 'phishing' })])
    }

    // delete the user, after confirming
    await go('Users')
    await page.getByRole('button', { name: 'Delete newcomer' }).click()
    await page.getByRole('dialog', { name: 'Delete this user?' }).getByRole('button', { name: 'Delete user' }).click()
    await page.getByRole('row').filter({ hasText: 'newcomer@example.com' }).waitFor({ state: 'detached' })
    expect((await s.admin.api.get(`/api/user/${created.id}`)).statusCode).toBe(404)
    expect(s.scriptErrors).toEqual([])
    await page.context().close()
  })
})
