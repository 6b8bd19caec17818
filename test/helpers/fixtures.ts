import { existsSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { count, eq } from 'drizzle-orm'
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core'
import type { FastifyInstance } from 'fastify'
import { nanoid } from 'nanoid'
import { chromium, type Browser, type BrowserContextOptions } from 'playwright-core'
import type { Db } from '../../src/db/client.js'
import {
  channelItems,
  clickRollups,
  clicks,
  linkPixels,
  links,
  linkTargets,
  plans,
  type Feature,
  type PlanFeatures,
  type TargetKind,
} from '../../src/db/schema/index.js'
import { allFeatures, savePlan } from '../../src/resources/admin/plans.js'
import { hashPassword } from '../../src/lib/passwords.js'
import { createUser } from '../../src/resources/admin/users.js'
import { createCampaign } from '../../src/resources/campaigns/repo.js'
import { createChannel } from '../../src/resources/channels/repo.js'
import { insertDomain } from '../../src/resources/domains/repo.js'
import { insertPage } from '../../src/resources/pages/repo.js'
import { insertPixel } from '../../src/resources/pixels/repo.js'
import type { TestApp, TestUser } from './app.js'

/*
 * What tests make: users on a plan, the resources a link points at, links, a browser. Everything goes
 * through the API or the resources' own repos, so a fixture row is a row the service itself would write.
 */

export interface UserOptions {
  /** a seeded plan; ignored when `features`, `off` or `maxLinks` ask for a plan of the test's own */
  plan?: 'free' | 'pro'
  admin?: boolean
  email?: string
  username?: string
  password?: string
  /** a fresh free plan with every feature on and unlimited, except these switches */
  features?: Partial<PlanFeatures>
  /** on that fresh plan, these features switched off */
  off?: Feature[]
  /** on that fresh plan, the links cap (0 = unlimited) */
  maxLinks?: number
}

let seq = 0
const unique = () => `${++seq}${nanoid(6).replace(/[^A-Za-z0-9]/g, 'x')}`

/** A user with an API key, on a seeded plan or on a plan of the test's own (`features`, `off`, `maxLinks`). */
export async function makeUser(t: TestApp, opts: UserOptions = {}): Promise<TestUser> {
  const n = unique()
  const { user, apiKey } = await createUser(t.app.db, t.app.keys, {
    email: opts.email ?? `user${n}@example.com`,
    username: opts.username ?? `user${n}`,
    password: opts.password ?? 'secret-password',
    admin: opts.admin ?? false,
    planId: await planFor(t.app.db, opts, n),
  })
  return { user, key: apiKey, api: t.api(apiKey) }
}

async function planFor(db: Db, opts: UserOptions, n: string): Promise<number> {
  if (opts.features || opts.off || opts.maxLinks !== undefined) {
    const off = Object.fromEntries((opts.off ?? []).map((f) => [f, { enabled: '0' as const, count: '0' }]))
    const plan = await savePlan(db, {
      name: `Test plan ${n}`,
      free: true,
      limits: { links: opts.maxLinks ?? 0, ...allFeatures('1', '0', { ...opts.features, ...off }) },
    })
    return plan!.id
  }
  const [plan] = await db.select({ id: plans.id }).from(plans).where(eq(plans.name, opts.plan === 'pro' ? 'Pro' : 'Free'))
  return plan.id
}

/** A branded domain for `origin` (scheme, host and port), whatever the owner's plan allows. */
export function makeDomain(t: TestApp, userId: number, origin: string) {
  const u = new URL(origin)
  return t.app.db.transaction((tx) =>
    insertDomain(tx, userId, { domain: `${u.protocol}//${u.host}`, host: u.host, redirectRoot: null, redirect404: null }),
  )
}

export function makePage(t: TestApp, userId: number, kind: 'splash' | 'overlay', name: string = kind) {
  return t.app.db.transaction((tx) => insertPage(tx, userId, kind, { name, overlayType: kind === 'overlay' ? 'message' : null }))
}

export function makePixel(t: TestApp, userId: number, name = 'GTM') {
  return t.app.db.transaction((tx) => insertPixel(tx, userId, { type: 'gtmpixel', name, tag: 'GTM-123' }))
}

export function makeChannel(t: TestApp, userId: number, name = 'Channel') {
  return createChannel(t.app.db, userId, { name, description: '', color: '#000000', starred: false })
}

export function makeCampaign(t: TestApp, userId: number, name = 'Campaign') {
  return createCampaign(t.app.db, userId, { name, slug: null, public: false })
}

/** POSTs to a management endpoint that creates something; anything but a 200 fails the test. Returns the answer. */
export async function created<T = { id: number }>(u: TestUser, path: string, body: Record<string, unknown>): Promise<T> {
  const res = await u.api.post(path, body)
  if (res.statusCode !== 200) throw new Error(`POST ${path} ${res.statusCode} ${res.body}`)
  return res.json() as T
}

/** Creates a link through the management API and returns its id. */
export const addLink = async (u: TestUser, body: Record<string, unknown>) => (await created(u, '/api/url/add', body)).id

/** Creates a link through the v1 interface (form-encoded), for v1-only fields. */
export async function addV1Link(t: TestApp, u: TestUser, form: Record<string, string>): Promise<number> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/links',
    headers: { authorization: `Bearer ${u.key}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    payload: new URLSearchParams(form).toString(),
  })
  if (res.statusCode !== 201) throw new Error(`POST /api/v1/links ${res.statusCode} ${res.body}`)
  return res.json().data.id as number
}

export interface InsertLink extends Partial<typeof links.$inferInsert> {
  password?: string
  targets?: { kind: TargetKind; key?: string; match?: string; url: string }[]
  pixelIds?: number[]
}

/**
 * Inserts a link row directly, for states the interfaces cannot create (such as an already-expired
 * link); everything else goes through `addLink`.
 */
export async function insertLink(t: TestApp, userId: number, o: InsertLink): Promise<typeof links.$inferSelect> {
  const { password, targets, pixelIds, ...values } = o
  const [row] = await t.app.db
    .insert(links)
    .values({ alias: `l${Math.random().toString(36).slice(2, 10)}`, url: 'https://example.com/', ...values, userId, passwordHash: password ? await hashPassword(password) : values.passwordHash })
    .returning()
  if (targets?.length) {
    await t.app.db.insert(linkTargets).values(
      targets.map((x, i) => ({ linkId: row.id, kind: x.kind, key: x.key ?? x.match ?? null, match: x.match ?? null, url: x.url, position: i })),
    )
  }
  if (pixelIds?.length) await t.app.db.insert(linkPixels).values(pixelIds.map((pixelId) => ({ linkId: row.id, pixelId })))
  await t.app.linkCache.invalidate(row.id)
  return row
}

export async function countRows(t: TestApp, table: PgTable): Promise<number> {
  const [{ n }] = await t.app.db.select({ n: count() }).from(table)
  return n
}

/** The row of `table` with this id, as the database holds it now. */
export async function rowById<T extends PgTable & { id: AnyPgColumn }>(t: TestApp, table: T, id: number): Promise<T['$inferSelect']> {
  const [row] = await t.app.db.select().from(table as PgTable).where(eq(table.id, id))
  return row as T['$inferSelect']
}

/** Row counts of the given tables, to prove a refused request wrote nothing. */
export async function rowCountsOf(db: Db, tables: Record<string, PgTable>): Promise<Record<string, number>> {
  const out: Record<string, number> = {}
  for (const [name, table] of Object.entries(tables)) {
    const [{ n }] = await db.select({ n: count() }).from(table)
    out[name] = n
  }
  return out
}

/** Row counts of everything a link write touches. */
export const linkRowCounts = (t: TestApp) => rowCountsOf(t.app.db, { links, linkTargets, linkPixels, channelItems, clicks, clickRollups })

export const linkRow = (t: TestApp, id: number) => rowById(t, links, id)

export const RANDOM_ALIAS = /^[0-9A-Za-z]{6}$/

/** Statistics of a link or QR code nobody has visited; the social networks counted differ. */
export const NO_CLICKS = {
  clicks: 0,
  uniqueClicks: 0,
  topCountries: 0,
  topReferrers: 0,
  topBrowsers: 0,
  topOs: 0,
  botClicks: 0,
}
export const NO_STATS = { ...NO_CLICKS, socialCount: { facebook: 0, twitter: 0, google: 0 } }
export const NO_QR_STATS = { ...NO_CLICKS, socialCount: { facebook: 0, twitter: 0, instagram: 0 } }

/** Debian's chromium package; browser tests skip where it is not installed. */
export const CHROMIUM = '/usr/bin/chromium'
export const hasChromium = existsSync(CHROMIUM)

/**
 * Headless Chromium with nothing of its own on the network (no QUIC, updates, sync or first-run pages),
 * so a test sees only the requests the page makes. Playwright gives every launch a fresh temporary
 * user-data dir and deletes it on close (it refuses a --user-data-dir flag), so no state leaks between files.
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
}

/** A page in a context of its own that records dialogs (alert) and CSP violations, which a hostile string must never cause. */
export async function watchedPage(browser: Browser, opts: BrowserContextOptions = {}) {
  const context = await browser.newContext(opts)
  const page = await context.newPage()
  const dialogs: string[] = []
  const violations: string[] = []
  page.on('dialog', (d) => {
    dialogs.push(d.message())
    void d.dismiss()
  })
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(m.text())
  })
  return { page, dialogs, violations, close: () => context.close() }
}

/** Starts the app on a free local port, for a real browser or client; returns its origin. */
export async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' })
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
}
