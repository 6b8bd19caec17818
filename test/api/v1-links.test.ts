import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { count, eq } from 'drizzle-orm'
import { appWith, testApp, TS, type TestApp, type TestUser } from '../helpers/app.js'
import { channelItems, linkPixels, links, linkTargets, pixels, plans, users } from '../../src/db/schema/index.js'

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

/** A form body from [name, value] pairs; names keep their brackets (encoded or not, as clients do). */
const form = (pairs: [string, string | number][], encodeBrackets = false) =>
  pairs
    .map(([k, v]) => `${encodeBrackets ? encodeURIComponent(k) : k.replace(/ /g, '+')}=${encodeURIComponent(String(v))}`)
    .join('&')

describe('link interface v1: writes', () => {
  let t: TestApp
  let a: TestUser
  let b: TestUser
  let n = 0
  const fx = {
    domain: { id: 0, name: '' },
    space: { id: 0, name: 'Launch', color: '#ff0000' },
    space2: { id: 0, name: 'Second', color: '#00ff00' },
    pixel: { id: 0, name: 'FB', type: 'fbpixel' },
    pixel2: { id: 0, name: 'GTM', type: 'gtmpixel' },
    bDomain: 0,
    bSpace: 0,
    bPixel: 0,
  }

  const post = (u: TestUser, body: string | object, headers: Record<string, string> = typeof body === 'string' ? FORM : {}) =>
    u.api.post('/api/v1/links', body as never, headers)
  const put = (u: TestUser, id: number, body: string | object, headers: Record<string, string> = typeof body === 'string' ? FORM : {}) =>
    u.api.put(`/api/v1/links/${id}`, body as never, headers)
  const alias = () => `v1link${++n}`

  const counts = async () => {
    const db = t.app.db
    const [[l], [tg], [px], [ci]] = await Promise.all([
      db.select({ n: count() }).from(links),
      db.select({ n: count() }).from(linkTargets),
      db.select({ n: count() }).from(linkPixels),
      db.select({ n: count() }).from(channelItems),
    ])
    return { links: l.n, targets: tg.n, pixels: px.n, items: ci.n }
  }

  /** The v1 Link of a plain link created by `a` with only `url` (and what `over` changes). */
  const plainLink = (over: Record<string, unknown> = {}) => ({
    id: expect.any(Number),
    alias: expect.stringMatching(/^[A-Za-z0-9]{6}$/),
    url: 'https://example.com/page',
    short_url: expect.stringMatching(/^http:\/\/kurz\.test\/[A-Za-z0-9]{6}$/),
    title: '',
    target_type: 0,
    country_target: null,
    platform_target: null,
    language_target: null,
    rotation_target: null,
    last_rotation: 0,
    disabled: 0,
    privacy: 0,
    privacy_password: false,
    password: false,
    expiration_url: null,
    expiration_clicks: null,
    clicks: 0,
    user_id: a.user.id,
    space: null,
    domain: null,
    pixels: [],
    ends_at: null,
    created_at: expect.stringMatching(TS),
    updated_at: expect.stringMatching(TS),
    ...over,
  })

  beforeAll(async () => {
    [t, a, b] = await appWith({ plan: 'pro' }, { plan: 'pro' })
    const id = async (res: { statusCode: number; json(): { id: number } }) => {
      expect(res.statusCode).toBe(200)
      return res.json().id
    }
    fx.domain = { id: await id(await a.api.post('/api/domain/add', { domain: 'https://go.example' })), name: 'go.example' }
    fx.space.id = await id(await a.api.post('/api/channel/add', { name: 'Launch', color: '#ff0000' }))
    fx.space2.id = await id(await a.api.post('/api/channel/add', { name: 'Second', color: '#00ff00' }))
    fx.pixel.id = await id(await a.api.post('/api/pixel/add', { type: 'fbpixel', name: 'FB', tag: '1234567890' }))
    fx.pixel2.id = await id(await a.api.post('/api/pixel/add', { type: 'gtmpixel', name: 'GTM', tag: 'GTM-ABC123' }))
    fx.bDomain = await id(await b.api.post('/api/domain/add', { domain: 'https://b.example' }))
    fx.bSpace = await id(await b.api.post('/api/channel/add', { name: 'B' }))
    fx.bPixel = await id(await b.api.post('/api/pixel/add', { type: 'fbpixel', name: 'B', tag: '999' }))
  })
  afterAll(() => t.close())

  describe('POST /api/v1/links', () => {
    it('creates a link from a form with only url: defaults disabled 0, privacy 0, random alias', async () => {
      const res = await post(a, form([['url', 'https://example.com/page']]))
      expect(res.statusCode).toBe(201)
      const body = res.json()
      expect(body).toEqual({ error: 0, data: plainLink(), status: 201 })
      expect(body.data.short_url).toBe(`http://kurz.test/${body.data.alias}`)
      const get = await a.api.get(`/api/v1/links/${body.data.id}`)
      expect(get.json()).toEqual({ error: 0, data: body.data, status: 200 })
    })

    it('takes every writable field form-encoded, with bracketed targets and pixels[]', async () => {
      const name = alias()
      const res = await post(
        a,
        form([
          ['url', 'https://example.com/page'],
          ['domain', fx.domain.id],
          ['alias', name],
          ['password', 'link-secret'],
          ['space', fx.space.id],
          ['pixels[]', fx.pixel.id],
          ['pixels[]', fx.pixel2.id],
          ['disabled', '1'],
          ['privacy', '2'],
          ['privacy_password', 'stats-secret'],
          ['expiration_url', 'https://expired.example/'],
          ['expiration_date', '2099-12-31'],
          ['expiration_time', '23:45'],
          ['expiration_clicks', '50'],
          ['target_type', '1'],
          ['country[0][key]', 'US'],
          ['country[0][value]', 'https://us.example/'],
          ['country[1][key]', 'fr'],
          ['country[1][value]', 'https://fr.example/'],
        ]),
      )
      expect(res.statusCode).toBe(201)
      expect(res.json()).toEqual({
        error: 0,
        data: plainLink({
          alias: name,
          short_url: `https://go.example/${name}`,
          target_type: 1,
          country_target: [
            { key: 'US', value: 'https://us.example/' },
            { key: 'FR', value: 'https://fr.example/' },
          ],
          disabled: 1,
          privacy: 2,
          privacy_password: true,
          password: true,
          expiration_url: 'https://expired.example/',
          expiration_clicks: 50,
          space: fx.space,
          domain: fx.domain,
          pixels: [fx.pixel, fx.pixel2],
          ends_at: '2099-12-31 23:45:00',
        }),
        status: 201,
      })
      // passwords are stored as argon2id hashes, never as sent
      const [row] = await t.app.db.select().from(links).where(eq(links.id, res.json().data.id))
      expect(row.passwordHash).toMatch(/^\$argon2id\$/)
      expect(row.privacyPasswordHash).toMatch(/^\$argon2id\$/)
      expect(JSON.stringify(res.json())).not.toContain('secret')
    })

    it('reads percent-encoded brackets (PHP http_build_query) the same way', async () => {
      const res = await post(
        a,
        form(
          [
            ['url', 'https://example.com/page'],
            ['target_type', '3'],
            ['language[0][key]', 'de'],
            ['language[0][value]', 'https://de.example/'],
            ['language[1][key]', 'EN'],
            ['language[1][value]', 'https://en.example/'],
            ['pixels[0]', fx.pixel2.id],
          ],
          true,
        ),
      )
      expect(res.statusCode).toBe(201)
      expect(res.json().data).toEqual(
        plainLink({
          target_type: 3,
          language_target: [
            { key: 'de', value: 'https://de.example/' },
            { key: 'en', value: 'https://en.example/' },
          ],
          pixels: [fx.pixel2],
        }),
      )
    })

    it('platform targets take the seven v1 platform names and show them as sent', async () => {
      const names = ['iOS', 'Android', 'Windows', 'OS X', 'Linux', 'Ubuntu', 'Chrome OS']
      const pairs: [string, string][] = [['url', 'https://example.com/page'], ['target_type', '2']]
      names.forEach((p, i) => pairs.push([`platform[${i}][key]`, p], [`platform[${i}][value]`, `https://p${i}.example/`]))
      const res = await post(a, form(pairs))
      expect(res.statusCode).toBe(201)
      expect(res.json().data.platform_target).toEqual(names.map((key, i) => ({ key, value: `https://p${i}.example/` })))
      expect(res.json().data.target_type).toBe(2)
      // names are taken in any case and shown in the SPEC.md spelling
      const ubuntu = await post(a, form([['url', 'https://example.com/page'], ['target_type', '2'], ['platform[0][key]', 'ubuntu'], ['platform[0][value]', 'https://u.example/']]))
      expect(ubuntu.statusCode).toBe(201)
      expect(ubuntu.json().data.platform_target).toEqual([{ key: 'Ubuntu', value: 'https://u.example/' }])
    })

    it('rotation targets keep the order of their indices, sparse or not', async () => {
      const res = await post(
        a,
        form([
          ['url', 'https://example.com/page'],
          ['target_type', '4'],
          ['rotation[2][value]', 'https://r3.example/'],
          ['rotation[0][value]', 'https://r1.example/'],
          ['rotation[1][value]', 'https://r2.example/'],
        ]),
      )
      expect(res.statusCode).toBe(201)
      expect(res.json().data).toEqual(
        plainLink({
          target_type: 4,
          rotation_target: [{ value: 'https://r1.example/' }, { value: 'https://r2.example/' }, { value: 'https://r3.example/' }],
        }),
      )
    })

    it('with a target_type, only that type’s targets are kept; without one, every list sent is kept', async () => {
      const pairs: [string, string][] = [
        ['url', 'https://example.com/page'],
        ['country[0][key]', 'US'],
        ['country[0][value]', 'https://us.example/'],
        ['rotation[0][value]', 'https://r.example/'],
      ]
      const typed = await post(a, form([...pairs, ['target_type', '4']]))
      expect(typed.json().data).toMatchObject({ target_type: 4, country_target: null, rotation_target: [{ value: 'https://r.example/' }] })
      const untyped = await post(a, form(pairs))
      expect(untyped.json().data).toMatchObject({
        target_type: 1,
        country_target: [{ key: 'US', value: 'https://us.example/' }],
        rotation_target: [{ value: 'https://r.example/' }],
      })
      const none = await post(a, form([...pairs, ['target_type', '0']]))
      expect(none.json().data).toMatchObject({ target_type: 0, country_target: null, rotation_target: null })
    })

    it.each([
      ['comma-separated', (p: number, q: number) => form([['url', 'https://example.com/page'], ['pixels', `${p},${q}`]])],
      ['pixels[]', (p: number, q: number) => form([['url', 'https://example.com/page'], ['pixels[]', p], ['pixels[]', q]])],
      ['pixel_ids[]', (p: number, q: number) => form([['url', 'https://example.com/page'], ['pixel_ids[]', p], ['pixel_ids[]', q]])],
      ['JSON array of numbers', (p: number, q: number) => ({ url: 'https://example.com/page', pixels: [p, q] })],
      ['JSON array of strings', (p: number, q: number) => ({ url: 'https://example.com/page', pixels: [String(p), String(q)] })],
      ['JSON comma string', (p: number, q: number) => ({ url: 'https://example.com/page', pixel_ids: `${p}, ${q}` })],
    ])('pixels as %s', async (_name, body) => {
      const res = await post(a, body(fx.pixel.id, fx.pixel2.id))
      expect(res.statusCode).toBe(201)
      expect(res.json().data.pixels).toEqual([fx.pixel, fx.pixel2])
    })

    it('takes JSON bodies with the same names; numbers as numbers or strings', async () => {
      const name = alias()
      const res = await post(a, {
        url: 'https://example.com/page',
        domain: fx.domain.id,
        alias: name,
        space: String(fx.space.id),
        disabled: 0,
        privacy: '1',
        expiration_date: '2099-06-01',
        expiration_clicks: 7,
        target_type: 1,
        country: [
          { key: 'DE', value: 'https://de.example/' },
          { key: 'GB', value: 'https://gb.example/' },
        ],
      })
      expect(res.statusCode).toBe(201)
      expect(res.json().data).toEqual(
        plainLink({
          alias: name,
          short_url: `https://go.example/${name}`,
          domain: fx.domain,
          space: fx.space,
          privacy: 1,
          ends_at: '2099-06-01 00:00:00',
          expiration_clicks: 7,
          target_type: 1,
          country_target: [
            { key: 'DE', value: 'https://de.example/' },
            { key: 'GB', value: 'https://gb.example/' },
          ],
        }),
      )
    })

    it('takes the synonyms domain_id, space_id and pixel_ids; the SPEC.md name wins when both are sent', async () => {
      const res = await post(a, form([['url', 'https://example.com/page'], ['domain_id', fx.domain.id], ['space_id', fx.space2.id], ['pixel_ids', fx.pixel.id]]))
      expect(res.statusCode).toBe(201)
      expect(res.json().data).toMatchObject({ domain: fx.domain, space: fx.space2, pixels: [fx.pixel] })
      const both = await post(
        a,
        form([
          ['url', 'https://example.com/page'],
          ['space', fx.space.id],
          ['space_id', fx.space2.id],
          ['pixels', fx.pixel2.id],
          ['pixel_ids', fx.pixel.id],
          ['domain', ''],
          ['domain_id', fx.domain.id],
        ]),
      )
      expect(both.statusCode).toBe(201)
      expect(both.json().data).toMatchObject({ domain: null, space: fx.space, pixels: [fx.pixel2] })
    })

    it('takes title (extension), which by=title then finds', async () => {
      const res = await post(a, form([['url', 'https://example.com/page'], ['title', 'Summer <b>Sale</b>']]))
      expect(res.json().data).toEqual(plainLink({ title: 'Summer <b>Sale</b>' }))
      const found = await a.api.get('/api/v1/links?search=summer%20%3Cb%3E')
      expect(found.json().data.map((l: { id: number }) => l.id)).toEqual([res.json().data.id])
      const cleared = await put(a, res.json().data.id, form([['title', '']]))
      expect(cleared.json().data.title).toBe('')
    })

    it('reads a JSON body sent as text/plain or with no content type', async () => {
      for (const headers of [{ 'content-type': 'text/plain' }, {}]) {
        const res = await t.app.inject({
          method: 'POST',
          url: '/api/v1/links',
          payload: JSON.stringify({ url: 'https://example.com/page' }),
          headers: { authorization: `Bearer ${a.key}`, ...headers },
        })
        expect(res.statusCode).toBe(201)
        expect(res.json().data).toEqual(plainLink())
      }
    })

    it('expiration_time defaults to 00:00 UTC', async () => {
      const res = await post(a, form([['url', 'https://example.com/page'], ['expiration_date', '2099-02-03']]))
      expect(res.json().data.ends_at).toBe('2099-02-03 00:00:00')
      const noon = await post(a, form([['url', 'https://example.com/page'], ['expiration_date', '2099-02-03'], ['expiration_time', '12:05']]))
      expect(noon.json().data.ends_at).toBe('2099-02-03 12:05:00')
    })

    it('blank optional fields (as web forms send them) are absent', async () => {
      const res = await post(
        a,
        form([
          ['url', 'https://example.com/page'],
          ['domain', ''],
          ['alias', ''],
          ['password', ''],
          ['space', ''],
          ['pixels', ''],
          ['disabled', ''],
          ['privacy', ''],
          ['privacy_password', ''],
          ['expiration_url', ''],
          ['expiration_date', ''],
          ['expiration_time', ''],
          ['expiration_clicks', ''],
          ['target_type', ''],
          ['country[0][key]', ''],
          ['country[0][value]', ''],
        ]),
      )
      expect(res.statusCode).toBe(201)
      expect(res.json().data).toEqual(plainLink())
    })

    it('ignores fields it does not own (user_id, clicks, id, admin) and prototype-pollution keys', async () => {
      const before = await counts()
      const res = await post(
        a,
        form([
          ['url', 'https://example.com/page'],
          ['user_id', b.user.id],
          ['clicks', 999],
          ['id', 1],
          ['admin', 1],
          ['__proto__[admin]', 1],
          ['constructor[prototype][admin]', 1],
          ['last_rotation', 5],
        ]),
      )
      expect(res.statusCode).toBe(201)
      expect(res.json().data).toEqual(plainLink())
      expect(({} as Record<string, unknown>).admin).toBeUndefined()
      const [me] = await t.app.db.select().from(users).where(eq(users.id, a.user.id))
      expect(me.admin).toBe(false)
      expect((await counts()).links).toBe(before.links + 1)
      const json = await post(a, '{"url": "https://example.com/page", "__proto__": {"admin": true}, "constructor": {"prototype": {"admin": true}}}', {
        'content-type': 'application/json',
      })
      expect(json.statusCode).toBe(201)
      expect(({} as Record<string, unknown>).admin).toBeUndefined()
    })

    describe('refuses bad input with a 422 naming the field as sent, and writes nothing', () => {
      const cases: { name: string; body: () => string | object; field: string; message?: RegExp | (() => RegExp) }[] = [
        { name: 'no url', body: () => form([['alias', 'nourl1']]), field: 'url', message: /url is required/ },
        { name: 'blank url', body: () => form([['url', '']]), field: 'url' },
        { name: 'javascript: url', body: () => form([['url', 'javascript:alert(1)']]), field: 'url', message: /javascript/ },
        { name: 'relative url', body: () => form([['url', '/relative']]), field: 'url' },
        { name: 'url with credentials', body: () => form([['url', 'https://user:pass@example.com/']]), field: 'url' },
        { name: 'url of a short link here (self-loop)', body: () => form([['url', 'http://KURZ.test/abc']]), field: 'url', message: /short link/ },
        { name: 'url of a branded domain (self-loop)', body: () => form([['url', 'https://www.go.example./x']]), field: 'url' },
        { name: 'url given twice', body: () => 'url=https://a.example/&url=https://b.example/', field: 'url' },
        { name: 'alias too short', body: () => form([['url', 'https://example.com/'], ['alias', 'ab']]), field: 'alias' },
        { name: 'alias too long', body: () => form([['url', 'https://example.com/'], ['alias', 'a'.repeat(65)]]), field: 'alias' },
        { name: 'alias with a slash', body: () => form([['url', 'https://example.com/'], ['alias', '../etc']]), field: 'alias' },
        { name: 'alias ending +', body: () => form([['url', 'https://example.com/'], ['alias', 'abc+']]), field: 'alias' },
        { name: 'reserved alias', body: () => form([['url', 'https://example.com/'], ['alias', 'API']]), field: 'alias', message: /reserved/ },
        { name: 'unicode alias', body: () => form([['url', 'https://example.com/'], ['alias', 'héllo']]), field: 'alias' },
        { name: 'domain of another account', body: () => form([['url', 'https://example.com/'], ['domain', fx.bDomain]]), field: 'domain', message: () => new RegExp(`^domain: ${fx.bDomain} is not one of your branded domains\\.$`) },
        { name: 'domain_id of another account', body: () => form([['url', 'https://example.com/'], ['domain_id', fx.bDomain]]), field: 'domain_id', message: () => new RegExp(`^domain_id: ${fx.bDomain} is not one of your branded domains\\.$`) },
        { name: 'domain not an id', body: () => form([['url', 'https://example.com/'], ['domain', 'go.example']]), field: 'domain' },
        { name: 'space of another account', body: () => form([['url', 'https://example.com/'], ['space', fx.bSpace]]), field: 'space' },
        { name: 'space_id of another account', body: () => form([['url', 'https://example.com/'], ['space_id', fx.bSpace]]), field: 'space_id' },
        { name: 'unknown space', body: () => form([['url', 'https://example.com/'], ['space', 999999]]), field: 'space' },
        { name: 'space not an id', body: () => form([['url', 'https://example.com/'], ['space', 'abc']]), field: 'space' },
        { name: 'pixel of another account', body: () => form([['url', 'https://example.com/'], ['pixels[]', fx.pixel.id], ['pixels[]', fx.bPixel]]), field: 'pixels' },
        { name: 'pixel_ids of another account', body: () => form([['url', 'https://example.com/'], ['pixel_ids', `${fx.pixel.id},${fx.bPixel}`]]), field: 'pixel_ids' },
        { name: 'pixels not ids', body: () => form([['url', 'https://example.com/'], ['pixels', 'a,b']]), field: 'pixels.0' },
        { name: 'password too long', body: () => form([['url', 'https://example.com/'], ['password', 'x'.repeat(1025)]]), field: 'password' },
        { name: 'disabled 2', body: () => form([['url', 'https://example.com/'], ['disabled', '2']]), field: 'disabled' },
        { name: 'privacy 3', body: () => form([['url', 'https://example.com/'], ['privacy', '3']]), field: 'privacy' },
        { name: 'privacy 2 without privacy_password', body: () => form([['url', 'https://example.com/'], ['privacy', '2']]), field: 'privacy_password' },
        { name: 'expiration_url javascript:', body: () => form([['url', 'https://example.com/'], ['expiration_url', 'javascript:x']]), field: 'expiration_url' },
        { name: 'expiration_clicks negative', body: () => form([['url', 'https://example.com/'], ['expiration_clicks', '-5']]), field: 'expiration_clicks', message: /^expiration_clicks must be a whole number from 0 to 2147483647\.$/ },
        { name: 'expiration_clicks of twenty digits', body: () => form([['url', 'https://example.com/'], ['expiration_clicks', '9'.repeat(20)]]), field: 'expiration_clicks', message: /^expiration_clicks must be a whole number from 0 to 2147483647\.$/ },
        { name: 'expiration_date malformed', body: () => form([['url', 'https://example.com/'], ['expiration_date', '31/12/2099']]), field: 'expiration_date' },
        { name: 'expiration_date not a day', body: () => form([['url', 'https://example.com/'], ['expiration_date', '2099-02-30']]), field: 'expiration_date' },
        { name: 'expiration_date in the past', body: () => form([['url', 'https://example.com/'], ['expiration_date', '2001-01-01']]), field: 'expiration_date', message: /future/ },
        { name: 'expiration_time 25:00', body: () => form([['url', 'https://example.com/'], ['expiration_date', '2099-01-01'], ['expiration_time', '25:00']]), field: 'expiration_time' },
        { name: 'expiration_clicks negative', body: () => form([['url', 'https://example.com/'], ['expiration_clicks', '-1']]), field: 'expiration_clicks' },
        { name: 'expiration_clicks abc', body: () => form([['url', 'https://example.com/'], ['expiration_clicks', 'abc']]), field: 'expiration_clicks' },
        { name: 'target_type 5', body: () => form([['url', 'https://example.com/'], ['target_type', '5']]), field: 'target_type' },
        { name: 'target_type 1 without countries', body: () => form([['url', 'https://example.com/'], ['target_type', '1']]), field: 'country' },
        { name: 'unknown country', body: () => form([['url', 'https://example.com/'], ['target_type', '1'], ['country[0][key]', 'XX'], ['country[0][value]', 'https://x.example/']]), field: 'country.0.key' },
        { name: 'country without value', body: () => form([['url', 'https://example.com/'], ['target_type', '1'], ['country[0][key]', 'US']]), field: 'country.0.value' },
        { name: 'country value javascript:', body: () => form([['url', 'https://example.com/'], ['country[0][key]', 'US'], ['country[0][value]', 'javascript:x']]), field: 'country.0.value' },
        { name: 'country listed twice', body: () => form([['url', 'https://example.com/'], ['country[0][key]', 'US'], ['country[0][value]', 'https://a.example/'], ['country[1][key]', 'us'], ['country[1][value]', 'https://b.example/']]), field: 'country.1' },
        { name: 'unknown platform', body: () => form([['url', 'https://example.com/'], ['target_type', '2'], ['platform[0][key]', 'Symbian'], ['platform[0][value]', 'https://x.example/']]), field: 'platform.0.key' },
        { name: 'unknown language', body: () => form([['url', 'https://example.com/'], ['target_type', '3'], ['language[0][key]', 'xx'], ['language[0][value]', 'https://x.example/']]), field: 'language.0.key' },
        { name: 'rotation value not a URL', body: () => form([['url', 'https://example.com/'], ['target_type', '4'], ['rotation[0][value]', 'nope']]), field: 'rotation.0.value' },
        { name: 'targets not a list', body: () => form([['url', 'https://example.com/'], ['country', 'US']]), field: 'country' },
        { name: 'JSON body that is an array', body: () => [{ url: 'https://example.com/' }], field: 'body' },
        { name: 'JSON url that is a number', body: () => ({ url: 5 }), field: 'url' },
        { name: 'JSON country item that is a string', body: () => ({ url: 'https://example.com/', target_type: 1, country: ['US'] }), field: 'country.0' },
        { name: 'JSON country key that is an object', body: () => ({ url: 'https://example.com/', target_type: 1, country: [{ key: { code: 'US' }, value: 'https://us.example/' }] }), field: 'country.0.key', message: /^country\.0\.key must be a string, not an object\./ },
      ]
      it.each(cases)('$name → 422 on $field', async ({ body, field, message }) => {
        const before = await counts()
        const res = await post(a, body())
        expect(res.statusCode).toBe(422)
        const json = res.json()
        expect(json).toEqual({ error: 1, message: expect.any(String), errors: expect.any(Object), status: 422 })
        expect(Object.keys(json.errors)).toContain(field)
        expect(json.errors[field]).toEqual([expect.any(String)])
        if (message) expect(json.message).toMatch(typeof message === 'function' ? message() : message)
        expect(await counts()).toEqual(before)
      })

      it('reports every failing field at once', async () => {
        const res = await post(a, form([['url', 'ftp:'], ['alias', 'x'], ['privacy', '9'], ['expiration_clicks', 'many']]))
        expect(res.statusCode).toBe(422)
        expect(Object.keys(res.json().errors).sort()).toEqual(['alias', 'expiration_clicks', 'privacy', 'url'])
        expect(res.json().message).toMatch(/and 3 more errors/)
      })

      it('a duplicate alias is a 422 on alias; the same alias on another domain is fine', async () => {
        const name = alias()
        expect((await post(a, form([['url', 'https://example.com/'], ['alias', name]]))).statusCode).toBe(201)
        const before = await counts()
        const dup = await post(a, form([['url', 'https://example.com/'], ['alias', name]]))
        expect(dup.statusCode).toBe(422)
        expect(dup.json()).toEqual({
          error: 1,
          message: `alias: "${name}" is already taken on that domain; choose another alias.`,
          errors: { alias: [`alias: "${name}" is already taken on that domain; choose another alias.`] },
          status: 422,
        })
        // another account's link holds it on the default domain too
        expect((await post(b, form([['url', 'https://example.com/'], ['alias', name]]))).statusCode).toBe(422)
        expect(await counts()).toEqual(before)
        const other = await post(a, form([['url', 'https://example.com/'], ['alias', name], ['domain', fx.domain.id]]))
        expect(other.statusCode).toBe(201)
        // aliases are case-sensitive
        expect((await post(a, form([['url', 'https://example.com/'], ['alias', name.toUpperCase()]]))).statusCode).toBe(201)
      })
    })

    it('answers 415 to a content type it does not read, and 422 to malformed JSON', async () => {
      const before = await counts()
      for (const type of ['multipart/form-data; boundary=x', 'application/xml']) {
        const res = await post(a, 'url=https://example.com/', { 'content-type': type })
        expect(res.statusCode).toBe(415)
        expect(res.json()).toEqual({ error: 1, message: expect.stringMatching(/Content-Type/), status: 415 })
      }
      const bad = await post(a, '{"url": ', { 'content-type': 'application/json' })
      expect(bad.statusCode).toBe(422)
      expect(bad.json()).toEqual({
        error: 1,
        message: 'Request body is not valid JSON.',
        errors: { body: ['Request body is not valid JSON.'] },
        status: 422,
      })
      expect(await counts()).toEqual(before)
    })

    it('answers 413 to a body over 1 MiB', async () => {
      const res = await post(a, `url=https://example.com/&title=${'x'.repeat(1024 * 1024 + 10)}`)
      expect(res.statusCode).toBe(413)
      expect(res.json()).toEqual({ error: 1, message: expect.any(String), status: 413 })
    })

    it('form arrays are capped: more than 100 targets is a 422', async () => {
      const pairs: [string, string][] = [['url', 'https://example.com/'], ['target_type', '4']]
      for (let i = 0; i < 101; i++) pairs.push([`rotation[${i}][value]`, `https://r${i}.example/`])
      const res = await post(a, form(pairs))
      expect(res.statusCode).toBe(422)
      expect(Object.keys(res.json().errors)).toEqual(['rotation'])
    })
  })

  describe('plan switches', () => {
    const restricted = async (features: Record<string, '0' | '1'>, maxLinks = 0) => {
      const u = await t.makeUser()
      const [free] = await t.app.db.select().from(plans).where(eq(plans.name, 'Free'))
      const f = structuredClone(free.features)
      for (const [k, v] of Object.entries(features)) f[k as keyof typeof f].enabled = v
      const [plan] = await t.app.db
        .insert(plans)
        .values({ name: `restricted-${++n}`, free: true, features: f, maxLinks })
        .returning()
      await t.app.db.update(users).set({ planId: plan.id }).where(eq(users.id, u.user.id))
      return u
    }

    it('api switched off: 403 on every v1 endpoint', async () => {
      const u = await restricted({ api: '0' })
      for (const res of [await u.api.get('/api/v1/links'), await post(u, form([['url', 'https://example.com/']]))]) {
        expect(res.statusCode).toBe(403)
        expect(res.json()).toEqual({ error: 1, message: expect.stringMatching(/"api"/), status: 403 })
      }
    })

    it('a custom alias needs "custom", geographic targets "geo", platform targets "device", pixels "pixels"', async () => {
      const u = await restricted({ custom: '0', geo: '0', device: '0', pixels: '0' })
      const [{ id: pixelId }] = await t.app.db.insert(pixels).values({ userId: u.user.id, type: 'fbpixel', name: 'x', tag: '1' }).returning()
      const cases: [string, RegExp][] = [
        [form([['url', 'https://example.com/'], ['alias', 'mine-123']]), /"custom"/],
        [form([['url', 'https://example.com/'], ['country[0][key]', 'US'], ['country[0][value]', 'https://us.example/']]), /"geo"/],
        [form([['url', 'https://example.com/'], ['platform[0][key]', 'iOS'], ['platform[0][value]', 'https://ios.example/']]), /"device"/],
      ]
      cases.push([form([['url', 'https://example.com/'], ['pixels', pixelId]]), /"pixels"/])
      const before = await counts()
      for (const [body, message] of cases) {
        const res = await post(u, body)
        expect(res.statusCode).toBe(403)
        expect(res.json()).toEqual({ error: 1, message: expect.stringMatching(message), status: 403 })
      }
      expect(await counts()).toEqual(before)
      // what the plan does allow still works
      expect((await post(u, form([['url', 'https://example.com/'], ['target_type', '4'], ['rotation[0][value]', 'https://r.example/']]))).statusCode).toBe(201)
    })

    it('the plan link cap is a 403', async () => {
      const u = await restricted({}, 2)
      expect((await post(u, form([['url', 'https://example.com/']]))).statusCode).toBe(201)
      expect((await post(u, form([['url', 'https://example.com/']]))).statusCode).toBe(201)
      const res = await post(u, form([['url', 'https://example.com/']]))
      expect(res.statusCode).toBe(403)
      expect(res.json()).toEqual({ error: 1, message: expect.stringMatching(/links/), status: 403 })
    })
  })

  describe('PUT /api/v1/links/{id}', () => {
    let full: Record<string, unknown> & { id: number; alias: string }
    beforeEach(async () => {
      const res = await post(
        a,
        form([
          ['url', 'https://example.com/page'],
          ['domain', fx.domain.id],
          ['alias', alias()],
          ['password', 'link-secret'],
          ['space', fx.space.id],
          ['pixels', `${fx.pixel.id},${fx.pixel2.id}`],
          ['privacy', '2'],
          ['privacy_password', 'stats-secret'],
          ['expiration_url', 'https://expired.example/'],
          ['expiration_date', '2099-12-31'],
          ['expiration_time', '23:45'],
          ['expiration_clicks', '50'],
          ['target_type', '1'],
          ['country[0][key]', 'US'],
          ['country[0][value]', 'https://us.example/'],
        ]),
      )
      expect(res.statusCode).toBe(201)
      full = res.json().data
    })

    it('changes the fields sent and keeps the others', async () => {
      const res = await put(a, full.id, form([['url', 'https://example.com/new'], ['disabled', '1']]))
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({
        error: 0,
        data: { ...full, url: 'https://example.com/new', disabled: 1, updated_at: expect.stringMatching(TS) },
        status: 200,
      })
      const [row] = await t.app.db.select().from(links).where(eq(links.id, full.id))
      expect(row.passwordHash).toMatch(/^\$argon2id\$/)
    })

    it('an empty body changes nothing', async () => {
      for (const [body, headers] of [['', FORM], ['{}', { 'content-type': 'application/json' }]] as const) {
        const res = await a.api.put(`/api/v1/links/${full.id}`, body, headers)
        expect(res.statusCode).toBe(200)
        expect(res.json().data).toEqual({ ...full, updated_at: expect.stringMatching(TS) })
      }
    })

    it('blank fields clear what can be cleared', async () => {
      const res = await put(
        a,
        full.id,
        form([
          ['password', ''],
          ['space', ''],
          ['pixels', ''],
          ['privacy', '0'],
          ['privacy_password', ''],
          ['expiration_url', ''],
          ['expiration_date', ''],
          ['expiration_clicks', ''],
          ['alias', ''],
          ['url', ''],
        ]),
      )
      expect(res.statusCode).toBe(200)
      expect(res.json().data).toEqual({
        ...full,
        password: false,
        space: null,
        pixels: [],
        privacy: 0,
        privacy_password: false,
        expiration_url: null,
        ends_at: null,
        expiration_clicks: null,
        updated_at: expect.stringMatching(TS),
      })
    })

    it('JSON null and an empty pixel list clear too; synonyms work on update', async () => {
      const res = await put(a, full.id, { password: null, pixel_ids: [], space_id: fx.space2.id, expiration_clicks: 0 })
      expect(res.statusCode).toBe(200)
      expect(res.json().data).toMatchObject({ password: false, pixels: [], space: fx.space2, expiration_clicks: null })
    })

    it('ignores domain and domain_id', async () => {
      const res = await put(a, full.id, form([['domain', ''], ['domain_id', fx.bDomain]]))
      expect(res.statusCode).toBe(200)
      expect(res.json().data.domain).toEqual(fx.domain)
      expect(res.json().data.short_url).toBe(`https://go.example/${full.alias}`)
    })

    it('changes the alias; a taken one is a 422 on alias and nothing changes', async () => {
      const fresh = alias()
      const res = await put(a, full.id, form([['alias', fresh]]))
      expect(res.json().data).toMatchObject({ alias: fresh, short_url: `https://go.example/${fresh}` })
      const other = (await post(a, form([['url', 'https://example.com/'], ['alias', alias()], ['domain', fx.domain.id]]))).json().data
      const dup = await put(a, full.id, form([['alias', other.alias], ['disabled', '1']]))
      expect(dup.statusCode).toBe(422)
      expect(Object.keys(dup.json().errors)).toEqual(['alias'])
      expect((await a.api.get(`/api/v1/links/${full.id}`)).json().data).toMatchObject({ alias: fresh, disabled: 0 })
    })

    it('a new target_type replaces the targeting; 0 removes it', async () => {
      const res = await put(a, full.id, form([['target_type', '2'], ['platform[0][key]', 'Android'], ['platform[0][value]', 'https://android.example/']]))
      expect(res.statusCode).toBe(200)
      expect(res.json().data).toMatchObject({
        target_type: 2,
        country_target: null,
        platform_target: [{ key: 'Android', value: 'https://android.example/' }],
      })
      // a target_type whose targets are already stored needs none sent
      const keep = await put(a, full.id, form([['target_type', '2']]))
      expect(keep.json().data).toMatchObject({ target_type: 2, platform_target: [{ key: 'Android', value: 'https://android.example/' }] })
      // targets sent without target_type replace that list only
      const lang = await put(a, full.id, form([['platform[0][key]', 'iOS'], ['platform[0][value]', 'https://ios.example/']]))
      expect(lang.json().data).toMatchObject({ target_type: 2, platform_target: [{ key: 'iOS', value: 'https://ios.example/' }] })
      const none = await put(a, full.id, form([['target_type', '0']]))
      expect(none.json().data).toMatchObject({ target_type: 0, country_target: null, platform_target: null, language_target: null, rotation_target: null })
      const missing = await put(a, full.id, form([['target_type', '3']]))
      expect(missing.statusCode).toBe(422)
      expect(Object.keys(missing.json().errors)).toEqual(['language'])
    })

    it('expiration_time alone moves the stored end within its day', async () => {
      const res = await put(a, full.id, form([['expiration_time', '08:15']]))
      expect(res.json().data.ends_at).toBe('2099-12-31 08:15:00')
      const moved = await put(a, full.id, form([['expiration_date', '2098-01-01']]))
      expect(moved.json().data.ends_at).toBe('2098-01-01 00:00:00')
    })

    it('privacy 2 keeps the stored privacy_password; setting privacy 2 on a link without one needs it', async () => {
      expect((await put(a, full.id, form([['privacy', '2']]))).statusCode).toBe(200)
      const plain = (await post(a, form([['url', 'https://example.com/']]))).json().data
      const res = await put(a, plain.id, form([['privacy', '2']]))
      expect(res.statusCode).toBe(422)
      expect(res.json().errors).toEqual({ privacy_password: ['privacy_password is required when privacy is 2 (password).'] })
      const ok = await put(a, plain.id, form([['privacy', '2'], ['privacy_password', 'pw-12345']]))
      expect(ok.json().data).toMatchObject({ privacy: 2, privacy_password: true })
    })

    it('bad input is a 422 and changes nothing', async () => {
      for (const body of [
        form([['url', 'javascript:alert(1)']]),
        form([['disabled', '1'], ['space', fx.bSpace]]),
        form([['disabled', '1'], ['pixels', fx.bPixel]]),
        form([['disabled', '1'], ['expiration_date', 'tomorrow']]),
        form([['disabled', '1'], ['target_type', '1'], ['country[0][key]', 'Narnia'], ['country[0][value]', 'https://n.example/']]),
      ]) {
        const before = await counts()
        const res = await put(a, full.id, body)
        expect(res.statusCode).toBe(422)
        expect(await counts()).toEqual(before)
      }
      expect((await a.api.get(`/api/v1/links/${full.id}`)).json().data).toEqual(full)
    })

    it("another account's link, an unknown id and a malformed id are 404, and nothing changes", async () => {
      for (const [u, id] of [
        [b, String(full.id)],
        [a, '999999'],
        [a, 'abc'],
        [a, '0'],
        [a, '2147483648'],
      ] as const) {
        const res = await u.api.put(`/api/v1/links/${id}`, form([['disabled', '1'], ['alias', 'x']]), FORM)
        expect(res.statusCode).toBe(404)
        expect(res.json()).toEqual({ error: 1, message: expect.any(String), status: 404 })
      }
      expect((await a.api.get(`/api/v1/links/${full.id}`)).json().data).toEqual(full)
    })
  })

  describe('DELETE', () => {
    it.each(['/api/v1/links/:id', '/links/:id/destroy'])('DELETE %s deletes the link with its targets, pixels and space item', async (path) => {
      const made = (
        await post(
          a,
          form([
            ['url', 'https://example.com/'],
            ['space', fx.space.id],
            ['pixels', fx.pixel.id],
            ['target_type', '4'],
            ['rotation[0][value]', 'https://r.example/'],
          ]),
        )
      ).json().data
      const before = await counts()
      const url = path.replace(':id', String(made.id))
      // another account first: 404, nothing deleted
      const other = await b.api.del(url)
      expect(other.statusCode).toBe(404)
      expect(other.json()).toEqual({ error: 1, message: 'Link not found.', status: 404 })
      expect(await counts()).toEqual(before)

      const res = await a.api.del(url)
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({ error: 0, id: made.id, object: 'link', deleted: true, message: 'Link has been deleted.', status: 200 })
      expect(await counts()).toEqual({ links: before.links - 1, targets: before.targets - 1, pixels: before.pixels - 1, items: before.items - 1 })
      expect((await a.api.get(`/api/v1/links/${made.id}`)).statusCode).toBe(404)
      const again = await a.api.del(url)
      expect(again.statusCode).toBe(404)
      expect(again.json()).toEqual({ error: 1, message: 'Link not found.', status: 404 })
    })

    it('malformed ids are 404 on both paths; a JSON content type with no body is fine', async () => {
      for (const url of ['/api/v1/links/abc', '/links/abc/destroy', '/api/v1/links/-1', '/links/0/destroy']) {
        const res = await a.api.del(url)
        expect(res.statusCode).toBe(404)
        expect(res.json()).toMatchObject({ error: 1, status: 404 })
      }
      const made = (await post(a, form([['url', 'https://example.com/']]))).json().data
      const res = await a.api.del(`/links/${made.id}/destroy`, { 'content-type': 'application/json' })
      expect(res.statusCode).toBe(200)
    })

    it('needs a key', async () => {
      const res = await t.api().del('/links/1/destroy')
      expect(res.statusCode).toBe(401)
      expect(res.json()).toEqual({ error: 1, message: expect.any(String), status: 401 })
    })
  })

  describe('one store, two doors', () => {
    it('a link written through v1 reads back identically through the management interface', async () => {
      const name = alias()
      const v1 = (
        await post(
          a,
          form([
            ['url', 'https://example.com/both'],
            ['domain', fx.domain.id],
            ['alias', name],
            ['password', 'pw-12345'],
            ['space', fx.space.id],
            ['pixels[]', fx.pixel.id],
            ['privacy', '0'],
            ['expiration_url', 'https://expired.example/'],
            ['expiration_date', '2099-03-04'],
            ['expiration_time', '05:06'],
            ['expiration_clicks', '9'],
            ['country[0][key]', 'US'],
            ['country[0][value]', 'https://us.example/'],
            ['platform[0][key]', 'OS X'],
            ['platform[0][value]', 'https://mac.example/'],
            ['language[0][key]', 'fr'],
            ['language[0][value]', 'https://fr.example/'],
            ['rotation[0][value]', 'https://r1.example/'],
          ]),
        )
      ).json().data
      const res = await a.api.get(`/api/url/${v1.id}?full=1`)
      expect(res.statusCode).toBe(200)
      expect(res.json().details).toMatchObject({
        id: v1.id,
        shorturl: `https://go.example/${name}`,
        longurl: 'https://example.com/both',
        location: { US: 'https://us.example/' },
        device: { 'OS X': 'https://mac.example/' },
        language: { fr: 'https://fr.example/' },
        rotation: ['https://r1.example/'],
        expiry: '2099-03-04 05:06:00',
        alias: name,
        domain: 'https://go.example',
        status: 'public',
        privacy: 0,
        password: true,
        disabled: false,
        pixels: [fx.pixel.id],
        channels: [fx.space.id],
        expiration_url: 'https://expired.example/',
        expiration_clicks: 9,
      })
      const list = await a.api.get(`/api/urls?q=${name}`)
      expect(list.json().data.urls).toEqual([
        { id: v1.id, alias: name, shorturl: `https://go.example/${name}`, longurl: 'https://example.com/both', clicks: 0, title: '', description: '', date: v1.created_at },
      ])
    })

    it('a link written through the management interface reads back identically through v1', async () => {
      const name = alias()
      const made = await a.api.post('/api/url/add', {
        url: 'https://example.com/mgmt',
        custom: name,
        domain: 'https://go.example',
        password: 'pw-12345',
        expiry: '2099-05-06 07:08:09',
        status: 'public',
        channel: fx.space2.id,
        pixels: [fx.pixel2.id, fx.pixel.id],
        geotarget: [{ location: 'DE', link: 'https://de.example/' }],
        devicetarget: [{ device: 'iPhone', link: 'https://iphone.example/' }],
        languagetarget: [{ language: 'es', link: 'https://es.example/' }],
      })
      expect(made.statusCode).toBe(200)
      const id = made.json().id
      const res = await a.api.get(`/api/v1/links/${id}`)
      expect(res.json()).toEqual({
        error: 0,
        data: plainLink({
          id,
          alias: name,
          url: 'https://example.com/mgmt',
          short_url: `https://go.example/${name}`,
          target_type: 1,
          country_target: [{ key: 'DE', value: 'https://de.example/' }],
          platform_target: [{ key: 'iPhone', value: 'https://iphone.example/' }],
          language_target: [{ key: 'es', value: 'https://es.example/' }],
          password: true,
          privacy: 0,
          space: fx.space2,
          domain: fx.domain,
          pixels: [fx.pixel, fx.pixel2],
          ends_at: '2099-05-06 07:08:09',
        }),
        status: 200,
      })
      // and a v1 update is seen by the management interface
      await put(a, id, form([['disabled', '1'], ['privacy', '1']]))
      expect((await a.api.get(`/api/url/${id}?full=1`)).json().details).toMatchObject({ disabled: true, status: 'private', privacy: 1 })
      // deleting through one door deletes it for the other
      expect((await a.api.del(`/api/url/${id}/delete`)).statusCode).toBe(200)
      expect((await a.api.get(`/api/v1/links/${id}`)).statusCode).toBe(404)
    })
  })
})

describe('link interface v1: rate limit', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await testApp({ V1_RATE_LIMIT_MAX: '3', RATE_LIMIT_MAX: '2' })
  })
  afterAll(() => t.close())

  it('spends its own budget, V1_RATE_LIMIT_MAX, with the headers and a 429 in the v1 shape', async () => {
    const u = await t.makeUser()
    const remaining: string[] = []
    for (let i = 0; i < 3; i++) {
      const res = await u.api.get('/api/v1/links')
      expect(res.statusCode).toBe(200)
      expect(res.headers['x-ratelimit-limit']).toBe('3')
      expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000 - 1)
      remaining.push(String(res.headers['x-ratelimit-remaining']))
    }
    expect(remaining).toEqual(['2', '1', '0'])
    const limited = await u.api.post('/api/v1/links', 'url=https://example.com/', FORM)
    expect(limited.statusCode).toBe(429)
    expect(limited.json()).toEqual({ error: 1, message: expect.stringMatching(/Rate limit/), status: 429 })
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0)
    // the management interface has a budget of its own
    const mgmt = await u.api.get('/api/account')
    expect(mgmt.statusCode).toBe(200)
    expect(mgmt.headers['x-ratelimit-limit']).toBe('2')
    // and another key is not limited by this one
    expect((await (await t.makeUser()).api.get('/api/v1/links')).statusCode).toBe(200)
  })
})
