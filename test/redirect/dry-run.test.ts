import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { links } from '../../src/db/schema/index.js'
import { appWith, expectError, type TestApp, type TestUser } from '../helpers/app.js'
import { addLink, addV1Link, makePage, makePixel } from '../helpers/fixtures.js'
import { clickRows, counters } from '../helpers/visits.js'
import { dryRun, expectAgreement, type Visitor } from './dry-run-helpers.js'
import { UA } from './user-agents.js'

/*
 * POST /api/url/:id/resolve (DECISIONS §10.5) against real visits: for each target kind and each
 * page, the dry-run's status and Location (or the page and where it leads) are what a visit by the
 * same visitor gets, and a dry-run records nothing.
 */

describe('POST /api/url/:id/resolve', () => {
  let t: TestApp
  let alice: TestUser
  let bob: TestUser

  beforeAll(async () => { [t, alice, bob] = await appWith({ plan: 'pro' }, { plan: 'pro' }) })
  afterAll(() => t.close())

  it('answers status, location, page, matched and steps, and records no click', async () => {
    const id = await addLink(alice, { url: 'https://example.com/plain', custom: 'dry-plain', redirectstatus: 301, cachettl: 60 })
    const res = await alice.api.post(`/api/url/${id}/resolve`, {})
    expect(res.json()).toEqual({
      error: 0,
      data: {
        status: 301,
        location: 'https://example.com/plain',
        page: 'direct',
        matched: { kind: 'default', key: null },
        steps: ['The link is active.', 'The visitor goes to the long URL.', 'It answers 301, cacheable for 60 seconds.'],
      },
    })
    for (let i = 0; i < 3; i++) await alice.api.post(`/api/url/${id}/resolve`, { useragent: UA.iPhone, ip: '2.2.2.2' })
    expect(await counters(t, id)).toEqual({ clicks: 0, uniqueClicks: 0, botClicks: 0, lastRotation: 0 })
    expect(await clickRows(t, id)).toBe(0)
  })

  it('agrees with a real visit for every target kind', async () => {
    const id = await addLink(alice, {
      url: 'https://example.com/default',
      custom: 'dry-kinds',
      deeplink: { apple: 'https://apps.apple.com/app/id1' },
      devicetarget: [{ device: 'Windows', link: 'https://example.com/windows' }],
      geotarget: [{ location: 'FR', link: 'https://example.com/fr' }],
      languagetarget: [{ language: 'de', link: 'https://example.com/de' }],
      parameters: [{ name: 'utm_source', value: 'kurz' }],
    })
    const cases: [Visitor, string, string | null][] = [
      [{ useragent: UA.iPhone }, 'deeplink', 'apple'],
      [{ useragent: UA.windows, ip: '2.2.2.2' }, 'device', 'Windows'],
      [{ useragent: UA.mac, ip: '2.2.2.2', language: 'de' }, 'geo', 'FR'],
      [{ useragent: UA.mac, ip: '8.8.8.8', language: 'de-AT,de;q=0.9' }, 'language', 'de'],
      [{ useragent: UA.linux, ip: '8.8.8.8', language: 'en', query: 'a=1&b=%20' }, 'default', null],
    ]
    for (const [v, kind, key] of cases) {
      const dry = await expectAgreement(t, alice, id, 'dry-kinds', v)
      expect(dry.matched, JSON.stringify(v)).toEqual({ kind, key })
    }

    const rot = await addV1Link(t, alice, {
      url: 'https://example.com/r',
      alias: 'dry-rot',
      target_type: '4',
      'rotation[0][value]': 'https://example.com/r1',
      'rotation[1][value]': 'https://example.com/r2',
    })
    const rotations: (string | null)[] = []
    for (let i = 0; i < 4; i++) rotations.push((await expectAgreement(t, alice, rot, 'dry-rot', { useragent: UA.mac })).location)
    expect(rotations).toEqual(['https://example.com/r1', 'https://example.com/r2', 'https://example.com/r1', 'https://example.com/r2'])
  })

  it('takes country over the address, and says which target matched', async () => {
    const id = await addLink(alice, { url: 'https://example.com/x', custom: 'dry-country', geotarget: [{ location: 'Canada', link: 'https://example.com/ca' }] })
    expect(await dryRun(alice, id, { ip: '2.2.2.2' })).toMatchObject({ location: 'https://example.com/x', matched: { kind: 'default', key: null } })
    const res = await alice.api.post(`/api/url/${id}/resolve`, { ip: '2.2.2.2', country: 'ca' })
    expect(res.json().data).toMatchObject({ location: 'https://example.com/ca', matched: { kind: 'geo', key: 'CA' } })
    expect(res.json().data.steps).toContain("The visitor's country CA matches a geo target.")
  })

  it('agrees for every page: frame, splash, custom splash, overlay, pixels, password, preview, expired, disabled, fallback', async () => {
    const splash = await makePage(t, alice.user.id, 'splash')
    const overlay = await makePage(t, alice.user.id, 'overlay')
    const pixel = await makePixel(t, alice.user.id)
    const made: [string, Record<string, unknown>, string, Visitor][] = [
      ['dry-frame', { type: 'frame' }, 'frame', {}],
      ['dry-splash', { type: 'splash' }, 'splash', {}],
      ['dry-cs', { type: `splash-${splash.id}` }, 'splash', {}],
      ['dry-ov', { type: `overlay-${overlay.id}` }, 'overlay', {}],
      ['dry-px', { pixels: [pixel.id] }, 'pixels', {}],
      ['dry-pw', { password: 'open sesame' }, 'password', {}],
      ['dry-og', { metatitle: 'Meta' }, 'preview', { useragent: UA.facebook }],
    ]
    for (const [alias, extra, page, v] of made) {
      const id = await addLink(alice, { url: `https://example.com/${alias}?q=1&x=<y>`, custom: alias, ...extra })
      expect((await expectAgreement(t, alice, id, alias, v)).page).toBe(page)
    }

    const exp = await addLink(alice, { url: 'https://example.com/e', custom: 'dry-exp' })
    await alice.api.put(`/api/url/${exp}/update`, { url: 'https://example.com/e', expiry: '2001-01-01 00:00:00' })
    expect(await expectAgreement(t, alice, exp, 'dry-exp', {})).toMatchObject({ status: 410, page: 'expired', location: null })

    const capped = await addLink(alice, { url: 'https://example.com/c', custom: 'dry-cap' })
    await t.app.db.update(links).set({ expirationClicks: 1, expirationUrl: 'https://example.com/over' }).where(eq(links.id, capped))
    await t.app.linkCache.invalidate(capped)
    expect(await expectAgreement(t, alice, capped, 'dry-cap', { useragent: UA.mac })).toMatchObject({ status: 302, page: 'direct' })
    expect(await expectAgreement(t, alice, capped, 'dry-cap', { useragent: UA.mac })).toMatchObject({ status: 302, page: 'expired', location: 'https://example.com/over' })

    const off = await addLink(alice, { url: 'https://example.com/off', custom: 'dry-off' })
    await t.app.db.update(links).set({ disabled: true }).where(eq(links.id, off))
    await t.app.linkCache.invalidate(off)
    expect(await expectAgreement(t, alice, off, 'dry-off', {})).toMatchObject({ status: 404, page: 'disabled', location: null, matched: null })

    const broken = await addLink(alice, { url: 'https://example.com/broken', custom: 'dry-broken', fallback: 'https://example.com/fb' })
    await t.app.db.update(links).set({ healthState: 'broken' }).where(eq(links.id, broken))
    await t.app.linkCache.invalidate(broken)
    expect(await expectAgreement(t, alice, broken, 'dry-broken', {})).toMatchObject({ location: 'https://example.com/fb', matched: { kind: 'fallback', key: null } })
  })

  it("answers 404 for another account's link and 400 naming a bad field", async () => {
    const id = await addLink(alice, { url: 'https://example.com/own', custom: 'dry-own' })
    expect((await bob.api.post(`/api/url/${id}/resolve`, {})).statusCode).toBe(404)
    expect((await alice.api.post('/api/url/999999/resolve', {})).statusCode).toBe(404)
    expectError(await alice.api.post(`/api/url/${id}/resolve`, { ip: 'not-an-ip' }), 400, /^ip\b/)
    expectError(await alice.api.post(`/api/url/${id}/resolve`, { country: 'Atlantis' }), 400, /^country\b/)
    expectError(await alice.api.post(`/api/url/${id}/resolve`, { at: 'yesterday' }), 400, /^at\b/)
    expectError(await alice.api.post(`/api/url/${id}/resolve`, { useragent: 'x'.repeat(600) }), 400, /^useragent\b/)
    expectError(await alice.api.post(`/api/url/${id}/resolve`, { query: 5 }), 400, /^query\b/)
  })

  it('takes `at` for when the visit happens', async () => {
    const id = await addLink(alice, { url: 'https://example.com/later', custom: 'dry-at', expiry: '2099-01-01 00:00:00' })
    expect(await dryRun(alice, id, { at: '2098-12-31 23:59:59' } as Visitor)).toMatchObject({ status: 302, page: 'direct' })
    expect(await dryRun(alice, id, { at: '2099-01-01T00:00:01Z' } as Visitor)).toMatchObject({ status: 410, page: 'expired' })
  })
})
