import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { and, count, eq } from 'drizzle-orm'
import { links } from '../../src/db/schema/index.js'
import type { Feature } from '../../src/db/schema/index.js'
import { expectError, testApp, type TestApp, type TestUser } from '../helpers/app.js'
import { linkRow, linkRowCounts, makeCampaign, makeDomain, makePage, makePixel } from '../helpers/fixtures.js'

/* DECISIONS §3: the plan's links cap and feature switches; §4: alias races; §10.6: the creation throttle. */

const U = 'https://example.com/'

describe('links: plans and concurrency', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await testApp()
  })
  afterAll(() => t.close())

  const linksOf = async (userId: number) => (await t.app.db.select({ n: count() }).from(links).where(eq(links.userId, userId)))[0].n

  describe('links cap', () => {
    it('refuses the link past the plan\'s cap with 403 naming the limit, and counts again after a delete', async () => {
      const u = await t.makeUser({ maxLinks: 2 })
      const first = await u.api.post('/api/url/add', { url: `${U}1` })
      expect(first.statusCode).toBe(200)
      expect((await u.api.post('/api/url/add', { url: `${U}2` })).statusCode).toBe(200)
      const before = await linkRowCounts(t)
      expectError(await u.api.post('/api/url/add', { url: `${U}3` }), 403, /"links" limit/)
      expectError(await u.api.post('/api/url/add', { url: `${U}3`, custom: 'over-cap', geotarget: [{ location: 'US', link: `${U}us` }] }), 403, /links/)
      expect(await linkRowCounts(t)).toEqual(before)
      // updates are not creates
      expect((await u.api.put(`/api/url/${first.json().id}/update`, { url: `${U}1b` })).statusCode).toBe(200)
      await u.api.del(`/api/url/${first.json().id}/delete`)
      expect((await u.api.post('/api/url/add', { url: `${U}4` })).statusCode).toBe(200)
      expect(await linksOf(u.user.id)).toBe(2)
    })

    it('holds under concurrent creates', async () => {
      const u = await t.makeUser({ maxLinks: 3 })
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => u.api.post('/api/url/add', { url: `${U}race/${i}` })))
      expect(results.map((r) => r.statusCode).sort()).toEqual([200, 200, 200, 403, 403, 403, 403, 403])
      expect(await linksOf(u.user.id)).toBe(3)
    })

    it('does not limit admins, and 0 means unlimited', async () => {
      const admin = await t.makeUser({ maxLinks: 1 })
      await t.app.db.execute(`update users set admin = true where id = ${admin.user.id}`)
      for (let i = 0; i < 3; i++) expect((await admin.api.post('/api/url/add', { url: `${U}admin/${i}` })).statusCode).toBe(200)
      const unlimited = await t.makeUser({ maxLinks: 0 })
      for (let i = 0; i < 3; i++) expect((await unlimited.api.post('/api/url/add', { url: `${U}free/${i}` })).statusCode).toBe(200)
    })
  })

  describe('feature switches', () => {
    let rich: TestUser
    let ids: { domain: string; pixel: number; campaign: number; splash: number; overlay: number }

    /** A user with every feature on except `off`, owning a domain, pixel, campaign, splash page and overlay. */
    async function userWithout(off: Feature[]) {
      const u = await t.makeUser({ off })
      const host = `d${u.user.id}.example`
      await makeDomain(t, u.user.id, `https://${host}`)
      ids = {
        domain: host,
        pixel: (await makePixel(t, u.user.id)).id,
        campaign: (await makeCampaign(t, u.user.id)).id,
        splash: (await makePage(t, u.user.id, 'splash')).id,
        overlay: (await makePage(t, u.user.id, 'overlay')).id,
      }
      return u
    }

    const uses: [Feature, () => Record<string, unknown>][] = [
      ['custom', () => ({ custom: 'my-alias' })],
      ['alias', () => ({ custom: 'branded-alias', domain: ids.domain })],
      ['domain', () => ({ domain: ids.domain })],
      ['splash', () => ({ type: `splash-${ids.splash}` })],
      ['splash', () => ({ type: String(ids.splash) })],
      ['overlay', () => ({ type: `overlay-${ids.overlay}` })],
      ['overlay', () => ({ type: ids.overlay })],
      ['geo', () => ({ geotarget: [{ location: 'US', link: `${U}us` }] })],
      ['device', () => ({ devicetarget: [{ device: 'iPhone', link: `${U}ios` }] })],
      ['pixels', () => ({ pixels: [ids.pixel] })],
      ['bundle', () => ({ campaign: ids.campaign })],
      ['parameters', () => ({ parameters: [{ name: 'utm_source', value: 'x' }] })],
    ]

    it.each(uses)('"%s" off: using it is a 403 naming the feature, and nothing is written', async (feature, body) => {
      const u = await userWithout([feature])
      const before = await linkRowCounts(t)
      expectError(await u.api.post('/api/url/add', { url: U, ...body() }), 403, new RegExp(`"${feature}"`))
      expect(await linkRowCounts(t)).toEqual(before)

      // the same change on update is refused too, and the link is unchanged
      const { id } = (await u.api.post('/api/url/add', { url: U })).json()
      const row = await linkRow(t, id)
      expectError(await u.api.put(`/api/url/${id}/update`, { url: U, ...body() }), 403, new RegExp(`"${feature}"`))
      expect(await linkRow(t, id)).toEqual(row)
    })

    it('switched-off features never block reads, built-in types, or clearing', async () => {
      rich = await t.makeUser({ features: {} })
      const host = `rich${rich.user.id}.example`
      await makeDomain(t, rich.user.id, `https://${host}`)
      const pixel = await makePixel(t, rich.user.id)
      const res = await rich.api.post('/api/url/add', {
        url: U,
        custom: 'rich-link',
        domain: host,
        geotarget: [{ location: 'US', link: `${U}us` }],
        pixels: [pixel.id],
        parameters: [{ name: 'a', value: 'b' }],
      })
      expect(res.statusCode).toBe(200)
      const id = res.json().id
      // downgrade: every feature off
      const off: Feature[] = ['custom', 'alias', 'domain', 'geo', 'device', 'pixels', 'bundle', 'parameters', 'splash', 'overlay']
      const poor = await t.makeUser({ off })
      await t.app.db.execute(`update users set plan_id = (select plan_id from users where id = ${poor.user.id}) where id = ${rich.user.id}`)
      // a change behind the app's back: tell it, as the admin API does (accounts/key-cache.ts)
      await t.app.accountsChanged()
      expect((await rich.api.get(`/api/url/${id}`)).statusCode).toBe(200)
      expect((await rich.api.get('/api/urls')).json().data.result).toBe(1)
      // resending the values it already has is not a new use
      expect((await rich.api.put(`/api/url/${id}/update`, { url: `${U}changed`, custom: 'rich-link', domain: host })).statusCode).toBe(200)
      const echoed = { url: U, geotarget: [{ location: 'US', link: `${U}us` }], pixels: [pixel.id], parameters: [{ name: 'a', value: 'b' }] }
      expect((await rich.api.put(`/api/url/${id}/update`, echoed)).statusCode).toBe(200)
      expectError(await rich.api.put(`/api/url/${id}/update`, { ...echoed, geotarget: [{ location: 'FR', link: `${U}us` }] }), 403, /"geo"/)
      expectError(await rich.api.put(`/api/url/${id}/update`, { ...echoed, parameters: [{ name: 'a', value: 'c' }] }), 403, /"parameters"/)
      expectError(await rich.api.put(`/api/url/${id}/update`, { ...echoed, custom: 'rich-link-2' }), 403, /"custom"/)
      expect((await rich.api.put(`/api/url/${id}/update`, { url: U, type: 'frame' })).statusCode).toBe(200)
      expect((await rich.api.put(`/api/url/${id}/update`, { url: U, type: 'splash' })).statusCode).toBe(200)
      const cleared = await rich.api.put(`/api/url/${id}/update`, { url: U, geotarget: [], pixels: null, parameters: '' })
      expect(cleared.statusCode).toBe(200)
      expect((await rich.api.get(`/api/url/${id}?full=1`)).json().details).toMatchObject({ location: {}, pixels: [], parameters: [], type: 'splash' })
      expect((await rich.api.post('/api/url/add', { url: U, type: 'frame', languagetarget: [{ language: 'en', link: `${U}en` }] })).statusCode).toBe(200)
      expect((await rich.api.del(`/api/url/${id}/delete`)).statusCode).toBe(200)
    })

    it('admins are never limited by switches', async () => {
      const admin = await userWithout(['custom', 'geo', 'parameters'])
      await t.app.db.execute(`update users set admin = true where id = ${admin.user.id}`)
      const res = await admin.api.post('/api/url/add', { url: U, custom: 'admin-alias', geotarget: [{ location: 'FR', link: `${U}fr` }], parameters: [{ name: 'a', value: 'b' }] })
      expect(res.statusCode).toBe(200)
    })

    it('the plan endpoints switch a feature off for a user', async () => {
      const admin = await t.makeUser({ admin: true })
      const plan = await admin.api.post('/api/plan/add', { name: 'No custom', free: true, limits: { links: 5, api: { enabled: '1' }, custom: { enabled: '0' } } })
      expect(plan.statusCode).toBe(200)
      const u = await t.makeUser()
      expect((await admin.api.put(`/api/plan/${plan.json().id}/user/${u.user.id}`, { type: 'lifetime' })).statusCode).toBe(200)
      expectError(await u.api.post('/api/url/add', { url: U, custom: 'nope-custom' }), 403, /"custom"/)
      expect((await u.api.post('/api/url/add', { url: U })).statusCode).toBe(200)
    })
  })

  describe('alias races', () => {
    it('two concurrent creates of one alias: one 200 and one 409, one row', async () => {
      const [a, b] = [await t.makeUser(), await t.makeUser()]
      for (let round = 0; round < 5; round++) {
        const alias = `race-${round}`
        const results = await Promise.all([
          a.api.post('/api/url/add', { url: `${U}a`, custom: alias }),
          b.api.post('/api/url/add', { url: `${U}b`, custom: alias }),
        ])
        expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409])
        expectError(results.find((r) => r.statusCode === 409)!, 409, /^custom: .*taken/)
        const rows = await t.app.db.select().from(links).where(and(eq(links.alias, alias)))
        expect(rows).toHaveLength(1)
      }
    })

    it('many concurrent creates and renames onto one alias: exactly one wins, never a 500', async () => {
      const u = await t.makeUser()
      const existing = await Promise.all(Array.from({ length: 4 }, (_, i) => u.api.post('/api/url/add', { url: `${U}r${i}` })))
      const results = await Promise.all([
        ...Array.from({ length: 4 }, (_, i) => u.api.post('/api/url/add', { url: `${U}c${i}`, custom: 'hot-alias' })),
        ...existing.map((r) => u.api.put(`/api/url/${r.json().id}/update`, { url: `${U}renamed`, custom: 'hot-alias' })),
      ])
      const statuses = results.map((r) => r.statusCode)
      expect(statuses.filter((s) => s === 200)).toHaveLength(1)
      expect(statuses.filter((s) => s === 409)).toHaveLength(7)
      expect(await t.app.db.select().from(links).where(eq(links.alias, 'hot-alias'))).toHaveLength(1)
    })

    it('the same alias on another domain is allowed', async () => {
      const u = await t.makeUser()
      await makeDomain(t, u.user.id, `https://race${u.user.id}.example`)
      const results = await Promise.all([
        u.api.post('/api/url/add', { url: `${U}x`, custom: 'shared-alias' }),
        u.api.post('/api/url/add', { url: `${U}y`, custom: 'shared-alias', domain: `race${u.user.id}.example` }),
      ])
      expect(results.map((r) => r.statusCode)).toEqual([200, 200])
      expect(results.map((r) => r.json().shorturl).sort()).toEqual([`http://kurz.test/shared-alias`, `https://race${u.user.id}.example/shared-alias`])
    })

    it('random aliases grow past 6 characters when 6-character ones keep colliding', async () => {
      // Make every 6-character random alias collide: a trigger drops such rows, which is what the
      // insert's ON CONFLICT DO NOTHING does on a real collision (no row comes back).
      await t.app.db.execute(`create function kurz_test_collide() returns trigger language plpgsql as $$
        begin
          if length(new.alias) = 6 and not new.custom_alias then return null; end if;
          return new;
        end $$`)
      await t.app.db.execute('create trigger kurz_test_collide before insert on links for each row execute function kurz_test_collide()')
      try {
        const u = await t.makeUser()
        const res = await u.api.post('/api/url/add', { url: `${U}grown` })
        expect(res.statusCode).toBe(200)
        expect(res.json().shorturl).toMatch(/^http:\/\/kurz\.test\/[0-9A-Za-z]{7}$/)
      } finally {
        await t.app.db.execute('drop trigger kurz_test_collide on links')
        await t.app.db.execute('drop function kurz_test_collide')
      }
    })
  })
})

describe('links: the creation throttle (CREATE_LIMIT_PER_HOUR) says when to come back', () => {
  let t: TestApp
  beforeAll(async () => {
    // no Redis: the hour's window is this instance's, so its end is exact
    t = await testApp({ CREATE_LIMIT_PER_HOUR: '2' })
  })
  afterAll(() => t.close())

  it('a 429 carries Retry-After, the whole seconds left in the hour, on /api/url/add and on v1 POST /api/v1/links', async () => {
    const u = await t.makeUser({ plan: 'pro' })
    for (let i = 0; i < 2; i++) expect((await u.api.post('/api/url/add', { url: `${U}limited/${i}` })).statusCode).toBe(200)
    // 20 minutes into the window: 40 minutes are left
    const clock = vi.spyOn(Date, 'now').mockReturnValue(Date.now() + 20 * 60_000)
    try {
      const refused = await u.api.post('/api/url/add', { url: `${U}limited/2` })
      expectError(refused, 429, /at most 2 links an hour \(CREATE_LIMIT_PER_HOUR\)\. Try again in \d+ seconds\.$/)
      const v1 = await t.app.inject({
        method: 'POST',
        url: '/api/v1/links',
        headers: { authorization: `Bearer ${u.key}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        payload: `url=${encodeURIComponent(`${U}limited/v1`)}`,
      })
      expect(v1.statusCode).toBe(429)
      expect(v1.json()).toMatchObject({ error: 1, status: 429 })
      for (const res of [refused, v1]) {
        const seconds = Number(res.headers['retry-after'])
        expect(Number.isInteger(seconds)).toBe(true)
        expect(seconds).toBeGreaterThan(40 * 60 - 30)
        expect(seconds).toBeLessThanOrEqual(40 * 60)
        expect(res.json().message).toContain(`Try again in ${seconds} seconds.`)
      }
    } finally {
      clock.mockRestore()
    }
  })
})
