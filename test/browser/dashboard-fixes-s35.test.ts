import { beforeAll, describe, expect, it } from 'vitest'
import { hasChromium } from '../helpers/fixtures.js'
import type { TestUser } from '../helpers/app.js'
import { browserSuite } from './session.js'

/**
 * Dashboard fixes of session 35: on a phone the header says who is signed in (it showed the plan
 * and hid the name, so an admin signed in as a user by SSO could not tell whose account it was).
 */
describe.skipIf(!hasChromium)('dashboard in Chromium: the header on a phone', () => {
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
})
