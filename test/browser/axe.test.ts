import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import type { Page } from 'playwright-core'
import { linkReports, links, webhookDeliveries } from '../../src/db/schema/index.js'
import { addLink, created, hasChromium } from '../helpers/fixtures.js'
import type { TestUser } from '../helpers/app.js'
import { UA } from '../redirect/user-agents.js'
import { visit } from '../helpers/visits.js'
import { browserSuite } from './session.js'

/**
 * Every dashboard route and every server-rendered page checked by axe-core (WCAG 2.0/2.1 A and AA,
 * and axe's best practices), at 1440 px and 390 px, light and dark. axe runs inside the page only:
 * it is a devDependency and never part of what Kurz serves.
 */

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']
const WIDE = { width: 1440, height: 900 }
const PHONE = { width: 390, height: 844 }
const SCHEMES = ['light', 'dark'] as const

interface AxeNode {
  target: string[]
  failureSummary?: string
}
interface AxeViolation {
  id: string
  impact: string | null
  help: string
  nodes: AxeNode[]
}

describe.skipIf(!hasChromium)('axe-core on every page', { timeout: 240_000 }, () => {
  const s = browserSuite({ dashboard: true, admin: { username: 'axe.admin' }, timeout: 10_000 })
  let user: TestUser
  const ids: Record<string, number> = {}
  /** every violation, keyed by rule, page and node, with the variants (width, scheme) it showed in */
  const found = new Map<string, { rule: string; impact: string | null; where: string; node: string; summary: string; variants: Set<string> }>()

  beforeAll(async () => {
    user = await s.t.makeUser({ features: {}, username: 'axe.user' })
    const u = user
    const pixel = (await created(u, '/api/pixel/add', { type: 'gtmpixel', name: 'Site tags', tag: 'GTM-AB12CD3' })).id
    const splash = (await created(u, '/api/splash/add', { name: 'Welcome splash', title: 'Welcome', message: 'Thanks for visiting', button: 'Go on', link: 'https://example.com/on' })).id
    const message = (await created(u, '/api/overlay/add', { name: 'Hello overlay', type: 'message', title: 'Hello', message: 'A note on top' })).id
    const contact = (await created(u, '/api/overlay/add', { name: 'Contact overlay', type: 'contact', title: 'Write to us' })).id
    const poll = (await created(u, '/api/overlay/add', { name: 'Poll overlay', type: 'poll', title: 'Which one?', options: ['Yes', 'No'], position: 'top' })).id
    const campaign = (await created(u, '/api/campaign/add', { name: 'Spring', slug: 'spring-rotator', public: true })).id
    const channel = (await created(u, '/api/channel/add', { name: 'Launch' })).id
    await created(u, '/api/domain/add', { domain: 'https://go.axe.example' })
    ids.qr = (await created(u, '/api/qr/add', { type: 'link', data: 'https://example.com/flyer', name: 'Flyer' })).id
    await created(u, '/api/qr/add', { type: 'wifi', data: { ssid: 'Lobby', encryption: 'WPA' }, name: 'Lobby wifi' })

    ids.link = await addLink(u, {
      url: 'https://example.com/launch',
      custom: 'launch',
      title: 'Launch page',
      description: 'Where it starts',
      campaign,
      pixels: [pixel],
      geotarget: [{ location: 'US', link: 'https://example.com/us' }],
      devicetarget: [{ device: 'Mac', link: 'https://example.com/mac' }],
      expiry: '2099-12-31 23:59:59',
    })
    await addLink(u, { url: 'https://example.com/secret', custom: 'locked', password: 'hunter2' })
    await addLink(u, { url: 'https://example.com/splashed', custom: 'splashed', type: 'splash', title: 'A splash' })
    await addLink(u, { url: 'https://example.com/custom', custom: 'customsplash', type: `splash-${splash}` }).catch(() => undefined)
    await addLink(u, { url: 'https://example.com/framed', custom: 'framed', type: 'frame', title: 'Framed' })
    await addLink(u, { url: 'https://example.com/under', custom: 'overlaid', type: String(message) })
    await addLink(u, { url: 'https://example.com/contact', custom: 'contacted', type: String(contact) })
    await addLink(u, { url: 'https://example.com/poll', custom: 'polled', type: String(poll) })
    await addLink(u, { url: 'https://example.com/public', custom: 'public', status: 'public', title: 'Public stats' })
    const expired = await addLink(u, { url: 'https://example.com/old', custom: 'expired' })
    await s.t.app.db.update(links).set({ expiresAt: new Date(Date.now() - 86_400_000) }).where(eq(links.id, expired))
    const held = await addLink(u, { url: 'https://example.com/held', custom: 'held' })
    await s.t.app.db.update(links).set({ quarantined: true }).where(eq(links.id, held))
    await s.t.app.db.insert(linkReports).values({ linkId: held, shortUrl: 'http://kurz.test/held', reason: 'phishing', comment: 'A fake bank login page', email: 'visitor@example.org' })
    await s.t.app.linkCache.invalidate(held)
    await s.t.app.linkCache.invalidate(expired)

    await u.api.post(`/api/channel/${channel}/assign/links/${ids.link}`)
    await u.api.post(`/api/channel/${channel}/assign/qr/${ids.qr}`)
    ids.channel = channel

    const hook = (await created(u, '/api/webhook/add', { url: 'https://93.184.216.34/hooks/kurz', events: ['link.created', 'link.clicked'] })).id
    const later = new Date(Date.now() + 3_600_000)
    await s.t.app.db.insert(webhookDeliveries).values([
      { webhookId: hook, event: 'link.created', data: '{}', status: 'delivered', attempts: 1, responseStatus: 200, nextAttemptAt: later },
      { webhookId: hook, event: 'link.clicked', data: '{}', status: 'failed', attempts: 8, responseStatus: 503, error: 'could not be reached', nextAttemptAt: later },
    ])
    const imported = await u.api.post('/api/urls/import?format=csv', 'url,alias\nhttps://example.com/i1,imp-one\nhttps://example.com/i2,imp-two\n', { 'content-type': 'text/csv' })
    expect(imported.statusCode, imported.body).toBe(200)

    // a few visits, from different devices and places, so the statistics have rows
    const from = [
      [UA.iPhone, '198.51.100.1', 'https://news.example/'],
      [UA.iPhone, '198.51.100.2', ''],
      [UA.windows, '198.51.100.3', 'https://twitter.com/'],
    ]
    for (const alias of ['launch', 'public']) {
      for (const [ua, ip, referer] of from) await visit(s.t, `/${alias}`, { remoteAddress: ip, headers: { 'user-agent': ua, ...(referer ? { referer } : {}) } })
    }
    await visit(s.t, `/_/overlay/${contact}`, { form: { link: String(ids.link), name: 'Visitor', email: 'v@example.com', message: 'Hello' } })
    await s.t.app.clicks.flush()

    await s.admin.api.post('/api/blocklist/add', { type: 'domain', value: 'bad.example', reason: 'phishing' })
    await s.admin.api.post('/api/blocklist/add', { type: 'keyword', value: 'free-money', reason: 'spam' })
  })

  const TIMED_PAGES = /^\/(splashed|customsplash|launch) /

  /** Loads axe into the page (once per document) and runs it; records what it finds for `where`. */
  async function check(page: Page, where: string, variant: string) {
    if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE)
    // what folds away (a form's sections, a table's details) is checked open, or axe would skip it
    await page.evaluate(() => document.querySelectorAll('details:not([open])').forEach((d) => ((d as HTMLDetailsElement).open = true)))
    // the scheme just changed: let colour transitions end before contrast is measured
    await page.evaluate(() => Promise.race([Promise.all(document.getAnimations().map((a) => a.finished.catch(() => undefined))), new Promise((r) => setTimeout(r, 400))]))
    const violations = (await page.evaluate(
      (tags) => (window as unknown as { axe: { run(c: Document, o: object): Promise<{ violations: unknown[] }> } }).axe.run(document, { runOnly: tags }).then((r) => r.violations),
      TAGS,
    )) as AxeViolation[]
    for (const v of violations) {
      // DECISIONS §5 step 7: splash and pixel pages move on by a meta refresh (a 5 s countdown, a
      // 1 s pause for the pixels), so that they work without JavaScript; axe's rule against a timed
      // refresh is that choice
      if (v.id === 'meta-refresh' && TIMED_PAGES.test(where)) continue
      for (const n of v.nodes) {
        const node = n.target.join(' ')
        const key = `${v.id}|${where}|${node}`
        const entry = found.get(key) ?? { rule: v.id, impact: v.impact, where, node, summary: (n.failureSummary ?? v.help).replace(/\s+/g, ' '), variants: new Set<string>() }
        entry.variants.add(variant)
        found.set(key, entry)
      }
    }
  }

  /** Checks what the page shows now at both widths, in light and in dark. */
  async function everyVariant(page: Page, where: string) {
    for (const viewport of [WIDE, PHONE]) {
      await page.setViewportSize(viewport)
      for (const colorScheme of SCHEMES) {
        await page.emulateMedia({ colorScheme })
        expect(await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches)).toBe(colorScheme === 'dark')
        await check(page, where, `${viewport.width}px ${colorScheme}`)
      }
    }
    await page.setViewportSize(WIDE)
    await page.emulateMedia({ colorScheme: 'light' })
  }

  function report(): string {
    return [...found.values()]
      .map((f) => `${f.rule} (${f.impact}) on ${f.where} [${[...f.variants].join(', ')}]\n    ${f.node}\n    ${f.summary}`)
      .join('\n')
  }

  /** A dashboard route: loaded, its heading shown and its requests settled. */
  async function openRoute(page: Page, path: string) {
    await page.goto(`${s.origin}/dashboard${path}`)
    await page.locator('main h1').first().waitFor()
    await page.waitForLoadState('networkidle')
    // lists and charts fill in after their requests: wait for loading lines to go
    await page.waitForFunction(() => !document.querySelector('main [aria-busy="true"], main .loading'), undefined, { timeout: 10_000 }).catch(() => undefined)
  }

  /** A dialog opened by a button on a route, checked, then closed. */
  async function checkDialog(page: Page, path: string, button: string | RegExp, where: string) {
    await openRoute(page, path)
    await page.getByRole('button', { name: button, exact: typeof button === 'string' }).first().click()
    const dialog = page.getByRole('dialog').first()
    await dialog.waitFor()
    await page.waitForLoadState('networkidle')
    await everyVariant(page, where)
  }

  it('how axe gets into a page under our CSP', async () => {
    const page = await s.page()
    await page.goto(`${s.origin}/login`)
    // the inline <script> addScriptTag writes is refused by script-src: evaluate the source instead
    const tag = await page.addScriptTag({ content: AXE }).then(() => page.evaluate(() => 'axe' in window), () => false)
    expect(tag).toBe(false)
    await page.evaluate(AXE)
    expect(await page.evaluate(() => 'axe' in window)).toBe(true)
    // and it reports what it should: an image without a text alternative
    await page.evaluate(() => document.querySelector('main')!.insertAdjacentHTML('beforeend', '<img src="/favicon.svg">'))
    const ids = await page.evaluate((tags) => (window as unknown as { axe: { run(c: Document, o: object): Promise<{ violations: { id: string }[] }> } }).axe.run(document, { runOnly: tags }).then((r) => r.violations.map((v) => v.id)), TAGS)
    expect(ids).toEqual(['image-alt'])
  })

  it('the dashboard as a user: every route and every dialog', async () => {
    const page = await s.signIn(user, { viewport: WIDE })
    const routes = [
      '/links',
      '/overview',
      `/links/${ids.link}`,
      `/links/${ids.link}/edit`,
      '/qr',
      `/qr/${ids.qr}`,
      '/domains',
      '/campaigns',
      '/channels',
      `/channels/${ids.channel}`,
      '/pixels',
      '/pages',
      '/webhooks',
      '/import-export',
      '/account',
      '/no-such-page',
    ]
    for (const r of routes) {
      await openRoute(page, r)
      await everyVariant(page, `/dashboard${r}`)
    }
    const dialogs: [string, string | RegExp, string][] = [
      ['/links', 'New link', 'New link'],
      ['/links', /^Bulk create/, 'Bulk create links'],
      ['/links', /^QR code of /, 'QR code of a link'],
      ['/qr', /^New QR code/, 'New QR code'],
      ['/domains', /^Add domain/, 'Add domain'],
      ['/campaigns', 'New campaign', 'New campaign'],
      ['/campaigns', /^Assign links to /, 'Assign links'],
      ['/channels', 'New channel', 'New channel'],
      [`/channels/${ids.channel}`, 'Add items', 'Add items'],
      ['/pixels', 'New pixel', 'New pixel'],
      ['/pages', 'New splash page', 'New splash page'],
      ['/pages', 'New overlay', 'New overlay'],
      ['/pages', /^Responses to /, 'Responses'],
      ['/webhooks', 'New webhook', 'New webhook'],
      ['/webhooks', /^Deliveries of /, 'Deliveries'],
      ['/channels', /^Delete /, 'Confirm delete'],
    ]
    for (const [path, button, name] of dialogs) await checkDialog(page, path, button, `/dashboard${path} dialog "${name}"`)
    // the Links list's bulk bar with a link selected, and its two dialogs (links/BulkActions.tsx)
    for (const button of ['', 'Add to campaign…', 'Add to channel…']) {
      await openRoute(page, '/links')
      await page.getByRole('checkbox', { name: /^Select http/ }).first().check()
      const bar = page.getByRole('region', { name: 'Selected links' })
      await bar.waitFor()
      if (button) {
        await bar.getByRole('button', { name: button }).click()
        await page.getByRole('dialog').getByRole('combobox').waitFor()
      }
      await everyVariant(page, `/dashboard/links ${button ? `dialog "${button}"` : 'bulk bar'}`)
    }
  })

  it('the dashboard as an admin: users, plans, blocklist and reports', async () => {
    const page = await s.signIn(s.admin, { viewport: WIDE })
    for (const r of ['/links', '/admin/users', '/admin/plans', '/admin/blocklist']) {
      await openRoute(page, r)
      await everyVariant(page, `/dashboard${r} (admin)`)
    }
    await checkDialog(page, '/admin/users', 'New user', '/dashboard/admin/users dialog "New user"')
    await checkDialog(page, '/admin/users', /^Change plan of /, '/dashboard/admin/users dialog "Plan"')
    await checkDialog(page, '/admin/plans', 'New plan', '/dashboard/admin/plans dialog "New plan"')
    await checkDialog(page, '/admin/blocklist', 'Block a domain or keyword', '/dashboard/admin/blocklist dialog "Block"')
  })

  it('the sign-in form and every visitor page', async () => {
    const page = await s.page({ viewport: WIDE })
    const campaign = (await user.api.get('/api/campaigns')).json().data.campaigns[0].id
    const pages: [string, string, number][] = [
      ['/login', 'sign-in', 200],
      ['/login?done=password', 'sign-in with a notice', 200],
      ['/logout', 'sign-out', 200],
      ['/sso/not-a-token', 'SSO link expired', 410],
      ['/nothing-here', 'not found', 404],
      ['/splashed', 'splash', 200],
      ['/customsplash', 'custom splash', 200],
      ['/launch', 'pixels', 200],
      ['/framed', 'frame', 200],
      ['/overlaid', 'overlay (message)', 200],
      ['/contacted', 'overlay (contact)', 200],
      ['/polled', 'overlay (poll)', 200],
      ['/locked', 'password', 200],
      ['/expired', 'expired', 410],
      ['/held', 'quarantine', 451],
      ['/public/report', 'report form', 200],
      ['/public+', 'statistics', 200],
      [`/u/axe.user/${campaign}`, 'campaign', 200],
    ]
    // pages that move on (splash) must be checked before they do: the check sees them as served,
    // but with their refresh put off, and no destination is fetched
    await page.route(/\/(splashed|customsplash|launch)$/, async (route) => {
      const res = await route.fetch()
      const body = (await res.text())
        .replace(/content="(5|1);url=/, 'content="3600;url=')
        .replace(/var n=5,/, 'var n=3600,')
        .replace(/\},1000\);<\/script>/, '},3600000);</script>')
      route.fulfill({ response: res, body })
    })
    // the pixel page's vendor snippets load nothing from outside in a test
    await page.route(/googletagmanager|facebook|google-analytics|doubleclick|tiktok|linkedin|twitter|bing|pinterest|snapchat|reddit|quora|adroll/, (route) => route.abort())
    await page.route('https://example.com/**', (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><html lang="en"><title>Destination</title><main><h1>Destination</h1></main></html>' }))
    for (const [path, name, status] of pages) {
      const res = await page.goto(s.origin + path)
      expect(res?.status(), path).toBe(status)
      await everyVariant(page, `${path} (${name})`)
    }
    // the password form after a wrong answer, and the report form after a refusal
    await page.goto(`${s.origin}/locked`)
    await page.fill('input[name=password]', 'wrong')
    await Promise.all([page.waitForLoadState('load'), page.click('button[type=submit]')])
    await everyVariant(page, '/locked (password, wrong answer)')
    await page.goto(`${s.origin}/login`)
    await page.fill('input[name=email]', 'nobody@example.com')
    await page.fill('input[name=password]', 'wrong')
    await Promise.all([page.waitForLoadState('load'), page.click('button[type=submit]')])
    await everyVariant(page, '/login (wrong password)')
  })

  it('finds no violation', () => {
    const text = report()
    if (text) console.log(`axe-core found ${found.size} violations:\n${text}`)
    expect(found.size, text).toBe(0)
  })
})
