import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appWith, expectError, TS, type TestApp, type TestUser } from '../helpers/app.js'
import { addLink, addV1Link, makeDomain } from '../helpers/fixtures.js'
import { counters, expectRedirect, visit } from '../helpers/visits.js'

/* DECISIONS §10.5 items 1 and 2 over HTTP: per-link redirect policy, alias history. */

const details = async (u: TestUser, id: number) => (await u.api.get(`/api/url/${id}?full=1`)).json().details

describe('per-link redirectstatus and cachettl', () => {
  let t: TestApp
  let alice: TestUser
  let bob: TestUser

  beforeAll(async () => { [t, alice, bob] = await appWith({ plan: 'pro' }, { plan: 'pro' }) })
  afterAll(() => t.close())

  it('answers each link with its own status and Cache-Control; no setting keeps REDIRECT_STATUS, uncached', async () => {
    const plain = await addLink(alice, { url: 'https://example.com/plain', custom: 'pol-plain' })
    const seo = await addLink(alice, { url: 'https://example.com/seo', custom: 'pol-seo', redirectstatus: 301, cachettl: 3600 })
    const keep = await addLink(alice, { url: 'https://example.com/keep', custom: 'pol-keep', redirectstatus: 307 })

    const a = await visit(t, '/pol-plain')
    expectRedirect(a, 302, 'https://example.com/plain')
    expect(a.headers['cache-control']).toBe('private, max-age=0')
    const b = await visit(t, '/pol-seo')
    expectRedirect(b, 301, 'https://example.com/seo')
    expect(b.headers['cache-control']).toBe('public, max-age=3600')
    const c = await visit(t, '/pol-keep')
    expectRedirect(c, 307, 'https://example.com/keep')
    expect(c.headers['cache-control']).toBe('private, max-age=0')

    expect(await details(alice, plain)).toMatchObject({ redirectstatus: 302, cachettl: 0, fallback: null })
    expect(await details(alice, seo)).toMatchObject({ redirectstatus: 301, cachettl: 3600 })
    expect(await details(alice, keep)).toMatchObject({ redirectstatus: 307, cachettl: 0 })
    // the plain form stays the SPEC.md shape
    expect((await alice.api.get(`/api/url/${seo}`)).json().details).not.toHaveProperty('redirectstatus')
  })

  it('a destination chosen per visitor (targets, rotation, deep links) is cacheable by the visitor\'s browser only', async () => {
    const ttl = { redirectstatus: 301, cachettl: 3600 }
    await addLink(alice, { url: 'https://example.com/default', custom: 'pol-geo', geotarget: [{ location: 'Germany', link: 'https://example.com/de' }], ...ttl })
    await addLink(alice, { url: 'https://example.com/default', custom: 'pol-dev', devicetarget: [{ device: 'iPhone', link: 'https://example.com/ios' }], ...ttl })
    await addLink(alice, { url: 'https://example.com/default', custom: 'pol-lang', languagetarget: [{ language: 'de', link: 'https://example.com/de' }], ...ttl })
    await addLink(alice, { url: 'https://www.youtube.com/watch?v=abc', custom: 'pol-deep', deeplink: { auto: true }, ...ttl })
    for (const alias of ['pol-geo', 'pol-dev', 'pol-lang', 'pol-deep']) {
      const res = await visit(t, `/${alias}`)
      expect(res.statusCode, alias).toBe(301)
      expect(res.headers['cache-control'], alias).toBe('private, max-age=3600')
    }
    const id = await addLink(alice, { url: 'https://example.com/default', custom: 'pol-same', ...ttl })
    expect((await visit(t, '/pol-same')).headers['cache-control']).toBe('public, max-age=3600')
    const check = await alice.api.post(`/api/url/${id}/resolve`, {})
    expect(check.json().data.steps.at(-1)).toBe('It answers 301, cacheable for 3600 seconds.')
  })

  it('changes on update (the cached redirect follows), and blank goes back to the defaults', async () => {
    const id = await addLink(alice, { url: 'https://example.com/upd', custom: 'pol-upd' })
    expectRedirect(await visit(t, '/pol-upd'), 302, 'https://example.com/upd')

    expect((await alice.api.put(`/api/url/${id}/update`, { url: 'https://example.com/upd', redirectstatus: 308, cachettl: 60 })).statusCode).toBe(200)
    const moved = await visit(t, '/pol-upd')
    expectRedirect(moved, 308, 'https://example.com/upd')
    expect(moved.headers['cache-control']).toBe('public, max-age=60')

    // a field left out is kept
    expect((await alice.api.put(`/api/url/${id}/update`, { url: 'https://example.com/upd' })).statusCode).toBe(200)
    expect(await details(alice, id)).toMatchObject({ redirectstatus: 308, cachettl: 60 })

    expect((await alice.api.put(`/api/url/${id}/update`, { url: 'https://example.com/upd', redirectstatus: '', cachettl: null })).statusCode).toBe(200)
    const back = await visit(t, '/pol-upd')
    expectRedirect(back, 302, 'https://example.com/upd')
    expect(back.headers['cache-control']).toBe('private, max-age=0')
  })

  it('keeps the rotator and the pages as they were: a rotator visit is a 302 nobody caches', async () => {
    const id = await addLink(alice, { url: 'https://example.com/framed', custom: 'pol-frame', type: 'frame', redirectstatus: 301, cachettl: 600 })
    const res = await visit(t, '/pol-frame')
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(await details(alice, id)).toMatchObject({ type: 'frame', redirectstatus: 301, cachettl: 600 })
  })

  for (const [body, field] of [
    [{ redirectstatus: 303 }, 'redirectstatus'],
    [{ redirectstatus: 'permanent' }, 'redirectstatus'],
    [{ cachettl: -1 }, 'cachettl'],
    [{ cachettl: 1.5 }, 'cachettl'],
    [{ cachettl: 400 * 86400 }, 'cachettl'],
    [{ fallback: 'javascript:alert(1)' }, 'fallback'],
    [{ fallback: 'not a url' }, 'fallback'],
  ] as const) {
    it(`refuses ${JSON.stringify(body)} with 400 naming ${field}, on add and on update`, async () => {
      const add = await alice.api.post('/api/url/add', { url: 'https://example.com/bad', ...body })
      expectError(add, 400, new RegExp(`^${field}\\b`))
      const id = await addLink(alice, { url: 'https://example.com/bad-upd' })
      const upd = await alice.api.put(`/api/url/${id}/update`, { url: 'https://example.com/bad-upd', ...body })
      expectError(upd, 400, new RegExp(`^${field}\\b`))
    })
  }

  it('answers 404 for another account\'s link and changes nothing', async () => {
    const id = await addLink(alice, { url: 'https://example.com/mine', custom: 'pol-mine' })
    const res = await bob.api.put(`/api/url/${id}/update`, { url: 'https://example.com/mine', redirectstatus: 301 })
    expect(res.statusCode).toBe(404)
    expect(await details(alice, id)).toMatchObject({ redirectstatus: 302 })
  })
})

describe('expiry by clicks on the management interface', () => {
  let t: TestApp
  let alice: TestUser
  beforeAll(async () => { [t, alice] = await appWith({ plan: 'pro' }) })
  afterAll(() => t.close())
  const human = { headers: { 'user-agent': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36' } }

  it('expiration_clicks and expiration_url as on v1: after the cap visitors go to the URL; full=1 shows them; update changes and clears', async () => {
    const id = await addLink(alice, { url: 'https://example.com/capped', custom: 'cap-mgmt', expiration_clicks: 2, expiration_url: 'https://over.example/' })
    expect(await details(alice, id)).toMatchObject({ expiration_clicks: 2, expiration_url: 'https://over.example/' })
    for (let i = 0; i < 2; i++) {
      expectRedirect(await visit(t, '/cap-mgmt', human), 302, 'https://example.com/capped')
      await t.app.clicks.flush()
    }
    expectRedirect(await visit(t, '/cap-mgmt', human), 302, 'https://over.example/')

    expect((await alice.api.put(`/api/url/${id}/update`, { url: 'https://example.com/capped', expiration_clicks: 5 })).statusCode).toBe(200)
    expectRedirect(await visit(t, '/cap-mgmt', human), 302, 'https://example.com/capped')
    expect((await alice.api.put(`/api/url/${id}/update`, { url: 'https://example.com/capped', expiration_clicks: 0, expiration_url: null })).statusCode).toBe(200)
    expect(await details(alice, id)).toMatchObject({ expiration_clicks: null, expiration_url: null })
  })

  it.each([
    [{ expiration_clicks: -1 }, /^expiration_clicks: must be a whole number from 0 to 2147483647\.$/],
    [{ expiration_clicks: 1.5 }, /^expiration_clicks: must be a whole number/],
    [{ expiration_clicks: '3' }, /^expiration_clicks: must be a whole number/],
    [{ expiration_url: 'javascript:alert(1)' }, /^expiration_url: /],
  ])('refuses %j with 400 and creates nothing', async (extra, message) => {
    const before = (await alice.api.get('/api/urls')).json().data.result
    expectError(await alice.api.post('/api/url/add', { url: 'https://example.com/x', ...extra }), 400, message)
    expect((await alice.api.get('/api/urls')).json().data.result).toBe(before)
  })
})

describe('alias history', () => {
  let t: TestApp
  let alice: TestUser
  let bob: TestUser

  beforeAll(async () => { [t, alice, bob] = await appWith({ plan: 'pro' }, { plan: 'pro' }) })
  afterAll(() => t.close())

  it('keeps an earlier alias serving the same link, its visits counted as the link\'s clicks', async () => {
    const id = await addLink(alice, { url: 'https://example.com/printed', custom: 'printed-qr' })
    // cached under the old alias before the rename: the rename must not leave a stale answer behind
    expectRedirect(await visit(t, '/printed-qr'), 302, 'https://example.com/printed')

    const res = await alice.api.put(`/api/url/${id}/update`, { url: 'https://example.com/printed-v2', custom: 'printed-new' })
    expect(res.json()).toEqual({ error: 0, id, short: 'http://kurz.test/printed-new' })

    expectRedirect(await visit(t, '/printed-qr'), 302, 'https://example.com/printed-v2')
    expectRedirect(await visit(t, '/printed-new'), 302, 'https://example.com/printed-v2')
    expect(await counters(t, id)).toMatchObject({ clicks: 3 })
    const d = await details(alice, id)
    expect(d).toMatchObject({ alias: 'printed-new', shorturl: 'http://kurz.test/printed-new' })
    expect(d.aliases).toEqual([{ alias: 'printed-qr', date: expect.stringMatching(TS) }])
  })

  it('lists every earlier alias, oldest first, and a link taking one back leaves it off the list', async () => {
    const id = await addLink(alice, { url: 'https://example.com/many', custom: 'many-1' })
    for (const next of ['many-2', 'many-3', 'many-1']) {
      expect((await alice.api.put(`/api/url/${id}/update`, { url: 'https://example.com/many', custom: next })).statusCode).toBe(200)
    }
    expect((await details(alice, id)).aliases.map((a: { alias: string }) => a.alias)).toEqual(['many-2', 'many-3'])
    for (const alias of ['many-1', 'many-2', 'many-3']) expectRedirect(await visit(t, `/${alias}`), 302, 'https://example.com/many')
  })

  it('reserves an earlier alias on its domain: another link cannot take it (409), on add or on rename, from any account', async () => {
    const id = await addLink(alice, { url: 'https://example.com/held', custom: 'held-old' })
    await alice.api.put(`/api/url/${id}/update`, { url: 'https://example.com/held', custom: 'held-new' })

    expectError(await alice.api.post('/api/url/add', { url: 'https://example.com/thief', custom: 'held-old' }), 409, /^custom\b/)
    expectError(await bob.api.post('/api/url/add', { url: 'https://example.com/thief', custom: 'held-old' }), 409, /^custom\b/)
    const other = await addLink(bob, { url: 'https://example.com/other', custom: 'held-other' })
    expectError(await bob.api.put(`/api/url/${other}/update`, { url: 'https://example.com/other', custom: 'held-old' }), 409, /^custom\b/)
    // v1 answers a taken alias its own way: 422 naming alias
    const v1 = await t.app.inject({ method: 'POST', url: '/api/v1/links', headers: { authorization: `Bearer ${bob.key}` }, payload: { url: 'https://example.com/v1', alias: 'held-old' } })
    expect(v1.statusCode).toBe(422)
    expect(v1.json().errors).toHaveProperty('alias')
    expectRedirect(await visit(t, '/held-old'), 302, 'https://example.com/held')
  })

  it('releases an earlier alias: it stops serving the link and is free again', async () => {
    const id = await addLink(alice, { url: 'https://example.com/rel', custom: 'rel-old' })
    await alice.api.put(`/api/url/${id}/update`, { url: 'https://example.com/rel', custom: 'rel-new' })
    expectRedirect(await visit(t, '/rel-old'), 302, 'https://example.com/rel')

    expect((await bob.api.del(`/api/url/${id}/alias/rel-old`)).statusCode).toBe(404)
    expect((await alice.api.del(`/api/url/${id}/alias/rel-unknown`)).statusCode).toBe(404)
    expect((await alice.api.del(`/api/url/${id}/alias/rel-new`)).statusCode).toBe(404)
    const res = await alice.api.del(`/api/url/${id}/alias/rel-old`)
    expect(res.json()).toEqual({ error: 0, message: 'The alias has been released.' })
    expect((await details(alice, id)).aliases).toEqual([])

    expect((await visit(t, '/rel-old')).statusCode).toBe(404)
    const taken = await addLink(bob, { url: 'https://example.com/rel-taken', custom: 'rel-old' })
    expectRedirect(await visit(t, '/rel-old'), 302, 'https://example.com/rel-taken')
    expect(taken).not.toBe(id)
    expectRedirect(await visit(t, '/rel-new'), 302, 'https://example.com/rel')
  })

  it('keeps the old short URL working when a link moves to another domain', async () => {
    const domain = await makeDomain(t, alice.user.id, 'https://go.alice.example')
    const id = await addLink(alice, { url: 'https://example.com/moving', custom: 'moving' })
    expect((await alice.api.put(`/api/url/${id}/update`, { url: 'https://example.com/moving', domain: 'go.alice.example' })).statusCode).toBe(200)
    expectRedirect(await visit(t, '/moving', { host: 'go.alice.example' }), 302, 'https://example.com/moving')
    expectRedirect(await visit(t, '/moving'), 302, 'https://example.com/moving')
    expect((await details(alice, id)).aliases).toEqual([{ alias: 'moving', date: expect.stringMatching(TS) }])
    // reserved on the default domain only: the branded domain's alias is the link's own
    expectError(await bob.api.post('/api/url/add', { url: 'https://example.com/x', custom: 'moving' }), 409, /^custom\b/)
    expect(domain.id).toBeGreaterThan(0)
  })

  it('a v1 rename (alias) keeps the earlier alias the same way', async () => {
    const id = await addV1Link(t, alice, { url: 'https://example.com/v1', alias: 'v1-before' })
    const res = await t.app.inject({
      method: 'PUT',
      url: `/api/v1/links/${id}`,
      headers: { authorization: `Bearer ${alice.key}` },
      payload: { alias: 'v1-after' },
    })
    expect(res.statusCode).toBe(200)
    expectRedirect(await visit(t, '/v1-before'), 302, 'https://example.com/v1')
    expectRedirect(await visit(t, '/v1-after'), 302, 'https://example.com/v1')
    expect((await details(alice, id)).aliases.map((a: { alias: string }) => a.alias)).toEqual(['v1-before'])
  })

  it('a create racing a rename never leaves one alias both current and kept', async () => {
    for (let round = 0; round < 8; round++) {
      const old = `race-${round}`
      const id = await addLink(alice, { url: 'https://example.com/race', custom: old })
      const [renamed, created] = await Promise.all([
        alice.api.put(`/api/url/${id}/update`, { url: 'https://example.com/race', custom: `race-${round}-new` }),
        bob.api.post('/api/url/add', { url: 'https://example.com/racer', custom: old }),
      ])
      expect(renamed.statusCode).toBe(200)
      // the old alias went into history, so the racing create must have lost
      expect(created.statusCode).toBe(409)
      expectRedirect(await visit(t, `/${old}`), 302, 'https://example.com/race')
    }
  })

  it('deleting the link releases its earlier aliases', async () => {
    const id = await addLink(alice, { url: 'https://example.com/gone', custom: 'gone-old' })
    await alice.api.put(`/api/url/${id}/update`, { url: 'https://example.com/gone', custom: 'gone-new' })
    expect((await alice.api.del(`/api/url/${id}/delete`)).statusCode).toBe(200)
    expect((await visit(t, '/gone-old')).statusCode).toBe(404)
    expect(await addLink(bob, { url: 'https://example.com/gone2', custom: 'gone-old' })).toBeGreaterThan(id)
  })
})
