import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { asc, eq } from 'drizzle-orm'
import { domains, links } from '../../src/db/schema/index.js'
import { appWith, expectError, type TestApp, type TestUser } from '../helpers/app.js'
import { countRows, created, rowById } from '../helpers/fixtures.js'

describe('branded domains', () => {
  let t: TestApp
  let pro: TestUser
  let other: TestUser

  beforeAll(async () => { [t, pro, other] = await appWith({ plan: 'pro' }, { plan: 'pro' }) })
  afterAll(() => t.close())

  const domainCount = () => countRows(t, domains)
  const domainRow = (id: number) => rowById(t, domains, id)
  const addDomain = async (u: TestUser, body: Record<string, unknown>) => (await created(u, '/api/domain/add', body)).id
  const insertLink = async (userId: number, alias: string, domainId: number | null) =>
    (await t.app.db.insert(links).values({ userId, alias, url: `https://example.com/${alias}`, domainId }).returning())[0]

  describe('POST /api/domain/add and GET /api/domains', () => {
    it('adds a domain, normalised, and lists it with its redirects', async () => {
      const u = await t.makeUser({ plan: 'pro' })
      const res = await u.api.post('/api/domain/add', {
        domain: '  HTTPS://Go.Example.COM/ ',
        redirectroot: 'https://example.com/home',
        redirect404: 'https://example.com/missing',
      })
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({ error: 0, id: expect.any(Number) })
      const id = res.json().id
      expect(await domainRow(id)).toMatchObject({ userId: u.user.id, domain: 'https://go.example.com', host: 'go.example.com' })

      const second = await addDomain(u, { domain: 'http://links.example.org:8080' })
      const list = await u.api.get('/api/domains')
      expect(list.statusCode).toBe(200)
      expect(list.json()).toEqual({
        error: '0',
        data: {
          result: 2,
          perpage: 15,
          currentpage: 1,
          nextpage: 1,
          maxpage: 1,
          domains: [
            { id: second, domain: 'http://links.example.org:8080', redirectroot: '', redirect404: '' },
            { id, domain: 'https://go.example.com', redirectroot: 'https://example.com/home', redirect404: 'https://example.com/missing' },
          ],
        },
      })
      expect((await domainRow(second)).host).toBe('links.example.org:8080')
    })

    it('stores an international domain in punycode and drops a default port', async () => {
      const u = await t.makeUser({ plan: 'pro' })
      const a = await addDomain(u, { domain: 'https://bücher.example' })
      const b = await addDomain(u, { domain: 'https://short.example.net:443/' })
      expect(await domainRow(a)).toMatchObject({ domain: 'https://xn--bcher-kva.example', host: 'xn--bcher-kva.example' })
      expect(await domainRow(b)).toMatchObject({ domain: 'https://short.example.net', host: 'short.example.net' })
    })

    it('treats "", null and false redirects as absent', async () => {
      const u = await t.makeUser({ plan: 'pro' })
      const id = await addDomain(u, { domain: 'https://blank.example.com', redirectroot: '', redirect404: null })
      expect(await domainRow(id)).toMatchObject({ redirectRoot: null, redirect404: null })
      const list = await u.api.get('/api/domains')
      expect(list.json().data.domains).toEqual([{ id, domain: 'https://blank.example.com', redirectroot: '', redirect404: '' }])
    })

    it('paginates', async () => {
      const u = await t.makeUser({ plan: 'pro' })
      for (const n of [1, 2, 3]) await addDomain(u, { domain: `https://page${n}.example.com` })
      const res = await u.api.get('/api/domains?limit=2&page=2')
      expect(res.json()).toEqual({
        error: '0',
        data: {
          result: 3,
          perpage: 2,
          currentpage: 2,
          nextpage: 2,
          maxpage: 2,
          domains: [{ id: expect.any(Number), domain: 'https://page1.example.com', redirectroot: '', redirect404: '' }],
        },
      })
      const past = await u.api.get('/api/domains?limit=2&page=9')
      expect(past.json().data).toMatchObject({ result: 3, currentpage: 9, nextpage: 2, maxpage: 2, domains: [] })
    })

    it('refuses a domain already added, whatever its case, trailing slash, scheme or owner (409)', async () => {
      const u = await t.makeUser({ plan: 'pro' })
      await addDomain(u, { domain: 'https://taken.example.com' })
      const before = await domainCount()
      for (const [who, domain] of [
        [u, 'https://taken.example.com'],
        [u, 'HTTPS://TAKEN.EXAMPLE.COM/'],
        [u, 'http://taken.example.com'],
        [other, 'https://Taken.Example.com'],
      ] as const) {
        expectError(await who.api.post('/api/domain/add', { domain }), 409, /already been added/)
      }
      expect(await domainCount()).toBe(before)
    })

    const long = `https://${'a'.repeat(64)}.com`
    it.each([
      { name: 'no domain', body: {}, message: /domain/ },
      { name: 'a number', body: { domain: 42 }, message: /domain must be a string/ },
      { name: 'an array', body: { domain: ['https://a.example.com'] }, message: /domain must be a string/ },
      { name: 'an empty string', body: { domain: '' }, message: /domain must start with http/ },
      { name: 'no scheme', body: { domain: 'go.example.com' }, message: /must start with http/ },
      { name: 'an ftp URL', body: { domain: 'ftp://go.example.com' }, message: /must start with http/ },
      { name: 'javascript:', body: { domain: 'javascript:alert(1)' }, message: /must start with http/ },
      { name: 'a path', body: { domain: 'https://go.example.com/path' }, message: /no path/ },
      { name: 'a query', body: { domain: 'https://go.example.com/?a=1' }, message: /no path, query/ },
      { name: 'a bare query mark', body: { domain: 'https://go.example.com?' }, message: /no path, query/ },
      { name: 'a fragment', body: { domain: 'https://go.example.com#top' }, message: /fragment/ },
      { name: 'credentials', body: { domain: 'https://user:pass@go.example.com' }, message: /user name or password/ },
      { name: 'an IPv4 address', body: { domain: 'https://203.0.113.7' }, message: /not an IP address/ },
      { name: 'a hex IPv4 address', body: { domain: 'http://0x7f.1' }, message: /not an IP address/ },
      { name: 'an IPv6 address', body: { domain: 'https://[::1]' }, message: /not an IP address/ },
      { name: 'localhost', body: { domain: 'http://localhost' }, message: /full domain name/ },
      { name: 'a trailing dot', body: { domain: 'https://go.example.com.' }, message: /^domain must not end with a dot: write go\.example\.com, without the dot after it\.$/ },
      { name: 'port 0', body: { domain: 'https://a.example:0' }, message: /^domain must not name port 0: leave the port out, or name one from 1 to 65535\.$/ },
      { name: 'an underscore host', body: { domain: 'https://go_x.example.com' }, message: /full domain name/ },
      { name: 'a space', body: { domain: 'https://go .example.com' }, message: /spaces or control/ },
      { name: 'a control character', body: { domain: 'https://go\u0000.example.com' }, message: /spaces or control/ },
      { name: 'markup', body: { domain: 'https://"><script>alert(1)</script>.com' }, message: /no path|full domain name/ },
      { name: 'a label over 63 characters', body: { domain: long }, message: /^domain has a part longer than 63 characters \(a{20}…\): each part between dots may have at most 63\.$/ },
      { name: 'over 300 characters', body: { domain: `https://${'a'.repeat(300)}.com` }, message: /at most 300/ },
      { name: 'the service’s own domain', body: { domain: 'https://kurz.test' }, message: /default domain/ },
      { name: 'the service’s own domain with www', body: { domain: 'http://WWW.kurz.test/' }, message: /default domain/ },
      { name: 'a javascript: redirectroot', body: { domain: 'https://ok1.example.com', redirectroot: 'javascript:alert(1)' }, message: /^redirectroot is refused: the javascript: scheme is not allowed\.$/ },
      { name: 'a relative redirect404', body: { domain: 'https://ok2.example.com', redirect404: '/missing' }, message: /redirect404 must be an absolute URL/ },
      { name: 'a numeric redirectroot', body: { domain: 'https://ok3.example.com', redirectroot: 7 }, message: /redirectroot must be a string/ },
      { name: 'a redirect404 with credentials', body: { domain: 'https://ok4.example.com', redirect404: 'https://a:b@example.com' }, message: /redirect404 must not contain a user name/ },
      { name: 'a redirect404 looping back', body: { domain: 'https://ok5.example.com', redirect404: 'https://OK5.example.com/x' }, message: /redirect404 must not point back/ },
      { name: 'a redirectroot over 8 KiB', body: { domain: 'https://ok6.example.com', redirectroot: `https://example.com/${'a'.repeat(8200)}` }, message: /redirectroot must be at most 8192/ },
    ])('refuses $name (400) and writes nothing', async ({ body, message }) => {
      const before = await domainCount()
      expectError(await pro.api.post('/api/domain/add', body), 400, message)
      expect(await domainCount()).toBe(before)
    })

    it('ignores mass-assigned fields', async () => {
      const u = await t.makeUser({ plan: 'pro' })
      const id = await addDomain(u, { domain: 'https://mass.example.com', userId: other.user.id, user_id: other.user.id, id: 999999, host: 'evil.example' })
      expect(await domainRow(id)).toMatchObject({ userId: u.user.id, host: 'mass.example.com' })
      expect(id).not.toBe(999999)
    })
  })

  describe('plan features', () => {
    it('Free: the first domain is allowed, a second needs "multiple" (403)', async () => {
      const u = await t.makeUser({ plan: 'free' })
      await addDomain(u, { domain: 'https://free-one.example.com' })
      const before = await domainCount()
      expectError(await u.api.post('/api/domain/add', { domain: 'https://free-two.example.com' }), 403, /"multiple"/)
      expect(await domainCount()).toBe(before)
    })

    it('a plan without "domain" refuses even the first (403 naming the feature)', async () => {
      const u = await t.makeUser({ features: { domain: { enabled: '0', count: '5' } } })
      expectError(await u.api.post('/api/domain/add', { domain: 'https://nodomain.example.com' }), 403, /"domain"/)
      expect(await u.api.get('/api/domains').then((r) => r.json().data.result)).toBe(0)
    })

    it('the domain count is enforced with "multiple" on; deleting one frees a place', async () => {
      const u = await t.makeUser({ features: { domain: { enabled: '1', count: '2' }, multiple: { enabled: '1' } } })
      const first = await addDomain(u, { domain: 'https://count1.example.com' })
      await addDomain(u, { domain: 'https://count2.example.com' })
      expectError(await u.api.post('/api/domain/add', { domain: 'https://count3.example.com' }), 403, /"domain"/)
      expect((await u.api.del(`/api/domain/${first}/delete`)).statusCode).toBe(200)
      await addDomain(u, { domain: 'https://count3.example.com' })
    })

    it('a count of "0" means unlimited, and admins are never limited', async () => {
      const u = await t.makeUser({ features: { domain: { enabled: '1', count: '0' }, multiple: { enabled: '1' } } })
      for (const n of [1, 2, 3, 4, 5, 6]) await addDomain(u, { domain: `https://unl${n}.example.com` })
      const admin = await t.makeUser({ plan: 'free', admin: true })
      await addDomain(admin, { domain: 'https://admin1.example.com' })
      await addDomain(admin, { domain: 'https://admin2.example.com' })
    })
  })

  describe('PUT /api/domain/:id/update', () => {
    it('changes the redirects sent, keeps the others, and clears with "" or null', async () => {
      const id = await addDomain(pro, { domain: 'https://upd.example.com', redirectroot: 'https://example.com/r', redirect404: 'https://example.com/404' })
      const res = await pro.api.put(`/api/domain/${id}/update`, { redirectroot: 'https://example.com/new-root' })
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({ error: 0, message: 'Domain has been updated successfully.' })
      expect(await domainRow(id)).toMatchObject({ redirectRoot: 'https://example.com/new-root', redirect404: 'https://example.com/404' })

      await pro.api.put(`/api/domain/${id}/update`, { redirect404: '' })
      expect(await domainRow(id)).toMatchObject({ redirectRoot: 'https://example.com/new-root', redirect404: null })
      await pro.api.put(`/api/domain/${id}/update`, { redirectroot: null, redirect404: 'tg://resolve?domain=kurz' })
      expect(await domainRow(id)).toMatchObject({ redirectRoot: null, redirect404: 'tg://resolve?domain=kurz' })

      const empty = await pro.api.put(`/api/domain/${id}/update`, {})
      expect(empty.json()).toEqual({ error: 0, message: 'Domain has been updated successfully.' })
      const list = await pro.api.get('/api/domains?limit=1000')
      expect(list.json().data.domains).toContainEqual({ id, domain: 'https://upd.example.com', redirectroot: '', redirect404: 'tg://resolve?domain=kurz' })
    })

    it('takes an empty body with a JSON content type as {}', async () => {
      const id = await addDomain(pro, { domain: 'https://emptybody.example.com' })
      const res = await t.app.inject({ method: 'PUT', url: `/api/domain/${id}/update`, headers: { authorization: `Bearer ${pro.key}`, 'content-type': 'application/json' } })
      expect(res.statusCode).toBe(200)
    })

    it.each([
      { name: 'a javascript: URL', body: { redirectroot: 'JaVaScRiPt:alert(1)' }, message: /^redirectroot is refused: the javascript: scheme is not allowed\.$/ },
      { name: 'a data: URL', body: { redirect404: 'data:text/html,<script>alert(1)</script>' }, message: /^redirect404 is refused: the data: scheme is not allowed\.$/ },
      { name: 'a number', body: { redirect404: 404 }, message: /redirect404 must be a string/ },
      { name: 'a URL with a control character', body: { redirectroot: 'https://example.com/\u0007' }, message: /control characters/ },
      { name: 'a loop back to the domain', body: { redirectroot: 'https://www.same.example.com/' }, message: /must not point back/ },
    ])('refuses $name (400) and changes nothing', async ({ body, message }) => {
      const id = (await t.app.db.select().from(domains).where(eq(domains.host, 'same.example.com')))[0]?.id ??
        (await addDomain(pro, { domain: 'https://same.example.com', redirectroot: 'https://example.com/kept' }))
      const before = await domainRow(id)
      expectError(await pro.api.put(`/api/domain/${id}/update`, body), 400, message)
      expect(await domainRow(id)).toEqual(before)
    })
  })

  describe('DELETE /api/domain/:id/delete', () => {
    it('deletes the domain and moves its links to the default domain', async () => {
      const u = await t.makeUser({ plan: 'pro' })
      const id = await addDomain(u, { domain: 'https://gone.example.com' })
      const a = await insertLink(u.user.id, 'gone-a', id)
      const b = await insertLink(u.user.id, 'gone-b', id)
      const res = await u.api.del(`/api/domain/${id}/delete`)
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({ error: 0, message: 'Domain has been deleted successfully; its links moved to the default domain.' })
      expect(await domainRow(id)).toBeUndefined()
      const moved = await t.app.db.select().from(links).where(eq(links.userId, u.user.id)).orderBy(asc(links.id))
      expect(moved.map((l) => [l.id, l.alias, l.domainId])).toEqual([
        [a.id, 'gone-a', null],
        [b.id, 'gone-b', null],
      ])
      expect((await u.api.get('/api/domains')).json().data.result).toBe(0)
    })

    it('gives a moving link whose alias is taken on the default domain the first free <alias>-<n>', async () => {
      const u = await t.makeUser({ plan: 'pro' })
      const id = await addDomain(u, { domain: 'https://clash.example.com' })
      // the default domain already has "promo" (another user's) and "promo-2"; the branded domain has "promo-3"
      await insertLink(other.user.id, 'promo', null)
      await insertLink(u.user.id, 'promo-2', null)
      const clash = await insertLink(u.user.id, 'promo', id)
      const sibling = await insertLink(u.user.id, 'promo-3', id)
      const longAlias = 'x'.repeat(64)
      await insertLink(other.user.id, longAlias, null)
      const longClash = await insertLink(u.user.id, longAlias, id)

      const res = await u.api.del(`/api/domain/${id}/delete`)
      expect(res.json()).toEqual({
        error: 0,
        message: 'Domain has been deleted successfully; its links moved to the default domain (2 of them got a new alias because theirs was already taken there).',
      })
      const row = async (linkId: number) => (await t.app.db.select().from(links).where(eq(links.id, linkId)))[0]
      expect(await row(clash.id)).toMatchObject({ alias: 'promo-4', domainId: null, userId: u.user.id })
      expect(await row(sibling.id)).toMatchObject({ alias: 'promo-3', domainId: null })
      expect(await row(longClash.id)).toMatchObject({ alias: `${'x'.repeat(62)}-2`, domainId: null })
    })

    it('leaves other domains’ links alone', async () => {
      const u = await t.makeUser({ plan: 'pro' })
      const keep = await addDomain(u, { domain: 'https://keep.example.com' })
      const drop = await addDomain(u, { domain: 'https://drop.example.com' })
      const kept = await insertLink(u.user.id, 'stay', keep)
      await u.api.del(`/api/domain/${drop}/delete`)
      expect((await t.app.db.select().from(links).where(eq(links.id, kept.id)))[0].domainId).toBe(keep)
    })
  })

  describe('another account’s domain', () => {
    it('is a 404 for update and delete, and stays unchanged', async () => {
      const id = await addDomain(other, { domain: 'https://theirs.example.com', redirectroot: 'https://example.com/theirs' })
      const link = await insertLink(other.user.id, 'theirs', id)
      const before = await domainRow(id)
      expectError(await pro.api.put(`/api/domain/${id}/update`, { redirectroot: 'https://evil.example/' }), 404, /Domain not found/)
      expectError(await pro.api.put(`/api/domain/${id}/update`, {}), 404, /Domain not found/)
      expectError(await pro.api.del(`/api/domain/${id}/delete`), 404, /Domain not found/)
      expect(await domainRow(id)).toEqual(before)
      expect((await t.app.db.select().from(links).where(eq(links.id, link.id)))[0].domainId).toBe(id)
      const mine = (await pro.api.get('/api/domains?limit=1000')).json().data.domains as { id: number }[]
      expect(mine.map((d) => d.id)).not.toContain(id)
    })

    it.each(['0', '-1', 'abc', '1.5', '2147483648', '99999999999'])('a path id of %s names nothing (404)', async (id) => {
      expectError(await pro.api.put(`/api/domain/${id}/update`, {}), 404)
      expectError(await pro.api.del(`/api/domain/${id}/delete`), 404)
    })

    it('an unknown id is a 404', async () => {
      expectError(await pro.api.del('/api/domain/2147483647/delete'), 404, /Domain not found/)
    })
  })

  it('needs a key (401)', async () => {
    expectError(await t.api().get('/api/domains'), 401)
    expectError(await t.api().post('/api/domain/add', { domain: 'https://nokey.example.com' }), 401)
  })
})

describe('branded domains: visits follow changes at once (redirect cache)', () => {
  let t: TestApp
  let u: TestUser
  beforeAll(async () => { [t, u] = await appWith({ plan: 'pro' }) })
  afterAll(() => t.close())

  const visit = (host: string, path: string) => t.app.inject({ method: 'GET', url: path, headers: { host } })
  const shorten = (body: Record<string, unknown>) => created<{ id: number; shorturl: string }>(u, '/api/url/add', body)

  it('a host first seen as unknown serves its links once it is added', async () => {
    expect((await visit('go.visit.example', '/')).statusCode).toBe(200) // home page: not a branded domain yet
    const res = await u.api.post('/api/domain/add', { domain: 'https://go.visit.example', redirectroot: 'https://example.com/root' })
    expect(res.statusCode).toBe(200)
    const root = await visit('go.visit.example', '/')
    expect(root.statusCode).toBe(302)
    expect(root.headers.location).toBe('https://example.com/root')
  })

  it('redirectroot and redirect404 changes apply to the next visit', async () => {
    const id = (await u.api.post('/api/domain/add', { domain: 'https://r.visit.example', redirectroot: 'https://example.com/a', redirect404: 'https://example.com/404a' })).json().id
    expect((await visit('r.visit.example', '/')).headers.location).toBe('https://example.com/a')
    expect((await visit('r.visit.example', '/nothing-here')).headers.location).toBe('https://example.com/404a')
    await u.api.put(`/api/domain/${id}/update`, { redirectroot: 'https://example.com/b', redirect404: '' })
    expect((await visit('r.visit.example', '/')).headers.location).toBe('https://example.com/b')
    expect((await visit('r.visit.example', '/nothing-here')).statusCode).toBe(404)
  })

  it('after a delete, the links answer on the default domain (renamed ones under their new alias)', async () => {
    const id = (await u.api.post('/api/domain/add', { domain: 'https://d.visit.example' })).json().id
    const branded = await shorten({ url: 'https://example.com/branded', domain: 'https://d.visit.example', custom: 'moving' })
    const clash = await shorten({ url: 'https://example.com/clash-branded', domain: 'https://d.visit.example', custom: 'clashing' })
    await shorten({ url: 'https://example.com/clash-default', custom: 'clashing' })
    expect(branded.shorturl).toBe('https://d.visit.example/moving')
    // warm the cache with the branded entries
    expect((await visit('d.visit.example', '/moving')).headers.location).toBe('https://example.com/branded')
    expect((await visit('d.visit.example', '/clashing')).headers.location).toBe('https://example.com/clash-branded')

    expect((await u.api.del(`/api/domain/${id}/delete`)).statusCode).toBe(200)
    expect((await visit('kurz.test', '/moving')).headers.location).toBe('https://example.com/branded')
    expect((await visit('kurz.test', '/clashing')).headers.location).toBe('https://example.com/clash-default')
    expect((await visit('kurz.test', '/clashing-2')).headers.location).toBe('https://example.com/clash-branded')
    const read = await u.api.get(`/api/url/${clash.id}`)
    expect(read.json().details.shorturl).toBe('http://kurz.test/clashing-2')
  })
})
