import { beforeAll, describe, expect, it } from 'vitest'
import { hasChromium } from '../helpers/fixtures.js'
import type { TestUser } from '../helpers/app.js'
import { browserSuite } from './session.js'

/**
 * Dashboard fixes of session 35: on a phone the header says who is signed in (it showed the plan
 * and hid the name, so an admin signed in as a user by SSO could not tell whose account it was);
 * a link's click download, which takes a while for a busy link, can be cancelled.
 */
describe.skipIf(!hasChromium)('dashboard in Chromium: the header on a phone, cancelling a click download', () => {
  const s = browserSuite({ dashboard: true, timeout: 8000 })
  let user: TestUser

  beforeAll(async () => {
    user = await s.t.makeUser({ plan: 'pro', username: 'a.rather.long.username.s35' })
  })

  const header = async (width: number) => {
    const page = await s.signIn(user, { viewport: { width, height: 800 } })
    await page.goto(s.origin + '/dashboard/links')
    const name = page.locator('header .who-name')
    await name.waitFor()
    const box = (await name.boundingBox())!
    const fits = await page.evaluate(() => document.querySelector('header')!.scrollWidth <= document.documentElement.clientWidth)
    const plan = await page.locator('header .badge').isVisible()
    const signOut = await page.getByRole('button', { name: 'Sign out' }).isVisible()
    const text = await name.textContent()
    await page.close()
    return { box, fits, plan, signOut, text }
  }

  it('at 360 px shows the username (cut short if it must be), not the plan, and the header still fits', async () => {
    const phone = await header(360)
    expect(phone.text).toBe('a.rather.long.username.s35')
    expect(phone.box.width).toBeGreaterThan(40)
    expect(phone.box.x + phone.box.width).toBeLessThanOrEqual(360)
    expect(phone.fits).toBe(true)
    expect(phone.signOut).toBe(true)
    expect(phone.plan).toBe(false)
  })

  it('at 1440 px shows both the username and the plan', async () => {
    const wide = await header(1440)
    expect(wide.box.width).toBeGreaterThan(100)
    expect(wide.plan).toBe(true)
  })

  it("a link's click download can be cancelled: no file, the page says so, focus back on its button, and it downloads again after", async () => {
    if ((await user.api.get('/api/urls/export')).statusCode === 404) return
    await user.api.post('/api/url/add', { url: 'https://example.com/s35-export', custom: 's35-export' })
    const page = await s.signIn(user, { viewport: { width: 1440, height: 900 } })
    await page.goto(s.origin + '/dashboard/import-export')
    await page.getByLabel('Search in').selectOption('alias')
    await page.getByLabel('Find a link').fill('s35-export')
    const start = page.getByRole('button', { name: 'Download clicks of kurz.test/s35-export' })
    await start.waitFor()
    let downloads = 0
    page.on('download', () => void downloads++)
    // the export reaches the server and is never answered, as a long one would not be yet
    let sent = 0
    await page.route('**/api/url/*/clicks/export', () => void sent++)
    await start.click()
    const cancel = page.getByRole('button', { name: 'Cancel download of kurz.test/s35-export' })
    await cancel.waitFor()
    expect(sent).toBe(1)
    await cancel.focus()
    await page.keyboard.press('Enter')
    await page.getByRole('status').filter({ hasText: "Download of kurz.test/s35-export's clicks cancelled: no file was saved." }).waitFor()
    expect(await cancel.count()).toBe(0)
    expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Download clicks of kurz.test/s35-export')
    expect(await page.getByText('Downloading…').count()).toBe(0)
    expect(downloads).toBe(0)
    // nothing left over: the next download goes through
    await page.unroute('**/api/url/*/clicks/export')
    const [file] = await Promise.all([page.waitForEvent('download'), start.click()])
    expect(file.suggestedFilename()).toBe('kurz-clicks-s35-export.csv')
    await page.close()
  })
})
