import { count, eq } from 'drizzle-orm'
import {
  campaigns,
  channelItems,
  channels,
  clickRollups,
  clicks,
  domains,
  linkPixels,
  links,
  linkTargets,
  pages,
  pixels,
  plans,
  users,
  type Feature,
} from '../../src/db/schema/index.js'
import { allFeatures } from '../../src/resources/admin/plans.js'
import type { TestApp, TestUser } from '../helpers/app.js'

/*
 * Fixtures of the links tests. Domains, pages, pixels, channels and campaigns are inserted with
 * drizzle directly: the links API only reads them, and this keeps these tests independent of the
 * other resources' endpoints.
 */

export async function makeDomain(t: TestApp, userId: number, origin: string) {
  const u = new URL(origin)
  const [row] = await t.app.db
    .insert(domains)
    .values({ userId, domain: `${u.protocol}//${u.host}`, host: u.host })
    .returning()
  return row
}

export async function makePage(t: TestApp, userId: number, kind: 'splash' | 'overlay', name = kind) {
  const [row] = await t.app.db
    .insert(pages)
    .values({ userId, kind, name, overlayType: kind === 'overlay' ? 'message' : null })
    .returning()
  return row
}

export async function makePixel(t: TestApp, userId: number, name = 'GTM') {
  const [row] = await t.app.db.insert(pixels).values({ userId, type: 'gtmpixel', name, tag: 'GTM-123' }).returning()
  return row
}

export async function makeChannel(t: TestApp, userId: number, name = 'Channel') {
  const [row] = await t.app.db.insert(channels).values({ userId, name }).returning()
  return row
}

export async function makeCampaign(t: TestApp, userId: number, name = 'Campaign') {
  const [row] = await t.app.db.insert(campaigns).values({ userId, name }).returning()
  return row
}

let planCounter = 0

/** A user on a fresh plan: `off` features switched off, `maxLinks` the links cap (0 = unlimited). */
export async function makePlanUser(t: TestApp, opts: { off?: Feature[]; maxLinks?: number } = {}): Promise<TestUser> {
  const overrides = Object.fromEntries((opts.off ?? []).map((f) => [f, { enabled: '0' as const, count: '0' }]))
  const [plan] = await t.app.db
    .insert(plans)
    .values({ name: `Test plan ${++planCounter}`, free: true, maxLinks: opts.maxLinks ?? 0, features: allFeatures('1', '0', overrides) })
    .returning()
  const u = await t.makeUser()
  await t.app.db.update(users).set({ planId: plan.id }).where(eq(users.id, u.user.id))
  return u
}

/** Row counts of everything a link write touches, to prove a refused request wrote nothing. */
export async function linkRowCounts(t: TestApp) {
  const tables = { links, linkTargets, linkPixels, channelItems, clicks, clickRollups }
  const out: Record<string, number> = {}
  for (const [name, table] of Object.entries(tables)) {
    const [{ n }] = await t.app.db.select({ n: count() }).from(table)
    out[name] = n
  }
  return out
}

export async function linkRow(t: TestApp, id: number) {
  const [row] = await t.app.db.select().from(links).where(eq(links.id, id))
  return row
}

export const TS = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/
export const RANDOM_ALIAS = /^[0-9A-Za-z]{6}$/

export const NO_STATS = {
  clicks: 0,
  uniqueClicks: 0,
  topCountries: 0,
  topReferrers: 0,
  topBrowsers: 0,
  topOs: 0,
  socialCount: { facebook: 0, twitter: 0, google: 0 },
  botClicks: 0,
}
