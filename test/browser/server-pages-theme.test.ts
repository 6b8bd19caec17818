import { describe, expect, it } from 'vitest'
import { hasChromium } from '../helpers/fixtures.js'
import { browserSuite } from './session.js'

/** Server-rendered pages (/login, password forms, 404) follow the system's colour scheme as the dashboard does. */
describe.skipIf(!hasChromium)('server-rendered pages in light and dark', () => {
  const s = browserSuite()

  const colours = async (scheme: 'light' | 'dark', path: string) => {
    const context = await s.browser.newContext({ colorScheme: scheme })
    const page = await context.newPage()
    await page.goto(s.origin + path)
    const out = await page.evaluate(() => ({ body: getComputedStyle(document.body).backgroundColor, main: getComputedStyle(document.querySelector('main')!).backgroundColor, text: getComputedStyle(document.body).color }))
    await context.close()
    return out
  }

  it('/login is light on a light system and dark on a dark one', async () => {
    expect(await colours('light', '/login')).toEqual({ body: 'rgb(246, 247, 249)', main: 'rgb(255, 255, 255)', text: 'rgb(29, 35, 48)' })
    expect(await colours('dark', '/login')).toEqual({ body: 'rgb(16, 19, 26)', main: 'rgb(24, 28, 37)', text: 'rgb(230, 233, 240)' })
  })
})
