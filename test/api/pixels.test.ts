import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { linkPixels, links, pixels, PIXEL_TYPES } from '../../src/db/schema/index.js'
import { appWith, expectError, TS, type TestApp, type TestUser } from '../helpers/app.js'
import { countRows, created, rowById } from '../helpers/fixtures.js'

const HOSTILE = '"><script>alert(1)</script>'

/** A realistic tag for every one of the 13 types. */
const GOOD_TAGS: Record<(typeof PIXEL_TYPES)[number], string[]> = {
  gtmpixel: ['GTM-ABC1234', 'gtm-5x7k9'],
  gapixel: ['G-ABCDEF1234', 'UA-12345678-1', 'GT-ABCDE12'],
  fbpixel: ['123456789012345'],
  adwordspixel: ['AW-123456789', 'AW-123456789/AbC-D_efG12', '987654321'],
  linkedinpixel: ['1234567'],
  twitterpixel: ['o1a2b', 'nuxyz'],
  adrollpixel: ['ABCDEFGHIJKLMNOPQRSTUV/WXYZ0123456789ABCDEF'],
  quorapixel: ['0123456789abcdef0123456789abcdef'],
  pinterest: ['2612345678901'],
  bing: ['12345678'],
  snapchat: ['1a2b3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d'],
  reddit: ['t2_abc123', 'a2_xyz'],
  tiktok: ['C1ABCDEFGHIJ2KLMNOPQ'],
}

describe('pixels', () => {
  let t: TestApp
  let me: TestUser
  let other: TestUser

  beforeAll(async () => { [t, me, other] = await appWith({ plan: 'pro' }, { plan: 'pro' }) })
  afterAll(() => t.close())

  const pixelCount = () => countRows(t, pixels)
  const pixelRow = (id: number) => rowById(t, pixels, id)
  const addPixel = async (u: TestUser, body: Record<string, unknown>) => (await created(u, '/api/pixel/add', body)).id

  describe('POST /api/pixel/add and GET /api/pixels', () => {
    it('creates a pixel and lists it', async () => {
      const u = await t.makeUser()
      const res = await u.api.post('/api/pixel/add', { type: 'gtmpixel', name: 'GTM', tag: 'GTM-AB12CD3' })
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({ error: 0, id: expect.any(Number) })
      const id = res.json().id
      const fb = await addPixel(u, { type: 'fbpixel', name: 'Facebook', tag: ' 123456789012345 ' })
      const list = await u.api.get('/api/pixels')
      expect(list.json()).toEqual({
        error: '0',
        data: {
          result: 2,
          perpage: 15,
          currentpage: 1,
          nextpage: 1,
          maxpage: 1,
          pixels: [
            { id: fb, type: 'fbpixel', name: 'Facebook', tag: '123456789012345', date: expect.stringMatching(TS) },
            { id, type: 'gtmpixel', name: 'GTM', tag: 'GTM-AB12CD3', date: expect.stringMatching(TS) },
          ],
        },
      })
      const paged = await u.api.get('/api/pixels?limit=1&page=2')
      expect(paged.json().data).toMatchObject({ result: 2, perpage: 1, currentpage: 2, nextpage: 2, maxpage: 2, pixels: [{ id }] })
    })

    it.each(Object.entries(GOOD_TAGS).flatMap(([type, tags]) => tags.map((tag) => ({ type, tag }))))(
      'accepts $type with tag $tag',
      async ({ type, tag }) => {
        const id = await addPixel(me, { type, name: `${type} pixel`, tag })
        expect(await pixelRow(id)).toMatchObject({ type, tag, name: `${type} pixel`, userId: me.user.id })
      },
    )

    it('stores markup in a name as data and returns it unchanged', async () => {
      const u = await t.makeUser({ plan: 'pro' })
      const id = await addPixel(u, { type: 'bing', name: HOSTILE, tag: '1234' })
      expect((await u.api.get('/api/pixels')).json().data.pixels).toEqual([
        { id, type: 'bing', name: HOSTILE, tag: '1234', date: expect.stringMatching(TS) },
      ])
    })

    it.each([
      { name: 'no type', body: { name: 'n', tag: 'GTM-1' }, message: /type must be one of: gtmpixel, gapixel, fbpixel/ },
      { name: 'a 14th type', body: { type: 'matomo', name: 'n', tag: '1' }, message: /type must be one of/ },
      { name: 'a type in capitals', body: { type: 'GTMPIXEL', name: 'n', tag: 'GTM-1' }, message: /type must be one of/ },
      { name: 'a numeric type', body: { type: 1, name: 'n', tag: 'GTM-1' }, message: /type must be one of/ },
      { name: 'no name', body: { type: 'gtmpixel', tag: 'GTM-1' }, message: /name must not be empty/ },
      { name: 'an empty name', body: { type: 'gtmpixel', name: '', tag: 'GTM-1' }, message: /name must not be empty/ },
      { name: 'a numeric name', body: { type: 'gtmpixel', name: 5, tag: 'GTM-1' }, message: /name must be a string/ },
      { name: 'a name over 255', body: { type: 'gtmpixel', name: 'x'.repeat(256), tag: 'GTM-1' }, message: /at most 255/ },
      { name: 'a control character in the name', body: { type: 'gtmpixel', name: 'a\u0008b', tag: 'GTM-1' }, message: /control characters/ },
      { name: 'no tag', body: { type: 'gtmpixel', name: 'n' }, message: /tag is required/ },
      { name: 'an empty tag', body: { type: 'gtmpixel', name: 'n', tag: '' }, message: /tag is required/ },
      { name: 'a numeric tag', body: { type: 'fbpixel', name: 'n', tag: 123456 }, message: /tag must be a string/ },
      { name: 'a script tag', body: { type: 'gtmpixel', name: 'n', tag: '<script>alert(1)</script>' }, message: /tag must be 1 to 64 letters/ },
      { name: 'a quote-breaking tag', body: { type: 'twitterpixel', name: 'n', tag: `abc');alert(1);//` }, message: /tag must be 1 to 64 letters/ },
      { name: 'an attribute-breaking tag', body: { type: 'reddit', name: 'n', tag: 'x" onload="alert(1)' }, message: /tag must be 1 to 64 letters/ },
      { name: 'a URL tag', body: { type: 'tiktok', name: 'n', tag: 'https://evil.example/x.js' }, message: /tag must be 1 to 64 letters/ },
      { name: 'a tag with a space', body: { type: 'quorapixel', name: 'n', tag: 'abc def' }, message: /tag must be 1 to 64 letters/ },
      { name: 'a tag with a newline', body: { type: 'snapchat', name: 'n', tag: 'abc\ndef' }, message: /tag must be 1 to 64 letters/ },
      { name: 'a unicode tag', body: { type: 'adrollpixel', name: 'n', tag: 'ÄBC' }, message: /tag must be 1 to 64 letters/ },
      { name: 'a 65-character tag', body: { type: 'reddit', name: 'n', tag: 'a'.repeat(65) }, message: /tag must be 1 to 64 letters/ },
    ])('refuses $name (400) and writes nothing', async ({ body, message }) => {
      const before = await pixelCount()
      expectError(await me.api.post('/api/pixel/add', body), 400, message)
      expect(await pixelCount()).toBe(before)
    })

    it('ignores mass-assigned fields', async () => {
      const id = await addPixel(me, { type: 'bing', name: 'mass', tag: '777', userId: other.user.id, id: 31337, date: '2001-01-01 00:00:00' })
      expect(await pixelRow(id)).toMatchObject({ userId: me.user.id })
      expect((await pixelRow(id)).createdAt.getUTCFullYear()).toBeGreaterThan(2020)
    })
  })

  describe('plan features', () => {
    it('Free allows 5 pixels; the 6th is a 403 naming the feature', async () => {
      const u = await t.makeUser({ plan: 'free' })
      for (const n of [1, 2, 3, 4, 5]) await addPixel(u, { type: 'fbpixel', name: `p${n}`, tag: `${n}000` })
      const before = await pixelCount()
      expectError(await u.api.post('/api/pixel/add', { type: 'fbpixel', name: 'p6', tag: '6000' }), 403, /"pixels"/)
      expect(await pixelCount()).toBe(before)
      // a delete frees a place
      const first = (await u.api.get('/api/pixels')).json().data.pixels[0].id
      await u.api.del(`/api/pixel/${first}/delete`)
      await addPixel(u, { type: 'fbpixel', name: 'p6', tag: '6000' })
    })

    it('concurrent adds cannot overrun the count', async () => {
      const u = await t.makeUser({ plan: 'free' })
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, n) => u.api.post('/api/pixel/add', { type: 'bing', name: `race${n}`, tag: `${n}9` })),
      )
      expect(results.map((r) => r.statusCode).sort()).toEqual([200, 200, 200, 200, 200, 403, 403, 403])
      expect((await u.api.get('/api/pixels')).json().data.result).toBe(5)
    })

    it('a plan with "pixels" off refuses (403) but still lists', async () => {
      const u = await t.makeUser({ features: { pixels: { enabled: '0', count: '5' } } })
      await t.app.db.insert(pixels).values({ userId: u.user.id, type: 'bing', name: 'old', tag: '1' })
      expectError(await u.api.post('/api/pixel/add', { type: 'bing', name: 'n', tag: '2' }), 403, /"pixels"/)
      expect((await u.api.get('/api/pixels')).json().data.result).toBe(1)
    })

    it('Pro ("0") is unlimited, and so are admins on Free', async () => {
      const u = await t.makeUser({ plan: 'pro' })
      for (let n = 0; n < 7; n++) await addPixel(u, { type: 'bing', name: `p${n}`, tag: `${n}1` })
      const admin = await t.makeUser({ plan: 'free', admin: true })
      for (let n = 0; n < 6; n++) await addPixel(admin, { type: 'bing', name: `p${n}`, tag: `${n}2` })
    })
  })

  describe('PUT /api/pixel/:id/update', () => {
    it('changes the tag and the name when sent', async () => {
      const id = await addPixel(me, { type: 'gapixel', name: 'Analytics', tag: 'G-OLD1234' })
      const res = await me.api.put(`/api/pixel/${id}/update`, { tag: 'UA-1234-5' })
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({ error: 0, message: 'Pixel has been updated successfully.' })
      expect(await pixelRow(id)).toMatchObject({ type: 'gapixel', name: 'Analytics', tag: 'UA-1234-5' })
      await me.api.put(`/api/pixel/${id}/update`, { name: 'Renamed', tag: 'G-NEW5678', type: 'fbpixel' })
      expect(await pixelRow(id)).toMatchObject({ type: 'gapixel', name: 'Renamed', tag: 'G-NEW5678' })
      await me.api.put(`/api/pixel/${id}/update`, { name: '', tag: 'G-NEW5678' })
      expect((await pixelRow(id)).name).toBe('Renamed')
    })

    it.each([
      { name: 'no tag', body: { name: 'x' }, message: /tag is required/ },
      { name: 'a null tag', body: { tag: null }, message: /tag is required/ },
      { name: 'a hostile tag', body: { tag: 'GTM-1"><script>' }, message: /tag must be 1 to 64 letters/ },
      { name: 'a numeric name', body: { name: 3, tag: 'GTM-1' }, message: /name must be a string/ },
      { name: 'a long name', body: { name: 'x'.repeat(256), tag: 'GTM-1' }, message: /at most 255/ },
    ])('refuses $name (400) and changes nothing', async ({ body, message }) => {
      const id = await addPixel(me, { type: 'gtmpixel', name: 'Stable', tag: 'GTM-STABLE1' })
      const before = await pixelRow(id)
      expectError(await me.api.put(`/api/pixel/${id}/update`, body), 400, message)
      expect(await pixelRow(id)).toEqual(before)
    })
  })

  describe('DELETE /api/pixel/:id/delete', () => {
    it('deletes the pixel and detaches it from its links', async () => {
      const id = await addPixel(me, { type: 'tiktok', name: 'TT', tag: 'C1ABCDEF' })
      const keep = await addPixel(me, { type: 'tiktok', name: 'TT2', tag: 'C1ABCDEG' })
      const [link] = await t.app.db.insert(links).values({ userId: me.user.id, alias: 'with-pixel', url: 'https://example.com' }).returning()
      await t.app.db.insert(linkPixels).values([
        { linkId: link.id, pixelId: id },
        { linkId: link.id, pixelId: keep },
      ])
      const res = await me.api.del(`/api/pixel/${id}/delete`)
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({ error: 0, message: 'Pixel has been deleted successfully.' })
      expect(await pixelRow(id)).toBeUndefined()
      expect(await t.app.db.select().from(linkPixels).where(eq(linkPixels.linkId, link.id))).toEqual([{ linkId: link.id, pixelId: keep }])
      expect((await t.app.db.select().from(links).where(eq(links.id, link.id))).length).toBe(1)
      expectError(await me.api.del(`/api/pixel/${id}/delete`), 404, /Pixel not found/)
    })
  })

  describe('another account’s pixel', () => {
    it('is a 404 for update and delete, and stays unchanged', async () => {
      const id = await addPixel(other, { type: 'gtmpixel', name: 'Theirs', tag: 'GTM-THEIRS' })
      const before = await pixelRow(id)
      expectError(await me.api.put(`/api/pixel/${id}/update`, { name: 'Mine', tag: 'GTM-MINE' }), 404, /Pixel not found/)
      expectError(await me.api.del(`/api/pixel/${id}/delete`), 404, /Pixel not found/)
      expect(await pixelRow(id)).toEqual(before)
      const mine = (await me.api.get('/api/pixels?limit=1000')).json().data.pixels as { id: number }[]
      expect(mine.map((p) => p.id)).not.toContain(id)
    })

    it.each(['0', '-1', 'abc', '2147483648'])('a path id of %s names nothing (404)', async (id) => {
      expectError(await me.api.put(`/api/pixel/${id}/update`, { tag: 'GTM-1' }), 404)
      expectError(await me.api.del(`/api/pixel/${id}/delete`), 404)
    })
  })

  it('needs a key (401)', async () => {
    expectError(await t.api().get('/api/pixels'), 401)
    expectError(await t.api().post('/api/pixel/add', { type: 'bing', name: 'n', tag: '1' }), 401)
  })
})

describe('pixels: visits follow changes at once (redirect cache)', () => {
  let t: TestApp
  let u: TestUser
  beforeAll(async () => { [t, u] = await appWith({ plan: 'pro' }) })
  afterAll(() => t.close())

  const visit = (path: string) => t.app.inject({ method: 'GET', url: path, headers: { host: 'kurz.test', 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0' } })

  it('a changed tag shows on the next visit, and a deleted pixel is gone from it', async () => {
    const pixel = (await u.api.post('/api/pixel/add', { type: 'gtmpixel', name: 'GTM', tag: 'GTM-FIRST1' })).json().id
    const link = await u.api.post('/api/url/add', { url: 'https://example.com/tracked', custom: 'tracked', pixels: [pixel] })
    expect(link.statusCode, link.body).toBe(200)
    const first = await visit('/tracked')
    expect(first.statusCode).toBe(200)
    expect(first.body).toContain('GTM-FIRST1')

    await u.api.put(`/api/pixel/${pixel}/update`, { tag: 'GTM-SECOND2' })
    const second = await visit('/tracked')
    expect(second.body).toContain('GTM-SECOND2')
    expect(second.body).not.toContain('GTM-FIRST1')

    await u.api.del(`/api/pixel/${pixel}/delete`)
    const third = await visit('/tracked')
    expect(third.statusCode).toBe(302)
    expect(third.headers.location).toBe('https://example.com/tracked')
  })
})
