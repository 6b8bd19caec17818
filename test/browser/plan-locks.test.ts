import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { hasChromium, makeCampaign, makeDomain, makePage, makePixel } from '../helpers/fixtures.js'
import type { TestUser } from '../helpers/app.js'
import { browserSuite } from './session.js'

/**
 * A page whose feature the plan lacks says so up front (under its head) and offers none of the
 * buttons that would only end in the API's "Your plan does not include …": no Add/New, no empty
 * state's action. What the API still allows on such a plan stays offered and works: editing and
 * deleting existing domains, campaigns, pixels, splash pages and overlays, and importing links.
 */
describe.skipIf(!hasChromium)('dashboard in Chromium: pages say what the plan lacks', () => {
  const s = browserSuite({ dashboard: true, timeout: 8000 })
  const WIDE = { viewport: { width: 1280, height: 900 } }
  const ADMIN = ' An administrator can move your account to a plan that has it.'
  const NOTE = {
    domain: `Your plan does not include branded domains.${ADMIN}`,
    multiple: `Your plan does not include more than one branded domain.${ADMIN}`,
    bundle: `Your plan does not include campaigns.${ADMIN}`,
    pixels: `Your plan does not include pixels.${ADMIN}`,
    splash: `Your plan does not include splash pages.${ADMIN}`,
    overlay: `Your plan does not include CTA overlays.${ADMIN}`,
    export: `Your plan does not include exports.${ADMIN}`,
  }

  /** `user` signed in, on the dashboard page at `path`, once `ready` (a text of its loaded content) shows */
  async function open(user: TestUser, path: string, ready: string | RegExp): Promise<Page> {
    const page = await s.signIn(user, WIDE)
    await page.goto(`${s.origin}/dashboard/${path}`)
    await page.getByText(ready).first().waitFor()
    return page
  }
  const notes = (page: Page) => page.getByRole('note').allTextContents()
  const buttons = (page: Page, name: string) => page.getByRole('button', { name, exact: true }).count()

  describe('Domains', () => {
    it('without `domain`: the note, no Add; an existing domain can still be edited and deleted', async () => {
      const user = await s.t.makeUser({ off: ['domain'] })
      await makeDomain(s.t, user.user.id, 'https://go.locked.example')
      const page = await open(user, 'domains', 'https://go.locked.example')
      expect(await notes(page)).toEqual([NOTE.domain])
      expect(await buttons(page, 'Add domain')).toBe(0)

      await page.getByRole('button', { name: 'Edit https://go.locked.example' }).click()
      const dialog = page.getByRole('dialog', { name: 'Edit domain' })
      await dialog.getByLabel('Root redirect').fill('https://example.com/home')
      await dialog.getByRole('button', { name: 'Save domain' }).click()
      await dialog.waitFor({ state: 'hidden' })
      expect((await user.api.get('/api/domains')).json().data.domains[0].redirectroot).toBe('https://example.com/home')

      await page.getByRole('button', { name: 'Delete https://go.locked.example' }).click()
      await page.getByRole('dialog', { name: 'Delete this domain?' }).getByRole('button', { name: 'Delete domain' }).click()
      // the empty state stays, without its action
      await page.getByRole('heading', { name: 'No branded domains yet' }).waitFor()
      expect(await buttons(page, 'Add a domain')).toBe(0)
      expect(await buttons(page, 'Add domain')).toBe(0)
      expect((await user.api.get('/api/domains')).json().data.domains).toEqual([])
    })

    it('without `multiple`: the first domain can be added; with one, the note says a second is not included and Add goes', async () => {
      const user = await s.t.makeUser({ off: ['multiple'] })
      const page = await open(user, 'domains', 'No branded domains yet')
      expect(await notes(page)).toEqual([])
      expect(await buttons(page, 'Add a domain')).toBe(1)
      await page.getByRole('button', { name: 'Add domain', exact: true }).click()
      const dialog = page.getByRole('dialog', { name: 'Add domain' })
      await dialog.getByLabel('Domain name').fill('https://go.first.example')
      await dialog.getByRole('button', { name: 'Add domain' }).click()
      await dialog.waitFor({ state: 'hidden' })
      await page.getByRole('cell', { name: 'https://go.first.example', exact: true }).waitFor()
      await expect.poll(() => notes(page)).toEqual([NOTE.multiple])
      expect(await buttons(page, 'Add domain')).toBe(0)

      // as the API has it: a user with a domain already is refused a second
      const other = await s.t.makeUser({ off: ['multiple'] })
      await makeDomain(s.t, other.user.id, 'https://go.one.example')
      expect((await other.api.post('/api/domain/add', { domain: 'https://go.two.example' })).statusCode).toBe(403)
      const second = await open(other, 'domains', 'https://go.one.example')
      expect(await notes(second)).toEqual([NOTE.multiple])
      expect(await buttons(second, 'Add domain')).toBe(0)
      await second.getByRole('button', { name: 'Edit https://go.one.example' }).waitFor()
    })
  })

  it('Campaigns without `bundle`: the note, no New or Assign links; Edit and Delete stay and work', async () => {
    const user = await s.t.makeUser({ off: ['bundle'] })
    await makeCampaign(s.t, user.user.id, 'Spring')
    const page = await open(user, 'campaigns', 'Spring')
    expect(await notes(page)).toEqual([NOTE.bundle])
    expect(await buttons(page, 'New campaign')).toBe(0)
    expect(await buttons(page, 'Assign links to Spring')).toBe(0)
    await page.getByRole('link', { name: 'View links of Spring' }).waitFor()

    await page.getByRole('button', { name: 'Edit Spring' }).click()
    const dialog = page.getByRole('dialog', { name: 'Edit campaign' })
    await dialog.getByLabel('Campaign name').fill('Summer')
    await dialog.getByRole('button', { name: 'Save campaign' }).click()
    await page.getByRole('region', { name: 'Summer' }).waitFor()
    expect((await user.api.get('/api/campaigns')).json().data.campaigns.map((c: { name: string }) => c.name)).toEqual(['Summer'])

    await page.getByRole('button', { name: 'Delete Summer' }).click()
    await page.getByRole('dialog', { name: 'Delete this campaign?' }).getByRole('button', { name: 'Delete campaign' }).click()
    await page.getByRole('heading', { name: 'No campaigns yet' }).waitFor()
    expect(await buttons(page, 'Create a campaign')).toBe(0)
  })

  it('Pixels without `pixels`: the note, no New; an existing pixel can be edited and deleted', async () => {
    const user = await s.t.makeUser({ off: ['pixels'] })
    await makePixel(s.t, user.user.id, 'Site tags')
    const page = await open(user, 'pixels', 'Site tags')
    expect(await notes(page)).toEqual([NOTE.pixels])
    expect(await buttons(page, 'New pixel')).toBe(0)

    await page.getByRole('button', { name: 'Edit Site tags' }).click()
    const dialog = page.getByRole('dialog', { name: 'Edit pixel' })
    await dialog.getByLabel('Tag').fill('GTM-AB12CD3')
    await dialog.getByRole('button', { name: 'Save pixel' }).click()
    await dialog.waitFor({ state: 'hidden' })
    expect((await user.api.get('/api/pixels')).json().data.pixels[0].tag).toBe('GTM-AB12CD3')

    await page.getByRole('button', { name: 'Delete Site tags' }).click()
    await page.getByRole('dialog', { name: 'Delete this pixel?' }).getByRole('button', { name: 'Delete pixel' }).click()
    await page.getByRole('heading', { name: 'No pixels yet' }).waitFor()
    expect(await buttons(page, 'Add a pixel')).toBe(0)
    expect((await user.api.get('/api/pixels')).json().data.pixels).toEqual([])
  })

  describe('Pages', () => {
    it('without `splash`: its note, no New splash page nor Create a splash page; overlays are offered as before', async () => {
      const user = await s.t.makeUser({ off: ['splash'] })
      const page = await open(user, 'pages', 'No splash pages yet')
      await page.getByRole('heading', { name: 'No overlays yet' }).waitFor()
      expect(await notes(page)).toEqual([NOTE.splash])
      expect(await buttons(page, 'New splash page')).toBe(0)
      expect(await buttons(page, 'Create a splash page')).toBe(0)
      expect(await buttons(page, 'New overlay')).toBe(1)
      expect(await buttons(page, 'Create an overlay')).toBe(1)
    })

    it('without `overlay`: its note, no New overlay nor Create an overlay; an existing overlay can be edited and deleted', async () => {
      const user = await s.t.makeUser({ off: ['overlay'] })
      await makePage(s.t, user.user.id, 'overlay', 'Promo')
      const page = await open(user, 'pages', 'Promo')
      await page.getByRole('heading', { name: 'No splash pages yet' }).waitFor()
      expect(await notes(page)).toEqual([NOTE.overlay])
      expect(await buttons(page, 'New overlay')).toBe(0)
      expect(await buttons(page, 'New splash page')).toBe(1)
      expect(await buttons(page, 'Create a splash page')).toBe(1)

      await page.getByRole('button', { name: 'Edit Promo' }).click()
      const dialog = page.getByRole('dialog', { name: 'Edit overlay' })
      await dialog.getByLabel('Overlay name').fill('Promo two')
      await dialog.getByRole('button', { name: 'Save overlay' }).click()
      await page.getByRole('cell', { name: 'Promo two', exact: true }).waitFor()

      await page.getByRole('button', { name: 'Delete Promo two' }).click()
      await page.getByRole('dialog', { name: 'Delete this overlay?' }).getByRole('button', { name: 'Delete overlay' }).click()
      await page.getByRole('heading', { name: 'No overlays yet' }).waitFor()
      expect(await buttons(page, 'Create an overlay')).toBe(0)
      expect((await user.api.get('/api/overlay')).json().data.cta).toEqual([])
    })

    it('without both: both notes and no New button at all', async () => {
      const user = await s.t.makeUser({ off: ['splash', 'overlay'] })
      await makePage(s.t, user.user.id, 'splash', 'Welcome')
      const page = await open(user, 'pages', 'Welcome')
      expect(await notes(page)).toEqual([NOTE.splash, NOTE.overlay])
      expect(await page.getByRole('button', { name: /^(New|Create)/ }).count()).toBe(0)
      await page.getByRole('button', { name: 'Edit Welcome' }).waitFor()
    })
  })

  it('a plan changed while the dashboard is open shows once the tab comes back into view: the note goes and New splash page comes', async () => {
    const user = await s.t.makeUser({ off: ['splash'] })
    const page = await s.signIn(user, WIDE)
    await page.clock.install()
    await page.goto(`${s.origin}/dashboard/pages`)
    await page.getByText('No splash pages yet').first().waitFor()
    expect(await notes(page)).toEqual([NOTE.splash])
    expect((await s.admin.api.put(`/api/plan/${user.user.planId}/update`, { limits: { splash: { enabled: '1', count: '0' } } })).statusCode).toBe(200)

    // back within 30 s of the last read: the session is not read again
    const back = () => page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')))
    let reads = 0
    page.on('request', (r) => void (r.url().endsWith('/api/session') && reads++))
    await back()
    await page.waitForTimeout(300)
    expect(reads).toBe(0)
    expect(await notes(page)).toEqual([NOTE.splash])

    await page.clock.fastForward(31_000)
    await back()
    await page.getByRole('button', { name: 'New splash page', exact: true }).waitFor()
    expect(await notes(page)).toEqual([])
    expect(reads).toBe(1)
  })

  it('Import/export without `export`: the note where the export was, no Download CSV nor clicks export; Import stays and works', async () => {
    const user = await s.t.makeUser({ off: ['export'] })
    const page = await open(user, 'import-export', 'Import links')
    await expect.poll(() => notes(page)).toEqual([NOTE.export])
    expect(await buttons(page, 'Download CSV')).toBe(0)
    expect(await page.getByRole('heading', { name: "Export a link's clicks" }).count()).toBe(0)
    // POST /api/urls/import does not need `export`
    await page.getByLabel('File').setInputFiles({ name: 'links.csv', mimeType: 'text/csv', buffer: Buffer.from('url,alias\nhttps://example.com/kept,locks-import\n') })
    await page.getByRole('button', { name: 'Import', exact: true }).click()
    await page.getByText(/^1 link imported, 0 skipped\./).waitFor()
    expect((await user.api.get('/api/urls')).json().data.urls.map((u: { longurl: string }) => u.longurl)).toEqual(['https://example.com/kept'])
  })

  it('with the features (Pro), every page is as before: its Add/New buttons and no note', async () => {
    const pro = await s.t.makeUser({ plan: 'pro' })
    const pages: [string, string, string[]][] = [
      ['domains', 'No branded domains yet', ['Add domain', 'Add a domain']],
      ['campaigns', 'No campaigns yet', ['New campaign', 'Create a campaign']],
      ['pixels', 'No pixels yet', ['New pixel', 'Add a pixel']],
      ['pages', 'No overlays yet', ['New splash page', 'New overlay', 'Create a splash page', 'Create an overlay']],
      ['import-export', 'Import links', ['Download CSV']],
    ]
    const page = await s.signIn(pro, WIDE)
    for (const [path, ready, names] of pages) {
      await page.goto(`${s.origin}/dashboard/${path}`)
      await page.getByText(ready).first().waitFor()
      for (const name of names) await page.getByRole('button', { name, exact: true }).waitFor()
      expect(await notes(page)).toEqual([])
    }
  })

  it('a plan lacking only other features locks nothing here: Add domain beside an existing one, Assign links', async () => {
    const other = await s.t.makeUser({ off: ['custom', 'geo', 'api'] })
    await makeDomain(s.t, other.user.id, 'https://go.other.example')
    await makeCampaign(s.t, other.user.id, 'Autumn')
    const page = await open(other, 'domains', 'https://go.other.example')
    await page.getByRole('button', { name: 'Add domain', exact: true }).waitFor()
    expect(await notes(page)).toEqual([])
    await page.goto(`${s.origin}/dashboard/campaigns`)
    await page.getByRole('button', { name: 'Assign links to Autumn' }).waitFor()
    await page.getByRole('button', { name: 'New campaign' }).waitFor()
    expect(await notes(page)).toEqual([])
  })

  describe('counted caps', () => {
    it('a plan\'s count reached: the note says so and New goes; deleting one brings it back', async () => {
      const user = await s.t.makeUser({ features: { pixels: { enabled: '1', count: '1' }, splash: { enabled: '1', count: '2' } } })
      await makePixel(s.t, user.user.id, 'Only tag')
      const page = await open(user, 'pixels', 'Only tag')
      await expect.poll(() => notes(page)).toEqual(['Your plan allows 1 pixel; delete one to make another. An administrator can move your account to a plan that allows more.'])
      expect(await buttons(page, 'New pixel')).toBe(0)
      await page.getByRole('button', { name: 'Delete Only tag' }).click()
      await page.getByRole('dialog', { name: 'Delete this pixel?' }).getByRole('button', { name: 'Delete pixel' }).click()
      await page.getByRole('button', { name: 'New pixel', exact: true }).waitFor()
      expect(await notes(page)).toEqual([])

      // splash pages at their cap of 2; overlays uncapped on this plan
      await makePage(s.t, user.user.id, 'splash', 'First')
      await makePage(s.t, user.user.id, 'splash', 'Second')
      await page.goto(`${s.origin}/dashboard/pages`)
      await page.getByText('Second').first().waitFor()
      await expect.poll(() => notes(page)).toEqual(['Your plan allows 2 splash pages; delete one to make another. An administrator can move your account to a plan that allows more.'])
      expect(await buttons(page, 'New splash page')).toBe(0)
      expect(await buttons(page, 'New overlay')).toBe(1)
      // as the API has it
      expect((await user.api.post('/api/splash/add', { name: 'Third' })).statusCode).toBe(403)
    })

    it('a domain cap reached says so on Domains', async () => {
      const user = await s.t.makeUser({ features: { domain: { enabled: '1', count: '1' } } })
      await makeDomain(s.t, user.user.id, 'https://go.capped.example')
      const page = await open(user, 'domains', 'https://go.capped.example')
      await expect.poll(() => notes(page)).toEqual(['Your plan allows 1 branded domain; delete one to make another. An administrator can move your account to a plan that allows more.'])
      expect(await buttons(page, 'Add domain')).toBe(0)
      expect((await user.api.post('/api/domain/add', { domain: 'https://go.second.example' })).statusCode).toBe(403)
    })
  })
})
