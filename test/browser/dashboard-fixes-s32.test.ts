import { beforeAll, describe, expect, it } from 'vitest'
import { hasChromium } from '../helpers/fixtures.js'
import type { TestUser } from '../helpers/app.js'
import { browserSuite } from './session.js'

/**
 * Dashboard fixes found by an audit: the owner of a quarantined link is told so (DECISIONS 10.6),
 * the parameter row's Remove button is named like the other rows', the overlay list names kinds as
 * the editor does, and bulk create and import name refused fields by the New link form's labels.
 */
describe.skipIf(!hasChromium)('dashboard in Chromium: quarantine notice, row names, overlay kinds, labels in bulk results', () => {
  const s = browserSuite({ dashboard: true, admin: { username: 'fix.s32.admin' }, timeout: 8000 })
  let user: TestUser

  beforeAll(async () => {
    user = await s.t.makeUser({ plan: 'pro', username: 'fix.s32' })
  })

  const WIDE = { width: 1280, height: 800 }
  const PHONE = { width: 360, height: 740 }
  const idOf = async (alias: string) => (await user.api.get(`/api/urls?short=${alias}`)).json().id as number

  it("a quarantined link's analytics and edit pages say why visitors get a warning page and who can release it; a clean link's say nothing", async () => {
    const held = (await user.api.post('/api/url/add', { url: 'https://held.example/offer', custom: 's32-held' })).json().id as number
    const clean = (await user.api.post('/api/url/add', { url: 'https://example.com/clean', custom: 's32-clean' })).json().id as number
    // the admin lists the domain: the rescan quarantines the link that leads there
    expect((await s.admin.api.post('/api/blocklist/add', { type: 'domain', value: 'held.example', reason: 'phishing' })).statusCode).toBe(200)
    await expect.poll(async () => (await user.api.get(`/api/url/${held}`)).json().details.quarantined, { timeout: 5000 }).toBe(true)

    for (const viewport of [WIDE, PHONE]) {
      const page = await s.signIn(user, { viewport })
      await page.goto(`${s.origin}/dashboard/links/${held}`)
      await page.getByRole('heading', { name: 'http://kurz.test/s32-held', level: 1 }).waitFor()
      await page.getByText('This link is quarantined.').waitFor()
      expect(await page.getByText("It matched this service's blocklist, so its visitors see a warning page instead of the destination.").isVisible()).toBe(true)
      expect(await page.getByText('An administrator of this service can release it.').isVisible()).toBe(true)
      // the statistics are still there below it
      await page.getByText('Unique clicks').first().waitFor()

      await page.getByRole('link', { name: 'Edit' }).click()
      await page.getByRole('heading', { name: 'Edit link', level: 1 }).waitFor()
      await page.getByText('This link is quarantined.').waitFor()
      expect(await page.getByText('An administrator of this service can release it; saving changes here does not.').isVisible()).toBe(true)
      await page.getByLabel('Destination URL').waitFor()

      await page.goto(`${s.origin}/dashboard/links/${clean}`)
      await page.getByRole('heading', { name: 'http://kurz.test/s32-clean', level: 1 }).waitFor()
      await page.getByText('Unique clicks').first().waitFor()
      expect(await page.getByText(/quarantined/i).count()).toBe(0)
      await page.goto(`${s.origin}/dashboard/links/${clean}/edit`)
      await page.getByLabel('Destination URL').waitFor()
      expect(await page.getByText(/quarantined/i).count()).toBe(0)

      // the link list marks the quarantined row, and only it
      await page.goto(`${s.origin}/dashboard`)
      const row = (alias: string) => page.getByRole('listitem').filter({ has: page.getByRole('link', { name: `http://kurz.test/${alias}` }) })
      await row('s32-held').getByText('Quarantined', { exact: true }).waitFor()
      expect(await row('s32-clean').getByText('Quarantined', { exact: true }).count()).toBe(0)
      await page.context().close()
    }
  })

  it('every row kind of the link form names its Remove button after the row: "Remove parameter row 1", not "Remove parameter name row 1"', async () => {
    const page = await s.signIn(user, { viewport: WIDE })
    await page.getByRole('button', { name: 'New link' }).click()
    const dialog = page.getByRole('dialog', { name: 'New link' })
    await dialog.getByLabel('Destination URL').waitFor()
    for (const section of await dialog.locator('details.section').all()) {
      if (!(await section.evaluate((d: HTMLDetailsElement) => d.open))) await section.locator('summary').click()
    }
    const kinds = [
      ['Add country', 'Country', 'country'],
      ['Add device', 'Device', 'device'],
      ['Add language', 'Language', 'language'],
      ['Add parameter', 'Parameter name', 'parameter'],
    ] as const
    for (const [add, field, row] of kinds) {
      await dialog.getByRole('button', { name: add, exact: true }).click()
      await dialog.getByRole('button', { name: add, exact: true }).click()
      for (const n of [1, 2]) {
        await dialog.getByLabel(`${field} ${n}`, { exact: true }).waitFor()
        expect(await dialog.getByRole('button', { name: `Remove ${row} row ${n}`, exact: true }).count(), `${row} ${n}`).toBe(1)
      }
    }
    expect(await dialog.getByRole('button', { name: /^Remove parameter name row/ }).count()).toBe(0)
    // the button removes its own row: the second one goes, the first stays
    await dialog.getByLabel('Parameter name 1', { exact: true }).fill('utm_source')
    await dialog.getByRole('button', { name: 'Remove parameter row 2', exact: true }).click()
    expect(await dialog.getByRole('button', { name: 'Remove parameter row 2', exact: true }).count()).toBe(0)
    expect(await dialog.getByLabel('Parameter name 1', { exact: true }).inputValue()).toBe('utm_source')
  })

  it("the overlay list's Kind column names each kind as the editor does", async () => {
    await user.api.post('/api/overlay/add', { name: 'S32 contact', type: 'contact', title: 'Write to us' })
    await user.api.post('/api/overlay/add', { name: 'S32 message', type: 'message', message: 'Hello' })
    await user.api.post('/api/overlay/add', { name: 'S32 poll', type: 'poll', title: 'Which?', options: ['Red', 'Green'] })
    for (const viewport of [WIDE, PHONE]) {
      const page = await s.signIn(user, { viewport })
      await page.getByRole('navigation').getByRole('link', { name: 'Pages', exact: true }).click()
      const table = page.getByRole('region', { name: 'CTA overlays' }).getByRole('table')
      await table.getByRole('cell', { name: 'S32 poll', exact: true }).waitFor()
      for (const [name, kind] of [['S32 contact', 'Contact form'], ['S32 message', 'Message'], ['S32 poll', 'Poll']]) {
        const row = table.getByRole('row').filter({ has: page.getByRole('cell', { name, exact: true }) })
        expect(await row.getByRole('cell', { name: kind, exact: true }).count(), name).toBe(1)
      }
      for (const raw of ['contact', 'message', 'poll']) expect(await table.getByRole('cell', { name: raw, exact: true }).count(), raw).toBe(0)
      // the editor's Kind field says the same of the contact overlay
      await page.getByRole('button', { name: 'Edit S32 contact' }).click()
      const kind = page.getByRole('dialog', { name: 'Edit overlay' }).getByLabel('Kind')
      expect(await kind.evaluate((el: HTMLSelectElement) => el.selectedOptions[0].textContent)).toBe('Contact form')
      await page.context().close()
    }
  })

  it('bulk create names a refused field by the New link form\'s label: "Destination URL", "Alias"', async () => {
    await user.api.post('/api/url/add', { url: 'https://example.com/taken', custom: 's32-taken' })
    const page = await s.signIn(user, { viewport: WIDE })
    await page.getByRole('button', { name: 'Bulk create' }).click()
    const dialog = page.getByRole('dialog', { name: 'Bulk create links' })
    await dialog.getByLabel('Links to create').fill('not a url\nhttps://example.com/again s32-taken\nhttps://example.com/fine s32-fine')
    await dialog.getByRole('button', { name: 'Create links' }).click()
    await dialog.getByText(/1 of 3 links created/).first().waitFor()
    const table = dialog.getByRole('table')
    expect(await table.getByRole('row').filter({ hasText: 'not a url' }).getByText(/^Not created: Destination URL: must be/).count()).toBe(1)
    expect(await table.getByRole('row').filter({ hasText: 's32-taken' }).getByText(/^Not created: Alias: "s32-taken" is already taken/).count()).toBe(1)
    expect(await dialog.getByText(/Not created: (url|custom)\b/).count()).toBe(0)
  })

  it('import results name a refused field by the New link form\'s label, the alias column as "Alias"', async () => {
    if ((await user.api.get('/api/urls/export')).statusCode === 404) return
    await user.api.post('/api/url/add', { url: 'https://example.com/p10', custom: 's32-p10' })
    const page = await s.signIn(user, { viewport: WIDE })
    await page.goto(s.origin + '/dashboard/import-export')
    await page.getByLabel('File').setInputFiles({
      name: 'links.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('longurl,alias,title\nhttps://example.com/in,s32-in,In\nnot a url,s32-bad-url,Bad\nhttps://example.com/again,s32-p10,Taken\nhttps://example.com/x,a b,Bad alias\n'),
    })
    await page.getByRole('button', { name: 'Import', exact: true }).click()
    await page.getByText(/^1 link imported, 1 skipped/).waitFor()
    await page.getByText(/^Line 3: Destination URL: must /).waitFor()
    await page.getByText(/^Line 4: Alias: "s32-p10" is already taken.* Skipped\.$/).waitFor()
    await page.getByText(/^Line 5: Alias: /).waitFor()
    expect(await page.getByText(/^Line \d+: (url|custom)\b/).count()).toBe(0)
    expect(await idOf('s32-in')).toBeGreaterThan(0)
  })
  it('after a password change the sign-in page says why the session ended', async () => {
    const mover = await s.t.makeUser({ username: 'fix.s32.pw' })
    const page = await s.signIn(mover, { viewport: PHONE })
    await page.goto(`${s.origin}/dashboard/account`)
    await page.getByLabel('New password', { exact: true }).fill('a-brand-new-pass')
    await page.getByLabel('New password again').fill('a-brand-new-pass')
    await page.getByRole('button', { name: 'Change password' }).click()
    await page.waitForURL(/\/login\?done=password$/)
    const notice = page.getByRole('status')
    expect(await notice.textContent()).toBe('Your password was changed and every session was signed out. Sign in with the new password.')
    // a plain visit to the sign-in page, or a made-up reason, says nothing
    await page.goto(`${s.origin}/login?done=%3Cb%3E`)
    await page.getByRole('button', { name: 'Sign in' }).waitFor()
    expect(await page.getByRole('status').count()).toBe(0)
    await page.context().close()
  })
  it('the link form sets, shows and clears expiry by clicks and the URL after expiry', async () => {
    const page = await s.signIn(user, { viewport: PHONE })
    await page.getByRole('button', { name: 'New link' }).click()
    const dialog = page.getByRole('dialog', { name: 'New link' })
    await dialog.getByLabel('Destination URL').fill('https://example.com/limited')
    await dialog.getByLabel('Alias').fill('s32-cap')
    await dialog.getByText('Redirect type, password and expiry').click()
    await dialog.getByLabel('Expire after clicks').fill('3')
    await dialog.getByLabel('Once expired, send visitors to').fill('https://example.com/ended')
    await dialog.getByRole('button', { name: 'Create link' }).click()
    await dialog.waitFor({ state: 'detached' })
    const id = await idOf('s32-cap')
    expect((await user.api.get(`/api/url/${id}?full=1`)).json().details).toMatchObject({ expiration_clicks: 3, expiration_url: 'https://example.com/ended' })

    await page.goto(`${s.origin}/dashboard/links/${id}/edit`)
    await page.getByText('Redirect type, password and expiry').click()
    expect(await page.getByLabel('Expire after clicks').inputValue()).toBe('3')
    expect(await page.getByLabel('Once expired, send visitors to').inputValue()).toBe('https://example.com/ended')
    await page.getByLabel('Expire after clicks').fill('')
    await page.getByLabel('Once expired, send visitors to').fill('')
    await page.getByRole('button', { name: 'Save changes' }).click()
    await expect.poll(async () => (await user.api.get(`/api/url/${id}?full=1`)).json().details.expiration_clicks).toBe(null)
    expect((await user.api.get(`/api/url/${id}?full=1`)).json().details.expiration_url).toBe(null)
    await page.context().close()
  })
})
