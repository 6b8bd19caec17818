import { beforeAll, describe, expect, it } from 'vitest'
import type { BrowserContext, Page } from 'playwright-core'
import { hasChromium } from '../helpers/fixtures.js'
import type { TestUser } from '../helpers/app.js'
import { browserSuite } from './session.js'

/**
 * The dashboard SPA in a real browser, driven by role and accessible name (DECISIONS §10.1):
 * sign-in, links, analytics, QR codes, the account key, and what another account owns.
 */
describe.skipIf(!hasChromium)('dashboard in Chromium: sign-in, links, analytics, QR codes, account', () => {
  const s = browserSuite({ dashboard: true })
  let user: TestUser
  let context: BrowserContext
  let page: Page

  beforeAll(async () => {
    user = await s.t.makeUser({ username: 'browser.dash', plan: 'pro', password: 'correct horse' })
  })

  const stat = (p: Page, term: string) => p.locator('dt', { hasText: new RegExp(`^${term}$`) }).locator('xpath=following-sibling::dd[1]')

  it('opens an SSO URL and lands in the app, signed in (HttpOnly cookie); the URL then answers 410; sign out and in again by /login', async () => {
    const sso = await s.ssoPath(user)
    page = await s.page()
    context = page.context()

    const res = await page.goto(s.origin + sso)
    expect(res?.status()).toBe(200)
    await page.waitForURL(`${s.origin}/dashboard/links`)
    await expect.poll(() => page.title()).toBe('Links · Kurz')
    expect(await page.getByRole('banner').textContent()).toContain('browser.dash')
    const nav = page.getByRole('navigation', { name: 'Dashboard' })
    for (const name of ['Links', 'QR codes', 'Domains', 'Campaigns', 'Channels', 'Pixels', 'Pages', 'Webhooks', 'Account']) {
      expect(await nav.getByRole('link', { name, exact: true }).count()).toBe(1)
    }
    // not an admin: no Users or Plans
    expect(await nav.getByRole('link', { name: 'Users' }).count()).toBe(0)
    // the key is never in the page
    expect(await page.content()).not.toContain(user.key)

    const session = (await context.cookies()).filter((c) => c.name === 'kurz_session')
    expect(session).toEqual([expect.objectContaining({ httpOnly: true, sameSite: 'Lax', path: '/' })])
    expect(await page.evaluate(() => document.cookie)).toBe('')

    const again = await page.goto(s.origin + sso)
    expect(again?.status()).toBe(410)

    await page.goto(s.origin + '/dashboard/links')
    // the page's own requests answered first: one still in flight when the session ends answers
    // 401 and sends the app to /login itself, which aborts the form's navigation to the same place
    await page.getByRole('heading', { name: 'No links yet' }).waitFor()
    await page.waitForLoadState('networkidle')
    await Promise.all([page.waitForURL(`${s.origin}/login`), page.getByRole('button', { name: 'Sign out' }).click()])
    expect((await context.cookies()).filter((c) => c.name === 'kurz_session')).toEqual([])
    const back = await page.goto(s.origin + '/dashboard/links')
    expect(new URL(back!.url()).pathname).toBe('/login')

    await page.fill('input[name="email"]', user.user.email)
    await page.fill('input[name="password"]', 'correct horse')
    await Promise.all([page.waitForURL(`${s.origin}/dashboard/links`), page.getByRole('button', { name: 'Sign in' }).click()])
    await page.getByRole('heading', { name: 'Links', level: 1 }).waitFor()
    await page.getByRole('heading', { name: 'No links yet' }).waitFor()
  })

  it('creates a link with the New link form, finds it, edits its targets, password and expiry, then deletes it after confirming', async () => {
    await page.getByRole('button', { name: 'New link' }).click()
    const dialog = page.getByRole('dialog', { name: 'New link' })
    await dialog.getByLabel('Destination URL').fill('https://example.com/<b>spring</b>?x="1"')
    await dialog.getByLabel('Alias', { exact: true }).fill('spring-sale')
    await dialog.getByRole('button', { name: 'Create link' }).click()
    await page.getByRole('status').filter({ hasText: 'Your short link' }).waitFor()
    const row = page.getByRole('listitem').filter({ hasText: 'http://kurz.test/spring-sale' })
    await row.waitFor()
    expect(await row.textContent()).toContain('https://example.com/<b>spring</b>?x="1"')

    // a refused create shows the API's message and keeps the form open
    await page.getByRole('button', { name: 'New link' }).click()
    await dialog.getByLabel('Destination URL').fill('https://example.com/other')
    await dialog.getByLabel('Alias', { exact: true }).fill('spring-sale')
    await dialog.getByRole('button', { name: 'Create link' }).click()
    await dialog.getByRole('alert').waitFor()
    expect(await dialog.getByRole('alert').textContent()).toMatch(/taken|already/i)
    await dialog.getByRole('button', { name: 'Cancel' }).click()

    // a second link, then search narrows the list
    await s.t.makeUser() // unrelated account, to be sure the list is the caller's
    await user.api.post('/api/url/add', { url: 'https://example.org/autumn', custom: 'autumn' })
    await page.reload()
    await page.getByRole('listitem').filter({ hasText: 'http://kurz.test/autumn' }).waitFor()
    await page.getByLabel('Search in').selectOption('alias')
    await page.getByLabel('Search links').fill('spring')
    await page.getByRole('button', { name: 'Search', exact: true }).click()
    await expect.poll(() => page.getByRole('list', { name: 'Your links' }).getByRole('listitem').count()).toBe(1)
    expect(await page.getByRole('list', { name: 'Your links' }).textContent()).toContain('spring-sale')

    // edit: a country target, a password and an expiry
    const id = (await user.api.get('/api/urls?short=spring-sale')).json().id as number
    await page.getByRole('button', { name: 'Edit http://kurz.test/spring-sale' }).click()
    await page.waitForURL(`${s.origin}/dashboard/links/${id}/edit`)
    await page.getByText('Targeting').click()
    await page.getByRole('button', { name: 'Add country' }).click()
    await page.getByLabel('Country 1', { exact: true }).selectOption('DE')
    await page.getByLabel('Country URL 1').fill('https://example.de/fruehling')
    await page.getByText('Redirect type, password and expiry').click()
    await page.getByLabel('Password', { exact: true }).fill('open sesame')
    await page.getByLabel('Expiry').fill('2031-05-01T12:30')
    await page.getByRole('button', { name: 'Save changes' }).click()
    await page.waitForURL(`${s.origin}/dashboard/links/${id}`)
    const saved = (await user.api.get(`/api/url/${id}?full=1`)).json().details
    expect(saved.location).toEqual({ DE: 'https://example.de/fruehling' })
    expect(saved.password).toBe(true)
    expect(saved.expiry).toMatch(/^2031-05-01 \d\d:30:00$/)

    // delete: cancel first changes nothing, then confirm
    await page.goto(s.origin + '/dashboard/links')
    await page.getByRole('button', { name: 'Delete http://kurz.test/autumn' }).click()
    await page.getByRole('dialog', { name: 'Delete this link?' }).getByRole('button', { name: 'Cancel' }).click()
    expect((await user.api.get('/api/urls?short=autumn')).statusCode).toBe(200)
    await page.getByRole('button', { name: 'Delete http://kurz.test/autumn' }).click()
    await page.getByRole('dialog', { name: 'Delete this link?' }).getByRole('button', { name: 'Delete link' }).click()
    await expect.poll(async () => (await user.api.get('/api/urls?short=autumn')).statusCode).toBe(404)
    await page.getByRole('listitem').filter({ hasText: 'http://kurz.test/autumn' }).waitFor({ state: 'detached' })
  })

  it("a link's row opens its analytics; visits show up as Clicks and on the chart", async () => {
    // spring-sale now has a password: visits of a plain link count at once
    const { id } = (await user.api.post('/api/url/add', { url: 'https://example.com/visited', custom: 'visited' })).json()
    for (let i = 0; i < 3; i++) {
      const res = await s.t.app.inject({ method: 'GET', url: '/visited', headers: { host: 'kurz.test', 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/127.0' }, remoteAddress: `203.0.113.${i + 1}` })
      expect(res.statusCode).toBeLessThan(400)
    }
    await s.t.app.clicks.flush()
    await page.goto(s.origin + '/dashboard/links')
    await page.getByRole('link', { name: 'http://kurz.test/visited' }).click()
    await page.waitForURL(`${s.origin}/dashboard/links/${id}`)
    await expect.poll(() => stat(page, 'Clicks').textContent()).toBe('3')
    expect(await stat(page, 'Unique clicks').textContent()).toBe('3')
    const chart = page.getByRole('img', { name: /Clicks over time/ })
    await chart.waitFor()
    expect(await chart.getAttribute('aria-label')).toMatch(/\b3 clicks\b/)
    // DECISIONS 10.1's names, looked up unscoped as a test may: one navigation landmark, one "Links" link
    expect(await page.getByRole('navigation').count()).toBe(1)
    expect(await page.getByRole('link', { name: 'Links' }).count()).toBe(1)
    await page.getByRole('link', { name: 'Link list' }).click()
    await page.getByRole('heading', { name: 'Links', level: 1 }).waitFor()
  })

  it('designs a QR code with a live preview and downloads it as PNG and SVG', async () => {
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'QR codes' }).click()
    await page.getByRole('heading', { name: 'No QR codes yet' }).waitFor()
    await page.getByRole('button', { name: 'New QR code' }).click()
    const dialog = page.getByRole('dialog', { name: 'New QR code' })
    await dialog.getByLabel('Name').fill('Flyer')
    await dialog.getByLabel('Link URL').fill('https://example.com/flyer')
    await dialog.getByLabel('Foreground colour').fill('#112233')
    const preview = dialog.getByRole('img', { name: 'Live preview' })
    await expect.poll(() => preview.evaluate((c: HTMLCanvasElement) => c.width)).toBeGreaterThan(100)
    await dialog.getByRole('button', { name: 'Create QR code' }).click()
    await page.getByRole('link', { name: 'Flyer', exact: true }).waitFor()

    const [png] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download Flyer as PNG' }).click()])
    expect(png.suggestedFilename()).toMatch(/\.png$/)
    const pngBytes = await streamBytes(await png.createReadStream())
    expect(pngBytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
    const [svg] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download Flyer as SVG' }).click()])
    expect(svg.suggestedFilename()).toMatch(/\.svg$/)
    expect((await streamBytes(await svg.createReadStream())).toString('utf8')).toContain('<svg')
    expect((await user.api.get('/api/qr')).json().data.qrs).toEqual([expect.objectContaining({ name: 'Flyer', scans: 0 })])

    // editing starts from what the code was made from: change only the colour, keep the rest
    await page.getByRole('button', { name: 'Edit Flyer' }).click()
    const edit = page.getByRole('dialog', { name: 'Edit Flyer' })
    await expect.poll(() => edit.getByLabel('Link URL').inputValue()).toBe('https://example.com/flyer')
    expect(await edit.getByLabel('Type').inputValue()).toBe('link')
    expect(await edit.getByLabel('Foreground colour').inputValue()).toBe('#112233')
    await edit.getByLabel('Foreground colour').fill('#003300')
    await edit.getByRole('button', { name: 'Save QR code' }).click()
    await edit.waitFor({ state: 'detached' })
    const [saved] = (await user.api.get('/api/qr')).json().data.qrs
    expect((await user.api.get(`/api/qr/${saved.id}/design`)).json().data).toMatchObject({ type: 'link', data: 'https://example.com/flyer', foreground: 'rgb(0,51,0)', name: 'Flyer' })
  })

  it('shows the API key only when asked, and rotates it after a confirmation', async () => {
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Account' }).click()
    await page.getByRole('button', { name: 'Show API key' }).click()
    const shown = page.getByLabel('Your API key')
    await expect.poll(() => shown.textContent()).toBe(user.key)
    await page.getByRole('button', { name: 'Rotate key' }).click()
    await page.getByRole('dialog', { name: 'Rotate your API key?' }).getByRole('button', { name: 'Rotate key' }).click()
    await expect.poll(() => shown.textContent()).not.toBe(user.key)
    const rotated = (await shown.textContent())!
    expect((await user.api.get('/api/account')).statusCode).toBe(401)
    expect((await s.t.api(rotated).get('/api/account')).statusCode).toBe(200)
    user = { ...user, key: rotated, api: s.t.api(rotated) }
  })

  it("another account's objects never appear, and a request without the CSRF header is refused", async () => {
    const other = await s.t.makeUser({ plan: 'pro' })
    const theirs = (await other.api.post('/api/url/add', { url: 'https://example.com/theirs', custom: 'theirs' })).json().id
    await other.api.post('/api/qr/add', { type: 'text', data: 'their secret', name: 'Their QR' })
    await other.api.post('/api/channel/add', { name: 'Their channel' })
    await page.goto(s.origin + '/dashboard/links')
    await page.getByRole('list', { name: 'Your links' }).waitFor()
    expect(await page.content()).not.toContain('/theirs')
    await page.goto(s.origin + `/dashboard/links/${theirs}`)
    await page.getByRole('alert').waitFor()
    expect(await page.getByRole('alert').textContent()).toContain('Link not found.')
    await page.goto(s.origin + '/dashboard/qr')
    await page.getByRole('link', { name: 'Flyer', exact: true }).waitFor()
    expect(await page.content()).not.toContain('Their QR')
    await page.goto(s.origin + '/dashboard/channels')
    await page.getByRole('heading', { name: 'No channels yet' }).waitFor()

    const status = await page.evaluate(async () => {
      const r = await fetch('/api/url/add', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: 'https://example.com/forged' }) })
      return { status: r.status, body: await r.json() }
    })
    expect(status).toEqual({ status: 403, body: { error: 1, message: expect.stringContaining('X-CSRF-Token') } })
    expect((await user.api.get('/api/urls')).json().data.urls.map((l: { longurl: string }) => l.longurl)).not.toContain('https://example.com/forged')
  })

  it('bulk-creates links from pasted lines; a refused line shows the API message and the others go through', async () => {
    await page.goto(s.origin + '/dashboard/links')
    await page.getByRole('button', { name: 'Bulk create' }).click()
    const dialog = page.getByRole('dialog', { name: 'Bulk create links' })
    await dialog.getByLabel('Links to create').fill('https://example.com/bulk/one bulk-one\nnot a url\nhttps://example.com/bulk/two')
    await dialog.getByRole('button', { name: 'Create links' }).click()
    await expect.poll(() => dialog.getByRole('row').count()).toBe(4)
    expect(await dialog.getByRole('table').textContent()).toContain('http://kurz.test/bulk-one')
    expect(await dialog.getByRole('table').textContent()).toMatch(/not a url.*(URL|url)/)
    const urls = (await user.api.get('/api/urls?limit=100')).json().data.urls.map((l: { longurl: string }) => l.longurl)
    expect(urls).toEqual(expect.arrayContaining(['https://example.com/bulk/one', 'https://example.com/bulk/two']))
    await page.keyboard.press('Escape')
  })

  it('downloads the links as CSV from Import/export (once the server has exports)', async () => {
    if ((await user.api.get('/api/urls/export')).statusCode === 404) return
    await page.goto(s.origin + '/dashboard/import-export')
    const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()])
    const text = (await streamBytes(await csv.createReadStream())).toString('utf8')
    expect(text).toContain('spring-sale')
    expect(text).not.toContain('/theirs')
  })

  it('works by keyboard: a skip link first, visible focus, a link created with keys only, Escape closes a dialog', async () => {
    await page.goto(s.origin + '/dashboard/links')
    await page.getByRole('heading', { name: 'Links', level: 1 }).waitFor()
    await page.keyboard.press('Tab')
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content')
    expect(await page.evaluate(() => document.activeElement!.matches(':focus-visible'))).toBe(true)
    const newLink = page.getByRole('button', { name: 'New link' })
    // the dialog opens before the form's options have loaded: the URL field gets focus when it appears
    const slowOptions = (url: URL) => url.pathname === '/api/overlay'
    await page.route(slowOptions, async (route) => {
      await new Promise((r) => setTimeout(r, 1_000))
      await route.continue()
    })
    await page.reload()
    await newLink.focus()
    await page.keyboard.press('Enter')
    const dialog = page.getByRole('dialog', { name: 'New link' })
    await dialog.waitFor()
    // the options answer after the route's 1 s: the poll must outlast it (its default is 1 s too)
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('type')), { timeout: 15_000 }).toBe('url')
    await page.unroute(slowOptions)
    await page.keyboard.type('https://example.com/typed')
    await page.keyboard.press('Tab')
    expect(await page.evaluate(() => document.activeElement?.id && document.querySelector(`label[for="${document.activeElement.id}"]`)?.textContent)).toBe('Alias')
    await page.keyboard.type('typed')
    await page.keyboard.press('Enter')
    await dialog.waitFor({ state: 'hidden' })
    await expect.poll(async () => (await user.api.get('/api/urls?short=typed')).json().details?.longurl).toBe('https://example.com/typed')
    // Escape closes a dialog without acting
    await page.getByRole('button', { name: 'Bulk create' }).focus()
    await page.keyboard.press('Enter')
    await page.getByRole('dialog', { name: 'Bulk create links' }).waitFor()
    await page.keyboard.press('Escape')
    await page.getByRole('dialog', { name: 'Bulk create links' }).waitFor({ state: 'hidden' })
    expect(s.scriptErrors).toEqual([])
    await context.close()
  })
})

async function streamBytes(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const c of stream) chunks.push(Buffer.from(c as Buffer))
  return Buffer.concat(chunks)
}
