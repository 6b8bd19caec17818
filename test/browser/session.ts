import { afterAll, beforeAll } from 'vitest'
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core'
import { launchBrowser, listen, type UserOptions } from '../helpers/fixtures.js'
import { testApp, type TestApp, type TestUser } from '../helpers/app.js'
import { ensureWebBuild } from './dashboard-web.js'

export interface SuiteOptions {
  /** the file drives the dashboard: build it first, and make the admin whose SSO URLs sign users in */
  dashboard?: boolean
  /** more about that admin (its username) */
  admin?: UserOptions
  /** Playwright's default timeout on the pages of `page` and `signIn`; its own 30 s when unset */
  timeout?: number
}

/**
 * A file's page timeout, at least 15 s under CI: there two test files, their servers and two
 * Chromiums share two cores, and a step that takes 2 s here has been seen to pass 8 s there.
 */
function pageTimeout(ms: number): number {
  return process.env.CI ? Math.max(ms, 15_000) : ms
}

/**
 * What every browser test file needs, in one place rather than copied into each: a fresh app on a
 * free port, headless Chromium, pages that record their script errors and, for the dashboard, an
 * admin whose single-use SSO URLs sign users in. Call it inside the `describe`: it registers the
 * beforeAll that makes all this and the afterAll that closes it. The file's own users and links stay
 * in the file's own beforeAll, which runs after this one; the values exist once the hooks have run.
 */
export function browserSuite(opts: SuiteOptions = {}) {
  let t: TestApp
  let origin: string
  let browser: Browser
  let admin: TestUser | undefined
  const scriptErrors: string[] = []
  const contexts: BrowserContext[] = []

  beforeAll(async () => {
    if (opts.dashboard) await ensureWebBuild()
    t = await testApp()
    origin = await listen(t.app)
    if (opts.dashboard) admin = await t.makeUser({ ...opts.admin, admin: true })
    browser = await launchBrowser()
  })
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined)
    await browser?.close()
    await t?.close()
  })

  const theAdmin = () => {
    if (!admin) throw new Error('only a browserSuite({ dashboard: true }) has an admin')
    return admin
  }

  /** A context of its own, closed after the file's tests. */
  async function context(options?: BrowserContextOptions): Promise<BrowserContext> {
    const c = await browser.newContext(options)
    contexts.push(c)
    return c
  }

  /** A page in a context of its own that records its script errors in `scriptErrors`; not signed in. */
  async function page(options?: BrowserContextOptions): Promise<Page> {
    const p = await (await context(options)).newPage()
    if (opts.timeout) p.setDefaultTimeout(pageTimeout(opts.timeout))
    p.on('pageerror', (e) => scriptErrors.push(e.message))
    return p
  }

  /** The path of a single-use SSO URL that signs `user` in (the admin asks for it). */
  async function ssoPath(user: TestUser): Promise<string> {
    const res = await theAdmin().api.get(`/api/user/login/${user.user.id}`)
    if (res.statusCode !== 200) throw new Error(`no SSO URL for ${user.user.username}: ${res.statusCode} ${res.body}`)
    return new URL(res.json().url).pathname
  }

  /** A `page` signed in as `user` through an SSO URL, showing the Links page. */
  async function signIn(user: TestUser, options?: BrowserContextOptions): Promise<Page> {
    const sso = await ssoPath(user)
    const p = await page(options)
    await p.goto(origin + sso)
    await p.waitForURL(`${origin}/dashboard/links`)
    await p.getByRole('heading', { name: 'Links', level: 1 }).waitFor()
    return p
  }

  return {
    get t() { return t },
    /** where the app listens: `http://127.0.0.1:<port>` */
    get origin() { return origin },
    get browser() { return browser },
    /** the admin of a `dashboard` suite */
    get admin() { return theAdmin() },
    scriptErrors,
    context,
    page,
    ssoPath,
    signIn,
  }
}
