import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { campaigns, domains, links } from '../../src/db/schema/index.js'
import { toDay } from '../../src/http/format.js'
import { appWith, expectError, type TestApp, type TestUser } from '../helpers/app.js'
import { countRows, created, rowById } from '../helpers/fixtures.js'

const HOSTILE = '"><script>alert(1)</script><img src=x onerror=alert(2)>'

describe('campaigns', () => {
  let t: TestApp
  let me: TestUser
  let other: TestUser

  beforeAll(async () => { [t, me, other] = await appWith({ plan: 'free' }, { plan: 'free' }) })
  afterAll(() => t.close())

  const base = 'http://kurz.test'
  const listUrl = (u: TestUser, id: number) => `${base}/u/${u.user.username}/${id}`
  const campaignCount = () => countRows(t, campaigns)
  const campaignRow = (id: number) => rowById(t, campaigns, id)
  const linkRow = (id: number) => rowById(t, links, id)
  let aliasSeq = 0
  const insertLink = async (userId: number, over: Partial<typeof links.$inferInsert> = {}) =>
    (await t.app.db.insert(links).values({ userId, alias: `c${++aliasSeq}x${userId}`, url: 'https://example.com/long', ...over }).returning())[0]
  const addCampaign = (u: TestUser, body: Record<string, unknown>) => created(u, '/api/campaign/add', body)

  describe('POST /api/campaign/add and GET /api/campaigns', () => {
    it('creates a campaign and lists it with name, domain, public, rotator and list', async () => {
      const u = await t.makeUser()
      const res = await u.api.post('/api/campaign/add', { name: 'Summer sale', slug: 'summer-24', public: true })
      expect(res.statusCode).toBe(200)
      const id = res.json().id
      const summer = { id, name: 'Summer sale', domain: 'Summer sale', public: true, rotator: `${base}/r/summer-24`, list: listUrl(u, id) }
      expect(res.json()).toEqual({ error: 0, ...summer })

      const plain = await u.api.post('/api/campaign/add', {})
      const plainId = plain.json().id
      const defaultName = `Campaign ${toDay(new Date())}`
      expect(plain.json()).toEqual({ error: 0, id: plainId, name: defaultName, domain: defaultName, public: false, rotator: false, list: listUrl(u, plainId) })

      const list = await u.api.get('/api/campaigns')
      expect(list.statusCode).toBe(200)
      expect(list.json()).toEqual({
        error: '0',
        data: {
          result: 2,
          perpage: 15,
          currentpage: 1,
          nextpage: 1,
          maxpage: 1,
          campaigns: [{ id: plainId, name: defaultName, domain: defaultName, public: false, rotator: false, list: listUrl(u, plainId) }, summer],
        },
      })
    })

    it('names a campaign after its slug when no name is sent, and takes "" / null / false as absent', async () => {
      const a = await addCampaign(me, { slug: 'only-slug', name: '' })
      expect(a).toMatchObject({ name: 'only-slug', domain: 'only-slug', public: false, rotator: `${base}/r/only-slug` })
      const b = await addCampaign(me, { name: null, slug: false, public: null })
      expect(b).toMatchObject({ name: `Campaign ${toDay(new Date())}`, public: false, rotator: false })
    })

    it.each([
      [true, true],
      [1, true],
      ['1', true],
      ['true', true],
      [false, false],
      [0, false],
      ['0', false],
      ['false', false],
    ])('reads public %j as %s', async (value, expected) => {
      expect(await addCampaign(me, { name: 'flag', public: value })).toMatchObject({ public: expected })
    })

    it('stores markup in a name as data and returns it unchanged', async () => {
      const c = await addCampaign(me, { name: HOSTILE })
      expect(c).toMatchObject({ name: HOSTILE, domain: HOSTILE })
      expect((await campaignRow(c.id)).name).toBe(HOSTILE)
    })

    it('refuses a slug already taken by anyone (409); slugs are case-sensitive', async () => {
      await addCampaign(other, { name: 'theirs', slug: 'taken-slug' })
      const before = await campaignCount()
      expectError(await me.api.post('/api/campaign/add', { name: 'mine', slug: 'taken-slug' }), 409, /slug is already taken/)
      expectError(await other.api.post('/api/campaign/add', { name: 'again', slug: ' taken-slug ' }), 409, /slug is already taken/)
      expect(await campaignCount()).toBe(before)
      expect(await addCampaign(me, { slug: 'Taken-Slug' })).toMatchObject({ rotator: `${base}/r/Taken-Slug` })
    })

    it.each([
      { name: 'a numeric name', body: { name: 12 }, message: /name must be a string/ },
      { name: 'an array name', body: { name: ['a'] }, message: /name must be a string/ },
      { name: 'a name over 255 characters', body: { name: 'n'.repeat(256) }, message: /name must be at most 255/ },
      { name: 'a name with a control character', body: { name: 'bad\u0007name' }, message: /control characters/ },
      { name: 'a name with an escape sequence', body: { name: 'bad\u001b[2Jname' }, message: /control characters/ },
      { name: 'a 2-character slug', body: { slug: 'ab' }, message: /slug must be 3 to 64/ },
      { name: 'a 65-character slug', body: { slug: 's'.repeat(65) }, message: /slug must be 3 to 64/ },
      { name: 'a slug with a space', body: { slug: 'two words' }, message: /slug must be 3 to 64/ },
      { name: 'a slug with a slash', body: { slug: '../etc' }, message: /slug must be 3 to 64/ },
      { name: 'a slug with markup', body: { slug: '<script>' }, message: /slug must be 3 to 64/ },
      { name: 'a unicode slug', body: { slug: 'über' }, message: /slug must be 3 to 64/ },
      { name: 'an encoded slug', body: { slug: 'a%2Fb' }, message: /slug must be 3 to 64/ },
      { name: 'a numeric slug', body: { slug: 12345 }, message: /slug must be a string/ },
      { name: 'public "yes"', body: { public: 'yes' }, message: /public must be true or false/ },
      { name: 'public 2', body: { public: 2 }, message: /public must be true or false/ },
      { name: 'public {}', body: { public: {} }, message: /public must be true or false/ },
    ])('refuses $name (400) and writes nothing', async ({ body, message }) => {
      const before = await campaignCount()
      expectError(await me.api.post('/api/campaign/add', body), 400, message)
      expect(await campaignCount()).toBe(before)
    })

    it('ignores mass-assigned fields', async () => {
      const c = await addCampaign(me, { name: 'mass', userId: other.user.id, user_id: other.user.id, id: 777777 })
      expect(await campaignRow(c.id)).toMatchObject({ userId: me.user.id })
      expect(c.id).not.toBe(777777)
    })

    it('a plan without "bundle" refuses create and assign (403) but still lists', async () => {
      const u = await t.makeUser({ features: { bundle: { enabled: '0' } } })
      const [c] = await t.app.db.insert(campaigns).values({ userId: u.user.id, name: 'from before' }).returning()
      const link = await insertLink(u.user.id)
      const before = await campaignCount()
      expectError(await u.api.post('/api/campaign/add', { name: 'nope' }), 403, /"bundle"/)
      expectError(await u.api.post(`/api/campaign/${c.id}/assign/${link.id}`), 403, /"bundle"/)
      expect(await campaignCount()).toBe(before)
      expect((await linkRow(link.id)).campaignId).toBeNull()
      const list = await u.api.get('/api/campaigns')
      expect(list.json().data.campaigns).toEqual([
        { id: c.id, name: 'from before', domain: 'from before', public: false, rotator: false, list: listUrl(u, c.id) },
      ])
    })
  })

  describe('POST /api/campaign/:campaignid/assign/:linkid', () => {
    it('puts a link in a campaign, and assigning it elsewhere moves it', async () => {
      const a = await addCampaign(me, { name: 'A' })
      const b = await addCampaign(me, { name: 'B' })
      const link = await insertLink(me.user.id)
      const res = await me.api.post(`/api/campaign/${a.id}/assign/${link.id}`)
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({ error: 0, message: 'Link has been added to the campaign successfully.' })
      expect((await linkRow(link.id)).campaignId).toBe(a.id)
      // with an empty JSON body, as real clients send it
      const again = await t.app.inject({
        method: 'POST',
        url: `/api/campaign/${b.id}/assign/${link.id}`,
        headers: { authorization: `Bearer ${me.key}`, 'content-type': 'application/json' },
      })
      expect(again.statusCode).toBe(200)
      expect((await linkRow(link.id)).campaignId).toBe(b.id)
      expect((await me.api.post(`/api/campaign/${b.id}/assign/${link.id}`)).statusCode).toBe(200)
      expect((await linkRow(link.id)).campaignId).toBe(b.id)
    })

    it('refuses another account’s link or campaign (404) and changes nothing', async () => {
      const mine = await addCampaign(me, { name: 'mine' })
      const theirs = await addCampaign(other, { name: 'theirs' })
      const myLink = await insertLink(me.user.id)
      const theirLink = await insertLink(other.user.id, { campaignId: theirs.id })
      expectError(await me.api.post(`/api/campaign/${mine.id}/assign/${theirLink.id}`), 404, /Link not found/)
      expectError(await me.api.post(`/api/campaign/${theirs.id}/assign/${myLink.id}`), 404, /Campaign not found/)
      expectError(await me.api.post(`/api/campaign/${theirs.id}/assign/${theirLink.id}`), 404, /Campaign not found/)
      expectError(await me.api.post(`/api/campaign/${mine.id}/assign/2147483647`), 404, /Link not found/)
      expectError(await me.api.post(`/api/campaign/0/assign/${myLink.id}`), 404)
      expectError(await me.api.post(`/api/campaign/${mine.id}/assign/abc`), 404)
      expect((await linkRow(theirLink.id)).campaignId).toBe(theirs.id)
      expect((await linkRow(myLink.id)).campaignId).toBeNull()
    })
  })

  describe('PUT /api/campaign/:id/update', () => {
    it('renames, changes the slug and visibility, and answers the campaign', async () => {
      const c = await addCampaign(me, { name: 'Old', slug: 'old-slug' })
      const res = await me.api.put(`/api/campaign/${c.id}/update`, { name: 'New', slug: 'new_slug', public: true })
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({ error: 0, id: c.id, name: 'New', domain: 'New', public: true, rotator: `${base}/r/new_slug`, list: listUrl(me, c.id) })

      const kept = await me.api.put(`/api/campaign/${c.id}/update`, { name: 'Newer' })
      expect(kept.json()).toEqual({ error: 0, id: c.id, name: 'Newer', domain: 'Newer', public: true, rotator: `${base}/r/new_slug`, list: listUrl(me, c.id) })

      const cleared = await me.api.put(`/api/campaign/${c.id}/update`, { name: 'Newer', slug: '', public: false })
      expect(cleared.json()).toMatchObject({ rotator: false, public: false })
      expect(await campaignRow(c.id)).toMatchObject({ slug: null, public: false })
      await me.api.put(`/api/campaign/${c.id}/update`, { name: 'Newer', slug: 'again-slug' })
      await me.api.put(`/api/campaign/${c.id}/update`, { name: 'Newer', slug: null })
      expect((await campaignRow(c.id)).slug).toBeNull()
      // the freed slug can be taken by someone else
      expect(await addCampaign(other, { slug: 'old-slug' })).toMatchObject({ rotator: `${base}/r/old-slug` })
    })

    it.each([
      { name: 'no name', body: { slug: 'fine-slug' }, status: 400, message: /name must not be empty/ },
      { name: 'an empty name', body: { name: '' }, status: 400, message: /name must not be empty/ },
      { name: 'a null name', body: { name: null }, status: 400, message: /name must not be empty/ },
      { name: 'a numeric name', body: { name: 5 }, status: 400, message: /name must be a string/ },
      { name: 'a bad slug', body: { name: 'x', slug: 'no' }, status: 400, message: /slug must be 3 to 64/ },
      { name: 'a bad public', body: { name: 'x', public: 'maybe' }, status: 400, message: /public must be true or false/ },
      { name: 'a slug taken by another account', body: { name: 'x', slug: 'someone-elses' }, status: 409, message: /slug is already taken/ },
    ])('refuses $name and changes nothing', async ({ body, status, message }) => {
      if (!(await t.app.db.select().from(campaigns).where(eq(campaigns.slug, 'someone-elses'))).length) {
        await addCampaign(other, { slug: 'someone-elses' })
      }
      const c = await addCampaign(me, { name: 'Stable', slug: `stable-${status}-${Object.keys(body).join('')}-${Math.random().toString(36).slice(2, 8)}` })
      const before = await campaignRow(c.id)
      expectError(await me.api.put(`/api/campaign/${c.id}/update`, body), status, message)
      expect(await campaignRow(c.id)).toEqual(before)
    })
  })

  describe('DELETE /api/campaign/:id/delete', () => {
    it('deletes the campaign; its links stay, unassigned', async () => {
      const c = await addCampaign(me, { name: 'Doomed', slug: 'doomed' })
      const link = await insertLink(me.user.id)
      await me.api.post(`/api/campaign/${c.id}/assign/${link.id}`)
      const res = await me.api.del(`/api/campaign/${c.id}/delete`)
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({ error: 0, message: 'Campaign has been deleted successfully.' })
      expect(await campaignRow(c.id)).toBeUndefined()
      expect(await linkRow(link.id)).toMatchObject({ id: link.id, campaignId: null })
      expectError(await me.api.del(`/api/campaign/${c.id}/delete`), 404, /Campaign not found/)
    })
  })

  describe('another account’s campaign', () => {
    it('is a 404 for update, delete and assign, and stays unchanged', async () => {
      const theirs = await addCampaign(other, { name: 'Theirs', slug: 'their-slug', public: true })
      const link = await insertLink(other.user.id, { campaignId: theirs.id })
      const before = await campaignRow(theirs.id)
      expectError(await me.api.put(`/api/campaign/${theirs.id}/update`, { name: 'Mine now' }), 404, /Campaign not found/)
      expectError(await me.api.del(`/api/campaign/${theirs.id}/delete`), 404, /Campaign not found/)
      expect(await campaignRow(theirs.id)).toEqual(before)
      expect((await linkRow(link.id)).campaignId).toBe(theirs.id)
      const mine = (await me.api.get('/api/campaigns?limit=1000')).json().data.campaigns as { id: number }[]
      expect(mine.map((c) => c.id)).not.toContain(theirs.id)
    })

    it.each(['0', '-3', 'x', '2147483648'])('a path id of %s names nothing (404)', async (id) => {
      expectError(await me.api.put(`/api/campaign/${id}/update`, { name: 'n' }), 404)
      expectError(await me.api.del(`/api/campaign/${id}/delete`), 404)
    })
  })

  describe('GET /u/:username/:id – the public list page', () => {
    it('lists the links a visitor can open, escaped, with a strict CSP', async () => {
      const u = await t.makeUser({ username: 'Lister_01' })
      const c = await addCampaign(u, { name: HOSTILE, public: true })
      const [domain] = await t.app.db.insert(domains).values({ userId: u.user.id, domain: 'https://go.lister.example', host: 'go.lister.example' }).returning()
      await insertLink(u.user.id, { alias: 'titled', title: `${HOSTILE} & more`, campaignId: c.id })
      await insertLink(u.user.id, { alias: 'branded', domainId: domain.id, metaTitle: 'Meta title', campaignId: c.id, url: 'https://secret.example/long' })
      await insertLink(u.user.id, { alias: 'disabled', title: 'Hidden disabled', disabled: true, campaignId: c.id })
      await insertLink(u.user.id, { alias: 'expired', title: 'Hidden expired', expiresAt: new Date(Date.now() - 60_000), campaignId: c.id })
      await insertLink(u.user.id, { alias: 'used-up', title: 'Hidden used up', expirationClicks: 3, clicks: 3, campaignId: c.id })
      await insertLink(u.user.id, { alias: 'held', title: 'Hidden quarantined', quarantined: true, campaignId: c.id })
      await insertLink(u.user.id, { alias: 'elsewhere', title: 'Not in the campaign' })

      const res = await t.api().get(`/u/lister_01/${c.id}`)
      expect(res.statusCode).toBe(200)
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
      expect(res.headers['content-security-policy']).toContain("script-src 'none'")
      expect(res.headers['content-security-policy']).toContain("default-src 'none'")
      const body = res.body
      expect(body).not.toContain('<script>')
      expect(body).not.toContain('<img src=x')
      expect(body).toContain('&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;')
      expect(body).toContain(`<a href="${base}/titled" rel="noopener">&quot;&gt;&lt;script&gt;`)
      expect(body).toContain('&amp; more')
      expect(body).toContain('<a href="https://go.lister.example/branded" rel="noopener">Meta title</a>')
      expect(body).not.toContain('secret.example')
      for (const hidden of ['Hidden disabled', 'Hidden expired', 'Hidden used up', 'Hidden quarantined', 'Not in the campaign']) expect(body).not.toContain(hidden)
      expect(body).toContain('2 links shared by Lister_01')
    })

    it('is a 404 page for a private campaign, another username, or a bad id', async () => {
      const u = await t.makeUser({ username: 'private_lister' })
      const priv = await addCampaign(u, { name: 'Private', public: false })
      const pub = await addCampaign(u, { name: 'Public', public: true })
      for (const path of [
        `/u/private_lister/${priv.id}`,
        `/u/${other.user.username}/${pub.id}`,
        `/u/nobody-here/${pub.id}`,
        '/u/private_lister/0',
        '/u/private_lister/abc',
        '/u/private_lister/99999999999',
        `/u/private_lister/${pub.id}x`,
        // a NUL reached the database, which cannot compare one: a 500 before
        `/u/private_lister%00/${pub.id}`,
        `/u/pri%00vate/${pub.id}`,
      ]) {
        const res = await t.api().get(path)
        expect(res.statusCode, path).toBe(404)
        expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
        expect(res.headers['content-security-policy']).toContain("default-src 'none'")
      }
      expect((await t.api().get(`/u/private_lister/${pub.id}`)).statusCode).toBe(200)
      // making it private takes the page down
      await u.api.put(`/api/campaign/${pub.id}/update`, { name: 'Public', public: false })
      expect((await t.api().get(`/u/private_lister/${pub.id}`)).statusCode).toBe(404)
    })

    it('pages through long campaigns, 100 links a page', async () => {
      const u = await t.makeUser({ username: 'pager_user' })
      const c = await addCampaign(u, { name: 'Big', public: true })
      await t.app.db.insert(links).values(
        Array.from({ length: 105 }, (_, i) => ({ userId: u.user.id, alias: `big-${i}`, url: 'https://example.com/', title: `Big ${i}`, campaignId: c.id })),
      )
      const first = await t.api().get(`/u/pager_user/${c.id}`)
      expect(first.body).toContain('105 links shared by pager_user')
      expect(first.body).toContain(`<a href="/u/pager_user/${c.id}?page=2">Next</a>`)
      expect((first.body.match(/<li>/g) ?? []).length).toBe(100)
      const second = await t.api().get(`/u/pager_user/${c.id}?page=2`)
      expect((second.body.match(/<li>/g) ?? []).length).toBe(5)
      expect(second.body).toContain('Page 2 of 2')
    })
  })

  it('needs a key (401)', async () => {
    expectError(await t.api().get('/api/campaigns'), 401)
    expectError(await t.api().post('/api/campaign/add', { name: 'x' }), 401)
  })
})

describe('campaigns: the rotator follows assignments at once (redirect cache)', () => {
  let t: TestApp
  let u: TestUser
  beforeAll(async () => { [t, u] = await appWith({}) })
  afterAll(() => t.close())

  const visit = (path: string) => t.app.inject({ method: 'GET', url: path, headers: { host: 'kurz.test' } })

  it('a link assigned to another campaign leaves the first rotator', async () => {
    const a = (await u.api.post('/api/campaign/add', { name: 'A', slug: 'rot-a' })).json().id
    const b = (await u.api.post('/api/campaign/add', { name: 'B', slug: 'rot-b' })).json().id
    const link = await u.api.post('/api/url/add', { url: 'https://example.com/rotated', custom: 'rotated' })
    expect(link.statusCode, link.body).toBe(200)
    expect((await visit('/r/rot-a')).statusCode).toBe(404)
    await u.api.post(`/api/campaign/${a}/assign/${link.json().id}`)
    const first = await visit('/r/rot-a')
    expect(first.statusCode).toBe(302)
    expect(first.headers.location).toBe('https://example.com/rotated')
    await u.api.post(`/api/campaign/${b}/assign/${link.json().id}`)
    expect((await visit('/r/rot-a')).statusCode).toBe(404)
    expect((await visit('/r/rot-b')).headers.location).toBe('https://example.com/rotated')
    // clearing the slug takes the rotator down; deleting the campaign keeps the link
    await u.api.put(`/api/campaign/${b}/update`, { name: 'B', slug: '' })
    expect((await visit('/r/rot-b')).statusCode).toBe(404)
    await u.api.del(`/api/campaign/${b}/delete`)
    expect((await visit('/rotated')).headers.location).toBe('https://example.com/rotated')
  })
})
