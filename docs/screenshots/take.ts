/**
 * npm run screenshots: every dashboard page at 1440 px and 360 px, light and dark, as PNG files in
 * this folder. A throwaway in-memory server is seeded through the JSON API, then Chromium
 * (/usr/bin/chromium, or CHROMIUM=...) signs in by SSO and visits each page.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { AddressInfo } from 'node:net'
import { chromium, type Page } from 'playwright-core'
import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'

const OUT = resolve(import.meta.dirname)
const ADMIN_KEY = 'screenshot-admin-key-0123456789abcdef'

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'kurz-shots-'))
  const config = loadConfig({
    PUBLIC_URL: 'https://kurz.example',
    SECRET_KEY: 'screenshots-secret-key-that-is-long-enough',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    ADMIN_EMAIL: 'admin@kurz.example',
    ADMIN_USERNAME: 'admin',
    ADMIN_PASSWORD: 'screenshots',
    ADMIN_API_KEY: ADMIN_KEY,
    RATE_LIMIT_MAX: '100000',
    // no network here: a checker would mark every example destination broken
    HEALTH_CHECK_INTERVAL: '0',
  })
  const app = await buildApp(config)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`

  const call = async (key: string, method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) => {
    const res = await app.inject({ method, url, headers: { authorization: `Bearer ${key}` }, ...(payload ? { payload } : {}) })
    if (res.statusCode >= 400) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`)
    return res.json()
  }

  // a demo account with something of everything
  const plans = (await call(ADMIN_KEY, 'GET', '/api/plans')).data as { id: number; name: string }[]
  const pro = plans.find((p) => p.name === 'Pro')!
  const demo = (await call(ADMIN_KEY, 'POST', '/api/user/add', { username: 'ada', email: 'ada@example.com', password: 'demo-password', planid: pro.id })).data
  for (const u of [['grace', 'grace@example.com'], ['linus', 'linus@example.org'], ['margaret', 'margaret@example.net']]) {
    await call(ADMIN_KEY, 'POST', '/api/user/add', { username: u[0], email: u[1], password: 'demo-password' })
  }
  const key = (await call(ADMIN_KEY, 'GET', `/api/user/${demo.id}`)).data.apikey as string
  const domain = await call(key, 'POST', '/api/domain/add', { domain: 'https://go.acme.example', redirectroot: 'https://acme.example' })
  await call(key, 'POST', '/api/domain/add', { domain: 'https://links.acme.example' })
  const channel = await call(key, 'POST', '/api/channel/add', { name: 'Spring launch', description: 'Everything for the April launch', color: '#3b5bdb', starred: true })
  await call(key, 'POST', '/api/channel/add', { name: 'Newsletter', description: 'Links in the monthly mail', color: '#2b8a3e' })
  const campaign = await call(key, 'POST', '/api/campaign/add', { name: 'Spring sale', slug: 'spring', public: true })
  await call(key, 'POST', '/api/campaign/add', { name: 'Podcast sponsors' })
  await call(key, 'POST', '/api/pixel/add', { type: 'gtmpixel', name: 'Main site tags', tag: 'GTM-AB12CD3' })
  await call(key, 'POST', '/api/pixel/add', { type: 'fbpixel', name: 'Facebook ads', tag: '123456789012345' })
  await call(key, 'POST', '/api/splash/add', { name: 'Launch teaser', title: 'Almost there', message: 'You are about to see our spring collection.', button: 'Take me there', countdown: 5 })
  await call(key, 'POST', '/api/overlay/add', { name: 'Newsletter sign-up', type: 'contact', title: 'Stay in touch', message: 'Get the spring news first.' })
  await call(key, 'POST', '/api/overlay/add', { name: 'Favourite colour', type: 'poll', title: 'Quick question', options: ['Blue', 'Green', 'Orange'] })
  const destinations = [
    ['https://acme.example/spring/collection?utm_source=newsletter', 'spring', 'Spring collection'],
    ['https://acme.example/blog/how-we-build-things', 'build', 'How we build things'],
    ['https://acme.example/careers', 'jobs', 'Careers at Acme'],
    ['https://docs.acme.example/getting-started', 'start', 'Getting started guide'],
    ['https://acme.example/podcast/episode-42', 'ep42', 'Podcast episode 42'],
    ['https://shop.acme.example/gift-cards', 'gifts', ''],
  ]
  const ids: number[] = []
  for (const [url, custom, title] of destinations) {
    ids.push((await call(key, 'POST', '/api/url/add', { url, custom, ...(title ? { title } : {}), channel: channel.id })).id)
  }
  await call(key, 'POST', '/api/url/add', { url: 'https://acme.example/de/fruehling', custom: 'fruehling', domain: 'https://go.acme.example', geotarget: [{ location: 'AT', link: 'https://acme.example/at/fruehling' }] })
  await call(key, 'POST', `/api/campaign/${campaign.id}/assign/${ids[0]}`)
  await call(key, 'POST', '/api/qr/add', { type: 'link', data: 'https://acme.example/spring', name: 'Spring flyer' })
  await call(key, 'POST', '/api/qr/add', { type: 'wifi', data: { ssid: 'Acme Guests', password: 'welcome-2026', encryption: 'WPA' }, name: 'Office Wi-Fi' })
  void domain
  await call(ADMIN_KEY, 'POST', '/api/blocklist/add', { type: 'domain', value: 'phish.example', reason: 'Credential phishing' }).catch(() => undefined)
  await call(ADMIN_KEY, 'POST', '/api/blocklist/add', { type: 'keyword', value: 'free-gift-card', reason: 'Spam campaign' }).catch(() => undefined)

  // visits, so the analytics have something to show
  const agents = [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
    'Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0',
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36',
  ]
  const ips = ['81.2.69.160', '5.146.0.1', '89.160.20.112', '24.48.0.1', '2.125.160.216', '77.88.55.60', '1.128.0.1']
  const referrers = ['https://news.ycombinator.com/', 'https://www.google.com/', 'https://t.co/abc', '', 'https://www.reddit.com/r/design']
  const langs = ['en-GB,en;q=0.9', 'de-DE,de;q=0.9', 'fr-FR,fr;q=0.8', 'en-US,en;q=0.9', 'sv-SE']
  const aliases = ['spring', 'build', 'jobs', 'start', 'ep42', 'gifts']
  for (let i = 0; i < 240; i++) {
    const alias = aliases[i % 7 === 0 ? 1 : i % 11 === 0 ? 2 : i % 5 === 0 ? 3 : 0]
    await app.inject({
      method: 'GET',
      url: `/${alias}`,
      remoteAddress: ips[(i * 3) % ips.length].replace(/\d+$/, String(10 + (i % 200))),
      headers: { host: new URL(config.publicUrl).host, 'user-agent': agents[i % agents.length], 'accept-language': langs[i % langs.length], ...(referrers[i % 5] ? { referer: referrers[i % 5] } : {}) },
    })
  }
  await app.clicks.flush()

  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run'] })
  const sso = async (userId: number) => new URL((await call(ADMIN_KEY, 'GET', `/api/user/login/${userId}`)).url).pathname
  const adminId = (await call(ADMIN_KEY, 'GET', '/api/account')).data.id as number
  const firstQr = (await call(key, 'GET', '/api/qr')).data.qrs[0].id

  const pages: [string, string, ((p: Page) => Promise<void>)?][] = [
    ['links', '/dashboard/links'],
    ['links-new', '/dashboard/links', async (p) => p.getByRole('button', { name: 'New link' }).click()],
    ['link-analytics', `/dashboard/links/${ids[0]}`],
    ['link-edit', `/dashboard/links/${ids[0]}/edit`],
    ['qr-codes', '/dashboard/qr'],
    ['qr-designer', '/dashboard/qr', async (p) => p.getByRole('button', { name: 'New QR code' }).click()],
    ['qr-scans', `/dashboard/qr/${firstQr}`],
    ['domains', '/dashboard/domains'],
    ['campaigns', '/dashboard/campaigns'],
    ['channels', '/dashboard/channels'],
    ['channel', `/dashboard/channels/${channel.id}`],
    ['pixels', '/dashboard/pixels'],
    ['pages', '/dashboard/pages'],
    ['splash-editor', '/dashboard/pages', async (p) => p.getByRole('button', { name: 'Edit Launch teaser' }).click()],
    ['overlay-editor', '/dashboard/pages', async (p) => p.getByRole('button', { name: 'Edit Favourite colour' }).click()],
    ['webhooks', '/dashboard/webhooks'],
    ['import-export', '/dashboard/import-export'],
    ['account', '/dashboard/account'],
  ]
  const adminPages: typeof pages = [
    ['users', '/dashboard/admin/users'],
    ['plans', '/dashboard/admin/plans'],
    ['blocklist', '/dashboard/admin/blocklist'],
  ]
  const only = process.argv.slice(2)
  for (const scheme of ['light', 'dark'] as const) {
    for (const width of [1440, 360]) {
      for (const [who, list] of [[demo.id, pages], [adminId, adminPages]] as const) {
        const context = await browser.newContext({ viewport: { width, height: width === 360 ? 780 : 900 }, colorScheme: scheme, deviceScaleFactor: 1 })
        const page = await context.newPage()
        page.on('pageerror', (e) => console.error('page error:', e.message))
        await page.goto(origin + (await sso(who)))
        for (const [name, path, act] of list) {
          if (only.length && !only.includes(name)) continue
          await page.goto(origin + path)
          await page.waitForLoadState('networkidle')
          await page.locator('h1').first().waitFor()
          if (act) {
            await act(page)
            await page.waitForTimeout(300)
          }
          // nothing may stick out sideways at phone width (what a box scrolls sideways, as the
          // navigation strip does, is inside the page)
          const wide = await page.evaluate((w) => {
            const out: string[] = []
            document.querySelectorAll('body *').forEach((e) => {
              const r = e.getBoundingClientRect()
              let scrolled = false
              for (let p = e.parentElement; p && !scrolled; p = p.parentElement) scrolled = ['auto', 'scroll'].includes(getComputedStyle(p).overflowX)
              if (r.width > 0 && r.right > w + 1 && !e.closest('.offscreen') && !scrolled) out.push(`${e.tagName.toLowerCase()}.${String(e.className)} ends at ${Math.round(r.right)}`)
            })
            return out.slice(0, 5)
          }, width)
          if (wide.length) console.warn(`${name} at ${width}px overflows:\n  ${wide.join('\n  ')}`)
          await page.screenshot({ path: join(OUT, `${name}-${width}-${scheme}.png`), fullPage: !act })
        }
        await context.close()
      }
    }
  }
  await browser.close()
  await app.close()
  rmSync(dataDir, { recursive: true, force: true })
  console.log(`screenshots written to ${OUT}`)
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
