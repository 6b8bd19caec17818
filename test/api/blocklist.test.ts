import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { appWith, expectError, type TestApp, type TestUser } from '../helpers/app.js'
import { countRows, linkRow } from '../helpers/fixtures.js'
import { expectPage, expectRedirect, visit } from '../helpers/visits.js'
import { blocklistEntries, links, qrCodes } from '../../src/db/schema/index.js'
import { rescansDone } from '../../src/resources/blocklist/rescan.js'

/*
 * DECISIONS §10.6: the admin blocklist. Entries refuse new URLs in every URL field (the field is
 * named), and a new entry quarantines existing links that match: their visitors get the 451
 * warning page until an admin releases them.
 */

describe('blocklist', () => {
  let t: TestApp
  let admin: TestUser
  let alice: TestUser
  let bob: TestUser

  const add = async (type: string, value: string) => {
    const res = await admin.api.post('/api/blocklist/add', { type, value, reason: 'test' })
    expect(res.statusCode, res.body).toBe(200)
    await rescansDone(t.app)
    return res.json().id as number
  }

  beforeAll(async () => {
    ;[t, admin, alice, bob] = await appWith({ admin: true }, { plan: 'pro' }, { plan: 'pro' })
  })
  afterAll(() => t.close())

  it('is for admins only: 403 for other accounts, whatever they send', async () => {
    const id = await add('domain', 'admins-only.example')
    for (const res of [
      await alice.api.get('/api/blocklist'),
      await alice.api.post('/api/blocklist/add', { type: 'domain', value: 'x.example' }),
      await alice.api.post('/api/blocklist/add', { nonsense: true }),
      await alice.api.del(`/api/blocklist/${id}/delete`),
      await alice.api.post(`/api/url/${await linkOf(alice, 'https://example.com/mine')}/release`),
    ]) {
      expectError(res, 403, /admin/)
    }
    expect(await countRows(t, blocklistEntries)).toBe(1)
  })

  async function linkOf(u: TestUser, url: string, extra: Record<string, unknown> = {}) {
    const res = await u.api.post('/api/url/add', { url, ...extra })
    expect(res.statusCode, res.body).toBe(200)
    return res.json().id as number
  }

  it('lists entries paginated, newest first, and validates what is added', async () => {
    await add('domain', 'HTTPS://List-One.Example/')
    await add('keyword', '  Casino-Bonus ')
    const page = (await admin.api.get('/api/blocklist?limit=2')).json()
    expect(page).toMatchObject({ error: '0', data: { result: 3, perpage: 2, currentpage: 1, nextpage: 2, maxpage: 2 } })
    expect(page.data.entries.map((e: { type: string; value: string }) => `${e.type}:${e.value}`)).toEqual(['keyword:casino-bonus', 'domain:list-one.example'])
    expect(page.data.entries[0]).toMatchObject({ reason: 'test', date: expect.stringMatching(/^\d{4}-/) })
    expect((await admin.api.get('/api/blocklist?type=domain')).json().data.result).toBe(2)
    expectError(await admin.api.post('/api/blocklist/add', { type: 'domain', value: 'list-one.example' }), 409, /already on the blocklist/)
    expectError(await admin.api.post('/api/blocklist/add', { type: 'domain', value: 'https://x.example/path' }), 400, /^value must be a domain/)
    expectError(await admin.api.post('/api/blocklist/add', { type: 'domain', value: 'not a host' }), 400, /^value must be a domain/)
    // one label would block every site under it
    for (const value of ['com', '.com', 'localhost', 'https://org/']) {
      expectError(await admin.api.post('/api/blocklist/add', { type: 'domain', value }), 400, /^value must be a domain of two or more parts/)
    }
    expectError(await admin.api.post('/api/blocklist/add', { type: 'keyword', value: 'ab' }), 400, /^value must be a keyword of 3/)
    expectError(await admin.api.post('/api/blocklist/add', { type: 'regex', value: 'abc' }), 400, /^type: must be one of: domain, keyword/)
    expectError(await admin.api.del('/api/blocklist/999999/delete'), 404)
    expectError(await admin.api.del('/api/blocklist/abc/delete'), 404)
  })

  describe('refuses a blocked domain, subdomain or keyword in every URL field, naming it', () => {
    beforeAll(async () => {
      await add('domain', 'evil.example')
      await add('keyword', 'phish-kit')
    })

    const blocked = [
      ['the domain', 'https://evil.example/login'],
      ['a subdomain', 'https://login.secure.evil.example/x'],
      ['the domain spelled differently', 'HTTPS://EVIL.EXAMPLE./x'],
      ['a keyword', 'https://fine.example/download?f=phish-kit.zip'],
      ['a percent-encoded keyword', 'https://fine.example/phish%2Dkit'],
      ['a keyword in an app link', 'tg://resolve?domain=phish-kit'],
    ] as const
    const httpOnly = blocked.slice(0, 5)

    const management: [field: RegExp, body: (u: string) => Record<string, unknown>][] = [
      [/^url: is refused/, (u) => ({ url: u })],
      [/^geotarget\.0\.link: is refused/, (u) => ({ url: 'https://example.com/', geotarget: [{ location: 'US', link: u }] })],
      [/^devicetarget\.0\.link: is refused/, (u) => ({ url: 'https://example.com/', devicetarget: [{ device: 'Android', link: u }] })],
      [/^languagetarget\.0\.link: is refused/, (u) => ({ url: 'https://example.com/', languagetarget: [{ language: 'de', link: u }] })],
      [/^deeplink\.apple: is refused/, (u) => ({ url: 'https://example.com/', deeplink: { apple: u } })],
      [/^fallback: is refused/, (u) => ({ url: 'https://example.com/', fallback: u })],
    ]

    describe.each(blocked)('%s', (_name, u) => {
      it.each(management)('management create and update: %s', async (message, body) => {
        const before = await countRows(t, links)
        expectError(await alice.api.post('/api/url/add', body(u)), 400, message)
        expect(await countRows(t, links)).toBe(before)
        const id = await linkOf(alice, 'https://example.com/clean')
        const row = await linkRow(t, id)
        expectError(await alice.api.put(`/api/url/${id}/update`, body(u)), 400, message)
        expect(await linkRow(t, id)).toEqual(row)
      })

      it.each([
        ['url', { url: u }],
        ['expiration_url', { url: 'https://example.com/', expiration_url: u }],
        ['country[0][value]', { url: 'https://example.com/', target_type: '1', 'country[0][key]': 'US', 'country[0][value]': u }],
        ['rotation[0][value]', { url: 'https://example.com/', target_type: '4', 'rotation[0][value]': u }],
      ])('v1 %s: 422 naming it', async (field, form) => {
        const res = await t.app.inject({
          method: 'POST',
          url: '/api/v1/links',
          headers: { authorization: `Bearer ${alice.key}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
          payload: new URLSearchParams(form as Record<string, string>).toString(),
        })
        expect(res.statusCode, res.body).toBe(422)
        expect(Object.keys(res.json().errors).join(' '), res.body).toContain(field.split('[')[0])
        expect(res.json().message).toMatch(/is refused/)
      })

      it('QR link data', async () => {
        const before = await countRows(t, qrCodes)
        expectError(await alice.api.post('/api/qr/add', { type: 'link', data: u }), 400, /^data is refused/)
        expect(await countRows(t, qrCodes)).toBe(before)
      })
    })

    describe.each(httpOnly)('http(s)-only fields, %s', (_name, u) => {
      it('metaimage', async () => {
        const image = u.includes('?') ? u.replace('?', '/i.png?') : `${u}.png`
        expectError(await alice.api.post('/api/url/add', { url: 'https://example.com/', metaimage: image }), 400, /^metaimage: is refused/)
      })

      it.each(['redirectroot', 'redirect404'])('domain %s', async (field) => {
        const n = ++domainSeq
        expectError(await alice.api.post('/api/domain/add', { domain: `https://b${n}.example`, [field]: u }), 400, new RegExp(`^${field} is refused`))
        const id = (await alice.api.post('/api/domain/add', { domain: `https://c${n}.example` })).json().id
        expectError(await alice.api.put(`/api/domain/${id}/update`, { [field]: u }), 400, new RegExp(`^${field} is refused`))
      })
    })

    it("a splash page's image and an overlay's button link, on create and on update", async () => {
      const splash = await alice.api.post('/api/splash/add', { name: 's', image: 'https://cdn.evil.example/i.png' })
      expectError(splash, 400, /^image is refused: evil\.example is on this service's blocklist\.$/)
      const overlay = await alice.api.post('/api/overlay/add', { name: 'o', button: 'Go', buttonurl: 'https://login.evil.example/phish' })
      expectError(overlay, 400, /^buttonurl is refused: evil\.example/)
      const ok = (await alice.api.post('/api/overlay/add', { name: 'o', button: 'Go', buttonurl: 'https://example.com/fine' })).json().id
      expectError(await alice.api.put(`/api/overlay/${ok}/update`, { buttonurl: 'https://evil.example/x' }), 400, /^buttonurl is refused/)
      expect((await alice.api.get(`/api/overlay/${ok}`)).json().data).toMatchObject({ buttonurl: 'https://example.com/fine' })
      const s = (await alice.api.post('/api/splash/add', { name: 's' })).json().id
      expectError(await alice.api.put(`/api/splash/${s}/update`, { image: 'https://evil.example/i.png' }), 400, /^image is refused/)
    })

    it('a neighbour of a blocked domain is not blocked', async () => {
      for (const u of ['https://notevil.example/', 'https://evil.example.com/', 'https://example.com/evil']) await linkOf(alice, u)
    })
  })

  describe('quarantine', () => {
    it('a new entry quarantines existing links in any URL field; visitors get the 451 page; an admin releases them', async () => {
      const direct = await linkOf(bob, 'https://later-bad.example/x', { custom: 'q-direct' })
      const target = await linkOf(bob, 'https://example.com/', { custom: 'q-target', geotarget: [{ location: 'US', link: 'https://cdn.later-bad.example/' }] })
      const clean = await linkOf(bob, 'https://example.com/clean', { custom: 'q-clean' })
      expectRedirect(await visit(t, '/q-direct'), 302, 'https://later-bad.example/x') // cached now

      await add('domain', 'later-bad.example')

      for (const id of [direct, target]) expect((await bob.api.get(`/api/url/${id}`)).json().details.quarantined).toBe(true)
      // another account learns nothing about it
      expectError(await alice.api.get(`/api/url/${direct}`), 404)
      expectError(await alice.api.put(`/api/url/${direct}/update`, { url: 'https://example.com/' }), 404)
      expect((await bob.api.get(`/api/url/${clean}`)).json().details).not.toHaveProperty('quarantined')
      const page = await visit(t, '/q-direct')
      expectPage(page, 451)
      expect(page.headers['content-security-policy']).toMatch(/script-src 'none'/)
      expect(page.body).toContain('<code>http://kurz.test/q-direct</code>')
      expect(page.body).not.toContain('later-bad.example')
      expectPage(await visit(t, '/q-target'), 451)
      expectRedirect(await visit(t, '/q-clean'), 302, 'https://example.com/clean')
      // its public statistics page, which shows the long URL, is the warning too
      // (made public in the database: an update through the API must send the long URL, which is refused now)
      await t.app.db.update(links).set({ privacy: 0 }).where(eq(links.id, direct))
      const stats = await visit(t, '/q-direct+')
      expectPage(stats, 451)
      expect(stats.body).not.toContain('later-bad.example')
      // crawlers and HEAD get the warning too
      expect((await visit(t, '/q-direct', { method: 'HEAD' })).statusCode).toBe(451)

      expectError(await admin.api.post('/api/url/999999/release'), 404)
      const released = await admin.api.post(`/api/url/${direct}/release`)
      expect(released.json()).toEqual({ error: 0, message: 'Link has been released.' })
      expectRedirect(await visit(t, '/q-direct'), 302, 'https://later-bad.example/x')
      expect((await bob.api.get(`/api/url/${direct}`)).json().details).not.toHaveProperty('quarantined')
      expectPage(await visit(t, '/q-target'), 451)

      // a released link stays released until a NEW entry matches it
      await add('keyword', 'unrelated-word')
      expectRedirect(await visit(t, '/q-direct'), 302, 'https://later-bad.example/x')
      await add('keyword', 'bad.example/x')
      expectPage(await visit(t, '/q-direct'), 451)
    })

    it('the check reads a column of the cached link: no query is added to the redirect path', async () => {
      await linkOf(bob, 'https://example.com/cached', { custom: 'q-cached' })
      expectRedirect(await visit(t, '/q-cached'), 302, 'https://example.com/cached') // loaded into the cache
      // changed behind the cache's back (no invalidation): the visit is answered from the cached row
      await t.app.db.update(links).set({ quarantined: true }).where(eq(links.alias, 'q-cached'))
      expectRedirect(await visit(t, '/q-cached'), 302, 'https://example.com/cached')
      await t.app.linkCache.invalidate((await t.app.db.select({ id: links.id }).from(links).where(eq(links.alias, 'q-cached')))[0].id)
      expectPage(await visit(t, '/q-cached'), 451)
    })

    it('the campaign rotator passes over a quarantined link', async () => {
      const cid = (await bob.api.post('/api/campaign/add', { name: 'Rotation', slug: 'q-rotation' })).json().id
      await linkOf(bob, 'https://rotated-bad.example/', { campaign: cid })
      await linkOf(bob, 'https://example.com/rotated-good', { campaign: cid })
      await add('domain', 'rotated-bad.example')
      for (let i = 0; i < 10; i++) expectRedirect(await visit(t, '/r/q-rotation'), 302, 'https://example.com/rotated-good')
    })

    it("a page made before the entry: links showing its button link are quarantined, and it cannot be attached again", async () => {
      const overlay = (await bob.api.post('/api/overlay/add', { name: 'o', button: 'Claim', buttonurl: 'https://late-phish.example/claim' })).json().id
      const splash = (await bob.api.post('/api/splash/add', { name: 's', image: 'https://late-phish.example/i.png' })).json().id
      await linkOf(bob, 'https://example.com/framed', { custom: 'q-overlay', type: String(overlay) })
      await linkOf(bob, 'https://example.com/splashed', { custom: 'q-splash', type: String(splash) })
      const plain = await linkOf(bob, 'https://example.com/plain', { custom: 'q-plain' })
      await add('domain', 'late-phish.example')
      expectPage(await visit(t, '/q-overlay'), 451)
      expectPage(await visit(t, '/q-splash'), 451)
      expectRedirect(await visit(t, '/q-plain'), 302, 'https://example.com/plain')
      // the dashboard's list reads it beside the health of its page of links
      const rows = (await bob.api.get(`/api/urls/health?ids=${plain}`)).json().data.health
      expect(rows).toEqual([expect.objectContaining({ id: plain, quarantined: false })])
      const [quarantined] = await t.app.db.select({ id: links.id }).from(links).where(eq(links.alias, 'q-overlay'))
      expect((await bob.api.get(`/api/urls/health?ids=${quarantined.id}`)).json().data.health).toEqual([expect.objectContaining({ id: quarantined.id, quarantined: true })])
      const again = await bob.api.post('/api/url/add', { url: 'https://example.com/again', type: String(overlay) })
      expectError(again, 400, new RegExp(`^type: ${overlay} is refused: its button link matches late-phish\\.example, which is on this service's blocklist\\.$`))
      expectError(await bob.api.put(`/api/url/${plain}/update`, { url: 'https://example.com/plain', type: String(splash) }), 400, /its image matches late-phish\.example/)
    })

    it('deleting an entry keeps the links it quarantined so until released', async () => {
      await linkOf(bob, 'https://gone-soon.example/', { custom: 'q-kept' })
      const id = await add('domain', 'gone-soon.example')
      expectPage(await visit(t, '/q-kept'), 451)
      expect((await admin.api.del(`/api/blocklist/${id}/delete`)).json()).toMatchObject({ error: 0 })
      expectPage(await visit(t, '/q-kept'), 451)
      await linkOf(bob, 'https://gone-soon.example/again')
    })
  })
})

let domainSeq = 0
