import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { hasChromium, launchBrowser, listen } from '../helpers/fixtures.js'
import { testApp, type TestApp, type TestUser } from '../helpers/app.js'

/** SSO in a real browser: the single-use URL lands on the dashboard, signed in. */
describe.skipIf(!hasChromium)('SSO and dashboard in Chromium', () => {
  let t: TestApp
  let browser: Browser
  let origin: string
  let admin: TestUser
  let user: TestUser

  beforeAll(async () => {
    t = await testApp()
    origin = await listen(t.app)
    admin = await t.makeUser({ admin: true })
    user = await t.makeUser({ username: 'browser.dash', plan: 'pro', password: 'correct horse' })
    browser = await launchBrowser()
  })
  afterAll(async () => {
    await browser?.close()
    await t?.close()
  })

  it('opens an SSO URL, lands on the dashboard, sees the username; the URL then answers 410; sign out and in again', async () => {
    const sso = new URL((await admin.api.get(`/api/user/login/${user.user.id}`)).json().url)
    const context = await browser.newContext()
    const page = await context.newPage()
    const scriptErrors: string[] = []
    page.on('pageerror', (e) => scriptErrors.push(e.message))

    const res = await page.goto(origin + sso.pathname)
    expect(res?.status()).toBe(200)
    expect(new URL(page.url()).pathname).toBe('/dashboard')
    expect(await page.title()).toBe('Dashboard · Kurz')
    expect(await page.locator('#username').textContent()).toBe('browser.dash')
    expect(await page.locator('#plan').textContent()).toBe('Pro')
    expect(await page.locator('#apikey').textContent()).toBe(user.key)

    // the session cookie is HttpOnly: page scripts cannot read it
    const cookies = await context.cookies()
    expect(cookies).toEqual([expect.objectContaining({ name: 'kurz_session', httpOnly: true, sameSite: 'Lax', secure: false, path: '/' })])
    expect(await page.evaluate(() => document.cookie)).toBe('')

    // single use: the same URL again is a 410 page
    const again = await page.goto(origin + sso.pathname)
    expect(again?.status()).toBe(410)
    expect(await page.locator('h1').textContent()).toBe('Login link expired')

    // sign out with the button, which lands on the login form
    await page.goto(origin + '/dashboard')
    await Promise.all([page.waitForURL(`${origin}/login`), page.getByRole('button', { name: 'Sign out' }).click()])
    expect(await context.cookies()).toEqual([])
    const back = await page.goto(origin + '/dashboard')
    expect(new URL(back!.url()).pathname).toBe('/login')

    // and in again with email and password
    await page.fill('input[name="email"]', user.user.email)
    await page.fill('input[name="password"]', 'correct horse')
    await Promise.all([page.waitForURL(`${origin}/dashboard`), page.getByRole('button', { name: 'Sign in' }).click()])
    expect(await page.locator('#username').textContent()).toBe('browser.dash')
    expect(scriptErrors).toEqual([])
    await context.close()
  })
})
