import { beforeAll, describe, expect, it } from 'vitest'
import { links } from '../../src/db/schema/index.js'
import { hasChromium, watchedPage } from '../helpers/fixtures.js'
import { browserSuite } from './session.js'

const NAME = `Sale "><script>window.__pwned='name'</script><img src=x onerror="window.__pwned='img'">`
const TITLE = `</title><svg onload="window.__pwned='svg'"><b>bold?</b> & 'quotes'`

/** The public campaign list page in a real browser: hostile names render as text, nothing runs. */
describe.skipIf(!hasChromium)('campaign list page in Chromium', () => {
  const s = browserSuite()
  let path: string

  beforeAll(async () => {
    const u = await s.t.makeUser({ username: 'browser_user' })
    const res = await u.api.post('/api/campaign/add', { name: NAME, public: true })
    const id = res.json().id as number
    await s.t.app.db.insert(links).values([
      { userId: u.user.id, alias: 'hostile', url: 'https://example.com/', title: TITLE, campaignId: id },
      { userId: u.user.id, alias: 'plain', url: 'https://example.com/', title: 'Plain title', campaignId: id },
    ])
    path = `/u/browser_user/${id}`
  })

  it('renders the campaign name and link titles as text and executes nothing', async () => {
    const { page, dialogs, violations } = await watchedPage(s.browser)
    const res = await page.goto(s.origin + path)
    expect(res?.status()).toBe(200)

    expect(await page.title()).toBe(NAME)
    expect(await page.locator('h1').textContent()).toBe(NAME)
    const anchors = page.locator('ul.links a')
    expect(await anchors.allTextContents()).toEqual(expect.arrayContaining([TITLE, 'Plain title']))
    expect(await page.locator('ul.links a', { hasText: 'bold?' }).getAttribute('href')).toBe('http://kurz.test/hostile')

    // no element came out of the hostile strings, and no handler ran
    expect(await page.locator('script').count()).toBe(0)
    expect(await page.locator('main img, main svg, main b').count()).toBe(0)
    expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined()
    expect(dialogs).toEqual([])
    // nothing even tried to run (a CSP report would mean markup got through and was merely blocked)
    expect(violations).toEqual([])
    await page.close()
  })

  it('shows a 404 page for a private or unknown campaign', async () => {
    const page = await s.browser.newPage()
    const res = await page.goto(`${s.origin}/u/browser_user/2147483647`)
    expect(res?.status()).toBe(404)
    expect(await page.locator('h1').textContent()).toBe('Link not found')
    await page.close()
  })
})
