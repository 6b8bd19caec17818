import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { appWith, TS, type TestApp, type TestUser } from '../helpers/app.js'
import { channelItems, channels, domains, links, linkPixels, linkTargets, pixels } from '../../src/db/schema/index.js'

// Read-side fixtures: rows are inserted directly, in every state the list filters distinguish
// (the write path has its own tests in v1-links.test.ts).

type LinkRow = typeof links.$inferSelect

const DAY = 24 * 3600 * 1000

describe('GET /api/v1/links', () => {
  let t: TestApp
  let a: TestUser
  let b: TestUser
  const rows: LinkRow[] = []
  let space: { id: number; name: string; color: string }
  let otherSpace: { id: number }
  let domain: { id: number; host: string }
  let pixel: { id: number; name: string; type: string }
  let pixel2: { id: number; name: string; type: string }
  let bPixel: { id: number }

  const insertLink = async (user: TestUser, over: Partial<typeof links.$inferInsert>) => {
    const [row] = await t.app.db
      .insert(links)
      .values({ userId: user.user.id, url: 'https://example.com/', alias: `a${Math.random().toString(36).slice(2, 10)}`, ...over })
      .returning()
    return row
  }

  beforeAll(async () => {
    [t, a, b] = await appWith({}, {})
    const db = t.app.db
    ;[space] = await db.insert(channels).values({ userId: a.user.id, name: 'Launch', color: '#ff0000' }).returning()
    ;[otherSpace] = await db.insert(channels).values({ userId: b.user.id, name: 'B space' }).returning()
    ;[domain] = await db.insert(domains).values({ userId: a.user.id, domain: 'https://go.example', host: 'go.example' }).returning()
    ;[pixel] = await db.insert(pixels).values({ userId: a.user.id, type: 'fbpixel', name: 'FB', tag: '123' }).returning()
    ;[pixel2] = await db.insert(pixels).values({ userId: a.user.id, type: 'gtmpixel', name: 'GTM', tag: 'GTM-1' }).returning()
    ;[bPixel] = await db.insert(pixels).values({ userId: b.user.id, type: 'fbpixel', name: 'B', tag: '9' }).returning()

    // 0: plain; 1: disabled; 2: expired by date; 3: expired by clicks; 4: cap not reached;
    // 5: future end; 6: full (space, domain, pixels, targets, passwords); 7..24: filler
    rows.push(await insertLink(a, { alias: 'plain', title: 'Hello World', url: 'https://one.example/path', clicks: 5 }))
    rows.push(await insertLink(a, { alias: 'off', title: 'Disabled one', disabled: true, clicks: 1 }))
    rows.push(await insertLink(a, { alias: 'past', title: 'Old promo', expiresAt: new Date(Date.now() - DAY), clicks: 50 }))
    rows.push(await insertLink(a, { alias: 'capped', title: '100% off_sale', expirationClicks: 3, clicks: 3 }))
    rows.push(await insertLink(a, { alias: 'capok', title: 'Under cap', expirationClicks: 10, clicks: 2 }))
    rows.push(await insertLink(a, { alias: 'future', title: 'Next year', expiresAt: new Date(Date.now() + 365 * DAY), clicks: 7 }))
    rows.push(
      await insertLink(a, {
        alias: 'full',
        title: null,
        url: 'https://full.example/landing?x=1',
        domainId: domain.id,
        passwordHash: 'hash',
        privacy: 2,
        privacyPasswordHash: 'hash',
        expirationUrl: 'https://expired.example/',
        expirationClicks: 100,
        expiresAt: new Date(Date.UTC(2099, 0, 2, 3, 4, 0)),
        targetType: 1,
        lastRotation: 2,
        clicks: 9,
      }),
    )
    const full = rows[6]
    await db.insert(channelItems).values({ channelId: space.id, itemType: 'links', itemId: full.id })
    await db.insert(linkPixels).values([
      { linkId: full.id, pixelId: pixel.id },
      { linkId: full.id, pixelId: pixel2.id },
    ])
    await db.insert(linkTargets).values([
      { linkId: full.id, kind: 'geo', key: 'US', match: 'US', url: 'https://us.example/', position: 0 },
      { linkId: full.id, kind: 'geo', key: 'FR', match: 'FR', url: 'https://fr.example/', position: 1 },
      { linkId: full.id, kind: 'device', key: 'OS X', match: 'Mac', url: 'https://mac.example/', position: 0 },
      { linkId: full.id, kind: 'language', key: 'de', match: 'de', url: 'https://de.example/', position: 0 },
      { linkId: full.id, kind: 'rotation', key: null, match: null, url: 'https://r1.example/', position: 0 },
      { linkId: full.id, kind: 'rotation', key: null, match: null, url: 'https://r2.example/', position: 1 },
    ])
    for (let i = 7; i < 25; i++) rows.push(await insertLink(a, { alias: `filler${i}`, title: `Filler ${i}`, clicks: 100 + i }))
    // B's links never show up for A
    await insertLink(b, { alias: 'bee', title: 'Hello World' })
  })
  afterAll(() => t.close())

  const plain = (row: LinkRow) => ({
    id: row.id,
    alias: row.alias,
    url: row.url,
    short_url: `http://kurz.test/${row.alias}`,
    title: row.title ?? '',
    target_type: 0,
    country_target: null,
    platform_target: null,
    language_target: null,
    rotation_target: null,
    last_rotation: 0,
    disabled: row.disabled ? 1 : 0,
    privacy: row.privacy,
    privacy_password: false,
    password: false,
    expiration_url: null,
    expiration_clicks: row.expirationClicks ?? null,
    clicks: row.clicks,
    user_id: a.user.id,
    space: null,
    domain: null,
    pixels: [],
    ends_at: row.expiresAt ? expect.stringMatching(TS) : null,
    created_at: expect.stringMatching(TS),
    updated_at: expect.stringMatching(TS),
  })
  const ids = (res: { json(): { data: { id: number }[] } }) => res.json().data.map((l) => l.id)
  const aliases = (res: { json(): { data: { alias: string }[] } }) => res.json().data.map((l) => l.alias)
  const all = () => rows.map((r) => r.id)

  it('lists 10 links newest first with links and meta blocks (Laravel shape)', async () => {
    const res = await a.api.get('/api/v1/links')
    expect(res.statusCode).toBe(200)
    const desc = [...all()].reverse()
    expect(res.json()).toEqual({
      error: '0',
      data: rows.slice(15).reverse().map(plain),
      links: {
        first: 'http://kurz.test/api/v1/links?page=1',
        last: 'http://kurz.test/api/v1/links?page=3',
        prev: null,
        next: 'http://kurz.test/api/v1/links?page=2',
      },
      meta: { current_page: 1, from: 1, last_page: 3, path: 'http://kurz.test/api/v1/links', per_page: 10, to: 10, total: 25 },
      status: 200,
    })
    expect(ids(res)).toEqual(desc.slice(0, 10))
  })

  it('shows the full v1 Link object: targets, space, domain, pixels, passwords as booleans, ends_at', async () => {
    const full = rows[6]
    const res = await a.api.get(`/api/v1/links/${full.id}`)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({
      error: 0,
      data: {
        id: full.id,
        alias: 'full',
        url: 'https://full.example/landing?x=1',
        short_url: 'https://go.example/full',
        title: '',
        target_type: 1,
        country_target: [
          { key: 'US', value: 'https://us.example/' },
          { key: 'FR', value: 'https://fr.example/' },
        ],
        platform_target: [{ key: 'OS X', value: 'https://mac.example/' }],
        language_target: [{ key: 'de', value: 'https://de.example/' }],
        rotation_target: [{ value: 'https://r1.example/' }, { value: 'https://r2.example/' }],
        last_rotation: 2,
        disabled: 0,
        privacy: 2,
        privacy_password: true,
        password: true,
        expiration_url: 'https://expired.example/',
        expiration_clicks: 100,
        clicks: 9,
        user_id: a.user.id,
        space: { id: space.id, name: 'Launch', color: '#ff0000' },
        domain: { id: domain.id, name: 'go.example' },
        pixels: [
          { id: pixel.id, name: 'FB', type: 'fbpixel' },
          { id: pixel2.id, name: 'GTM', type: 'gtmpixel' },
        ],
        ends_at: '2099-01-02 03:04:00',
        created_at: expect.stringMatching(TS),
        updated_at: expect.stringMatching(TS),
      },
      status: 200,
    })
  })

  it('GET /api/v1/links/{id}: another account, unknown and malformed ids are 404', async () => {
    for (const path of [`/api/v1/links/${rows[0].id}`]) {
      const res = await b.api.get(path)
      expect(res.statusCode).toBe(404)
      expect(res.json()).toEqual({ error: 1, message: 'Link not found.', status: 404 })
    }
    for (const id of ['999999', '0', '-1', 'abc', '2147483648', '1.5']) {
      const res = await a.api.get(`/api/v1/links/${id}`)
      expect(res.statusCode).toBe(404)
      expect(res.json()).toEqual({ error: 1, message: expect.any(String), status: 404 })
    }
  })

  describe('per_page', () => {
    it.each([
      ['10', 10],
      ['100', 25],
      ['', 10],
    ])('per_page=%s is accepted', async (perPage, count) => {
      const res = await a.api.get(`/api/v1/links?per_page=${perPage}`)
      expect(res.statusCode).toBe(200)
      expect(res.json().data).toHaveLength(count)
      expect(res.json().meta.per_page).toBe(perPage ? Number(perPage) : 10)
    })
    it.each([
      ['9', 'per_page must be at least 10.'],
      ['101', 'per_page must be at most 100.'],
      ['abc', 'per_page must be a whole number from 10 to 100.'],
      ['-10', 'per_page must be a whole number from 10 to 100.'],
      ['10.5', 'per_page must be a whole number from 10 to 100.'],
    ])('per_page=%s is a 422 naming per_page', async (perPage, message) => {
      const res = await a.api.get(`/api/v1/links?per_page=${perPage}`)
      expect(res.statusCode).toBe(422)
      expect(res.json()).toEqual({ error: 1, message, errors: { per_page: [message] }, status: 422 })
    })
  })

  it('page selects the page; prev/next and from/to follow; past the end is an empty page', async () => {
    const desc = [...all()].reverse()
    const p2 = await a.api.get('/api/v1/links?page=2&per_page=10')
    expect(p2.statusCode).toBe(200)
    expect(ids(p2)).toEqual(desc.slice(10, 20))
    expect(p2.json().links).toEqual({
      first: 'http://kurz.test/api/v1/links?per_page=10&page=1',
      last: 'http://kurz.test/api/v1/links?per_page=10&page=3',
      prev: 'http://kurz.test/api/v1/links?per_page=10&page=1',
      next: 'http://kurz.test/api/v1/links?per_page=10&page=3',
    })
    expect(p2.json().meta).toEqual({ current_page: 2, from: 11, last_page: 3, path: 'http://kurz.test/api/v1/links', per_page: 10, to: 20, total: 25 })

    const p3 = await a.api.get('/api/v1/links?page=3')
    expect(ids(p3)).toEqual(desc.slice(20))
    expect(p3.json().links.next).toBeNull()
    expect(p3.json().meta).toMatchObject({ current_page: 3, from: 21, to: 25, last_page: 3 })

    const p9 = await a.api.get('/api/v1/links?page=9')
    expect(p9.statusCode).toBe(200)
    expect(p9.json()).toEqual({
      error: '0',
      data: [],
      links: {
        first: 'http://kurz.test/api/v1/links?page=1',
        last: 'http://kurz.test/api/v1/links?page=3',
        prev: 'http://kurz.test/api/v1/links?page=3',
        next: null,
      },
      meta: { current_page: 9, from: null, last_page: 3, path: 'http://kurz.test/api/v1/links', per_page: 10, to: null, total: 25 },
      status: 200,
    })
    for (const bad of ['0', 'abc', '-1']) {
      const res = await a.api.get(`/api/v1/links?page=${bad}`)
      expect(res.statusCode).toBe(422)
      expect(res.json().errors).toEqual({ page: [expect.any(String)] })
    }
  })

  it('an account with no links gets an empty first page with last_page 1', async () => {
    const c = await t.makeUser()
    const res = await c.api.get('/api/v1/links')
    expect(res.json()).toEqual({
      error: '0',
      data: [],
      links: { first: 'http://kurz.test/api/v1/links?page=1', last: 'http://kurz.test/api/v1/links?page=1', prev: null, next: null },
      meta: { current_page: 1, from: null, last_page: 1, path: 'http://kurz.test/api/v1/links', per_page: 10, to: null, total: 0 },
      status: 200,
    })
  })

  describe('search and by', () => {
    it('searches titles by default, ignoring case, and only the caller’s links', async () => {
      const res = await a.api.get('/api/v1/links?search=hello%20WORLD')
      expect(aliases(res)).toEqual(['plain'])
      expect(res.json().meta.total).toBe(1)
      expect(res.json().links.first).toBe('http://kurz.test/api/v1/links?search=hello+WORLD&page=1')
    })
    it('by=title, by=alias and by=url search that field', async () => {
      expect(aliases(await a.api.get('/api/v1/links?search=PROMO&by=title'))).toEqual(['past'])
      expect(aliases(await a.api.get('/api/v1/links?search=CAP&by=alias'))).toEqual(['capok', 'capped'])
      expect(aliases(await a.api.get('/api/v1/links?search=ONE.example&by=url'))).toEqual(['plain'])
      // the alias is not searched by title
      expect(aliases(await a.api.get('/api/v1/links?search=capped'))).toEqual([])
    })
    it('by=any (an extension, the dashboard’s search) searches the three at once', async () => {
      expect(aliases(await a.api.get('/api/v1/links?search=PROMO&by=any'))).toEqual(['past'])
      expect(aliases(await a.api.get('/api/v1/links?search=capped&by=any'))).toEqual(['capped'])
      expect(aliases(await a.api.get('/api/v1/links?search=ONE.example&by=any'))).toEqual(['plain'])
      expect(aliases(await a.api.get('/api/v1/links?search=nothing-anywhere&by=any'))).toEqual([])
    })
    it('treats % and _ literally', async () => {
      expect(aliases(await a.api.get('/api/v1/links?search=%25'))).toEqual(['capped'])
      expect(aliases(await a.api.get('/api/v1/links?search=off_'))).toEqual(['capped'])
      expect(aliases(await a.api.get(`/api/v1/links?search=${encodeURIComponent("'; drop table links; --")}`))).toEqual([])
    })
    it('refuses an unknown by', async () => {
      const res = await a.api.get('/api/v1/links?search=x&by=description')
      expect(res.statusCode).toBe(422)
      expect(res.json()).toEqual({
        error: 1,
        message: 'by must be one of title, alias, url, any.',
        errors: { by: ['by must be one of title, alias, url, any.'] },
        status: 422,
      })
    })
  })

  describe('status', () => {
    const small = ['plain', 'off', 'past', 'capped', 'capok', 'future', 'full']
    const get = async (status: string) => aliases(await a.api.get(`/api/v1/links?status=${status}&per_page=100&sort=asc`)).filter((x) => small.includes(x))
    it('0 lists all', async () => {
      expect(await get('0')).toEqual(small)
      expect((await a.api.get('/api/v1/links?status=0')).json().meta.total).toBe(25)
    })
    it('1 lists active: not disabled, not past ends_at, cap not reached', async () => {
      expect(await get('1')).toEqual(['plain', 'capok', 'future', 'full'])
    })
    it('2 lists expired: past ends_at, or expiration_clicks reached', async () => {
      expect(await get('2')).toEqual(['past', 'capped'])
      expect((await a.api.get('/api/v1/links?status=2')).json().meta.total).toBe(2)
    })
    it('3 lists disabled', async () => {
      expect(await get('3')).toEqual(['off'])
    })
    it.each(['4', 'x', '-1'])('status=%s is a 422', async (s) => {
      const res = await a.api.get(`/api/v1/links?status=${s}`)
      expect(res.statusCode).toBe(422)
      expect(Object.keys(res.json().errors)).toEqual(['status'])
    })
  })

  describe('sort', () => {
    it('desc (default) and asc sort by id', async () => {
      const desc = [...all()].reverse()
      expect(ids(await a.api.get('/api/v1/links?sort=desc&per_page=100'))).toEqual(desc)
      expect(ids(await a.api.get('/api/v1/links?sort=asc&per_page=100'))).toEqual(all())
    })
    it('max and min sort by clicks', async () => {
      const byClicks = [...rows].sort((x, y) => y.clicks - x.clicks || y.id - x.id).map((r) => r.id)
      expect(ids(await a.api.get('/api/v1/links?sort=max&per_page=100'))).toEqual(byClicks)
      const min = await a.api.get('/api/v1/links?sort=min&per_page=100')
      expect(min.json().data.map((l: { clicks: number }) => l.clicks)).toEqual([...rows].map((r) => r.clicks).sort((x, y) => x - y))
      expect(aliases(min)[0]).toBe('off')
    })
    it('refuses anything else', async () => {
      const res = await a.api.get('/api/v1/links?sort=id;drop')
      expect(res.statusCode).toBe(422)
      expect(res.json().errors).toEqual({ sort: ['sort must be one of desc, asc, max, min.'] })
    })
  })

  describe('space, domain and pixel filters', () => {
    it('space filters by channel, domain by branded domain, pixel by pixel', async () => {
      expect(aliases(await a.api.get(`/api/v1/links?space=${space.id}`))).toEqual(['full'])
      expect(aliases(await a.api.get(`/api/v1/links?domain=${domain.id}`))).toEqual(['full'])
      expect(aliases(await a.api.get(`/api/v1/links?pixel=${pixel2.id}`))).toEqual(['full'])
      const res = await a.api.get(`/api/v1/links?space=${space.id}&domain=${domain.id}&pixel=${pixel.id}&status=1&search=full&by=alias&sort=max&per_page=10`)
      expect(aliases(res)).toEqual(['full'])
      expect(res.json().links.first).toBe(
        `http://kurz.test/api/v1/links?search=full&by=alias&status=1&space=${space.id}&domain=${domain.id}&pixel=${pixel.id}&sort=max&per_page=10&page=1`,
      )
    })
    it("another account's space, domain or pixel matches nothing", async () => {
      for (const q of [`space=${otherSpace.id}`, `pixel=${bPixel.id}`, `domain=${domain.id}`]) {
        const res = await (q.startsWith('domain') ? b : a).api.get(`/api/v1/links?${q}`)
        expect(res.statusCode).toBe(200)
        expect(res.json().data).toEqual([])
        expect(res.json().meta.total).toBe(0)
      }
    })
    it('campaign (extension) filters by campaign; another account’s campaign matches nothing', async () => {
      const camp = await a.api.post('/api/campaign/add', { name: 'Spring' })
      expect(camp.statusCode).toBe(200)
      const full = rows[6]
      expect((await a.api.post(`/api/campaign/${camp.json().id}/assign/${full.id}`)).statusCode).toBe(200)
      expect(aliases(await a.api.get(`/api/v1/links?campaign=${camp.json().id}`))).toEqual(['full'])
      const other = await b.api.get(`/api/v1/links?campaign=${camp.json().id}`)
      expect(other.statusCode).toBe(200)
      expect(other.json().meta.total).toBe(0)
      expect((await a.api.get('/api/v1/links?campaign=abc')).statusCode).toBe(422)
    })
    it.each(['space', 'domain', 'pixel'])('%s must be an id', async (name) => {
      for (const v of ['abc', '0', '1.5']) {
        const res = await a.api.get(`/api/v1/links?${name}=${v}`)
        expect(res.statusCode).toBe(422)
        expect(Object.keys(res.json().errors)).toEqual([name])
      }
    })
    it('blank filters are ignored (forms send them)', async () => {
      const res = await a.api.get('/api/v1/links?search=&by=&status=&space=&domain=&pixel=&sort=&per_page=&page=')
      expect(res.statusCode).toBe(200)
      expect(res.json().meta.total).toBe(25)
    })
  })

  it('answers 401 in the v1 shape without a key, and carries its own rate-limit headers', async () => {
    const res = await t.api().get('/api/v1/links')
    expect(res.statusCode).toBe(401)
    expect(res.json()).toEqual({ error: 1, message: expect.any(String), status: 401 })
    const ok = await a.api.get('/api/v1/links')
    expect(ok.headers['x-ratelimit-limit']).toBe('100000')
    expect(Number(ok.headers['x-ratelimit-remaining'])).toBeLessThan(100000)
    expect(Number(ok.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000 - 1)
  })

  it('the space shown is the channel the link joined first, and only the owner’s', async () => {
    const [second] = await t.app.db.insert(channels).values({ userId: a.user.id, name: 'Second', color: '#00ff00' }).returning()
    const target = rows[0]
    await t.app.db.insert(channelItems).values({ channelId: second.id, itemType: 'links', itemId: target.id })
    await t.app.db.insert(channelItems).values({ channelId: space.id, itemType: 'links', itemId: target.id, createdAt: new Date(Date.now() + 1000) })
    const res = await a.api.get(`/api/v1/links/${target.id}`)
    expect(res.json().data.space).toEqual({ id: second.id, name: 'Second', color: '#00ff00' })
    await t.app.db.delete(channelItems).where(eq(channelItems.itemId, target.id))
  })
})
