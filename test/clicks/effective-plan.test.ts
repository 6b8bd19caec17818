import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { purgeExpiredClicks } from '../../src/clicks/retention.js'
import { clicks, links, plans, users } from '../../src/db/schema/index.js'
import { testApp, type TestApp } from '../helpers/app.js'
import { clickRows, expectRedirect, visit } from '../helpers/visits.js'

const DAY = 86_400_000

/**
 * DECISIONS §3: once a subscription has ended, the default plan applies. The click quota and the
 * retention purge read that rule without the owner making a request (which would move them to
 * the default plan for good), so the owner here never calls the API after the link exists.
 */
describe('an ended subscription in the click pipeline', () => {
  let t: TestApp

  beforeAll(async () => {
    t = await testApp()
    // the default plan (Free, 90 days of detail) keeps 2 detail rows a month; Pro keeps them all
    await t.app.db.update(plans).set({ maxClicks: 2 }).where(eq(plans.isDefault, true))
  })
  afterAll(() => t.close())

  async function proLink(alias: string, planExpires: Date) {
    const u = await t.makeUser({ plan: 'pro' })
    const [row] = await t.app.db.insert(links).values({ userId: u.user.id, alias, url: `https://example.com/${alias}` }).returning()
    await t.app.db.update(users).set({ planExpires }).where(eq(users.id, u.user.id))
    return row.id
  }

  it('keeps detail rows within the default plan’s monthly quota, not the ended plan’s', async () => {
    const ended = await proLink('ended1', new Date(Date.now() - DAY))
    const current = await proLink('current1', new Date(Date.now() + 30 * DAY))
    for (let i = 0; i < 4; i++) {
      expectRedirect(await visit(t, '/ended1', { remoteAddress: `192.0.2.${i}` }), 302, 'https://example.com/ended1')
      expectRedirect(await visit(t, '/current1', { remoteAddress: `192.0.2.${i}` }), 302, 'https://example.com/current1')
    }
    expect(await clickRows(t, ended)).toBe(2)
    expect(await clickRows(t, current)).toBe(4)
  })

  it('purges detail past the default plan’s retention once the subscription has ended', async () => {
    const ended = await proLink('ended2', new Date(Date.now() - DAY))
    const current = await proLink('current2', new Date(Date.now() + 30 * DAY))
    const old = new Date(Date.now() - 100 * DAY) // past Free's 90 days, within Pro's 730
    await t.app.db.insert(clicks).values([
      { linkId: ended, source: 'link', createdAt: old, visitorHash: 'a' },
      { linkId: current, source: 'link', createdAt: old, visitorHash: 'b' },
    ])
    await purgeExpiredClicks(t.app.db)
    expect(await clickRows(t, ended)).toBe(0)
    expect(await clickRows(t, current)).toBe(1)
  })
})
