import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { and, eq } from 'drizzle-orm'
import { channelItems, channels, domains, links, qrCodes } from '../../src/db/schema/index.js'
import { toDay } from '../../src/http/format.js'
import { appWith, expectError, type TestApp, type TestUser } from '../helpers/app.js'
import { countRows, created, rowById } from '../helpers/fixtures.js'

const HOSTILE = '"><script>alert(1)</script>'

describe('channels', () => {
  let t: TestApp
  let me: TestUser
  let other: TestUser

  beforeAll(async () => { [t, me, other] = await appWith({}, {}) })
  afterAll(() => t.close())

  const base = 'http://kurz.test'
  const today = () => toDay(new Date())
  const channelCount = () => countRows(t, channels)
  const itemCount = () => countRows(t, channelItems)
  const channelRow = (id: number) => rowById(t, channels, id)
  let seq = 0
  const insertLink = async (userId: number, over: Partial<typeof links.$inferInsert> = {}) =>
    (await t.app.db.insert(links).values({ userId, alias: `ch${++seq}u${userId}`, url: 'https://example.com/page', ...over }).returning())[0]
  const insertQr = async (userId: number, name: string, type: 'link' | 'wifi' = 'link') => {
    const alias = `qr${++seq}u${userId}`
    return (
      await t.app.db
        .insert(qrCodes)
        .values({ userId, alias, type, data: 'https://example.com', target: 'https://example.com', content: `${base}/q/${alias}`, name })
        .returning()
    )[0]
  }
  const addChannel = (u: TestUser, body: Record<string, unknown>) => created(u, '/api/channel/add', body)

  describe('POST /api/channel/add and GET /api/channels', () => {
    it('creates channels and lists them newest first', async () => {
      const u = await t.makeUser()
      const res = await u.api.post('/api/channel/add', { name: 'Social', description: 'Posts on social media', color: '#1DA1F2', starred: true })
      expect(res.statusCode).toBe(200)
      const social = { id: res.json().id, name: 'Social', description: 'Posts on social media', color: '#1DA1F2', starred: true }
      expect(res.json()).toEqual({ error: 0, ...social })

      const bare = await u.api.post('/api/channel/add', { name: 'Bare' })
      const bareItem = { id: bare.json().id, name: 'Bare', description: '', color: '#000000', starred: false }
      expect(bare.json()).toEqual({ error: 0, ...bareItem })

      const list = await u.api.get('/api/channels')
      expect(list.json()).toEqual({
        error: '0',
        data: { result: 2, perpage: 15, currentpage: 1, nextpage: 1, maxpage: 1, channels: [bareItem, social] },
      })
      const page2 = await u.api.get('/api/channels?limit=1&page=2')
      expect(page2.json()).toEqual({ error: '0', data: { result: 2, perpage: 1, currentpage: 2, nextpage: 2, maxpage: 2, channels: [social] } })
    })

    it('takes a short colour, booleans in every accepted form, and blanks as absent', async () => {
      expect(await addChannel(me, { name: 'short', color: '#abc', starred: '1' })).toMatchObject({ color: '#abc', starred: true })
      expect(await addChannel(me, { name: 'zero', starred: 0 })).toMatchObject({ starred: false })
      expect(await addChannel(me, { name: 'str', starred: 'true' })).toMatchObject({ starred: true })
      expect(await addChannel(me, { name: 'blank', description: '', color: null, starred: null })).toMatchObject({
        description: '',
        color: '#000000',
        starred: false,
      })
    })

    it('stores markup as data and returns it unchanged', async () => {
      const c = await addChannel(me, { name: HOSTILE, description: `${HOSTILE}\nsecond line` })
      expect(c).toMatchObject({ name: HOSTILE, description: `${HOSTILE}\nsecond line` })
    })

    it.each([
      { name: 'no name', body: {}, message: /name must not be empty/ },
      { name: 'an empty name', body: { name: '' }, message: /name must not be empty/ },
      { name: 'a blank name', body: { name: '   ' }, message: /name must not be empty/ },
      { name: 'a numeric name', body: { name: 1 }, message: /name must be a string/ },
      { name: 'a name over 255', body: { name: 'x'.repeat(256) }, message: /at most 255/ },
      { name: 'a control character', body: { name: 'a\u0000b' }, message: /control characters/ },
      { name: 'a description over 2000', body: { name: 'ok', description: 'd'.repeat(2001) }, message: /description must be at most 2000/ },
      { name: 'a numeric description', body: { name: 'ok', description: 3 }, message: /description must be a string/ },
      { name: 'a colour name', body: { name: 'ok', color: 'red' }, message: /color must be a HEX colour/ },
      { name: 'a colour without #', body: { name: 'ok', color: 'ff0000' }, message: /color must be a HEX colour/ },
      { name: 'a 4-digit colour', body: { name: 'ok', color: '#ffff' }, message: /color must be a HEX colour/ },
      { name: 'a non-hex colour', body: { name: 'ok', color: '#ggg' }, message: /color must be a HEX colour/ },
      { name: 'a colour with markup', body: { name: 'ok', color: '#fff"><script>' }, message: /color must be a HEX colour/ },
      { name: 'an rgb() colour', body: { name: 'ok', color: 'rgb(1,2,3)' }, message: /color must be a HEX colour/ },
      { name: 'starred "yes"', body: { name: 'ok', starred: 'yes' }, message: /starred must be true or false/ },
      { name: 'starred 2', body: { name: 'ok', starred: 2 }, message: /starred must be true or false/ },
    ])('refuses $name (400) and writes nothing', async ({ body, message }) => {
      const before = await channelCount()
      expectError(await me.api.post('/api/channel/add', body), 400, message)
      expect(await channelCount()).toBe(before)
    })

    it('ignores mass-assigned fields', async () => {
      const c = await addChannel(me, { name: 'mass', userId: other.user.id, id: 4242 })
      expect(await channelRow(c.id)).toMatchObject({ userId: me.user.id })
    })
  })

  describe('assign and GET /api/channel/:id', () => {
    it('links a text or wifi QR code to its image, since it has no scan URL', async () => {
      const u = await t.makeUser()
      const ch = await addChannel(u, { name: 'Wifi' })
      const qr = await insertQr(u.user.id, 'Guest wifi', 'wifi')
      expect((await u.api.post(`/api/channel/${ch.id}/assign/qr/${qr.id}`)).statusCode).toBe(200)
      expect((await u.api.get(`/api/channel/${ch.id}`)).json().data.items).toEqual([
        { type: 'qr', id: qr.id, title: 'Guest wifi', preview: `${base}/qr/${qr.alias}`, link: `${base}/qr/${qr.alias}`, date: today() },
      ])
    })

    it('lists links and QR codes with title, preview, link and date', async () => {
      const u = await t.makeUser()
      const ch = await addChannel(u, { name: 'Mixed' })
      const [domain] = await t.app.db.insert(domains).values({ userId: u.user.id, domain: 'https://br.example', host: 'br.example' }).returning()
      const titled = await insertLink(u.user.id, { title: `Titled ${HOSTILE}`, url: 'https://example.com/a?x=1' })
      const untitled = await insertLink(u.user.id, { domainId: domain.id, url: 'https://example.com/untitled' })
      const qr = await insertQr(u.user.id, 'Menu QR')

      for (const [type, id] of [['links', titled.id], ['links', untitled.id], ['qr', qr.id]] as const) {
        const res = await u.api.post(`/api/channel/${ch.id}/assign/${type}/${id}`)
        expect(res.statusCode).toBe(200)
        expect(res.json()).toEqual({ error: 0, message: 'Item has been added to the channel successfully.' })
      }
      // twice is a no-op
      expect((await u.api.post(`/api/channel/${ch.id}/assign/links/${titled.id}`)).statusCode).toBe(200)

      const res = await u.api.get(`/api/channel/${ch.id}`)
      expect(res.statusCode).toBe(200)
      const items = res.json().data.items as { id: number }[]
      expect(res.json()).toEqual({
        error: '0',
        data: { result: 3, perpage: 15, currentpage: 1, nextpage: 1, maxpage: 1, items: expect.any(Array) },
      })
      expect(items).toHaveLength(3)
      expect(items).toEqual(
        expect.arrayContaining([
          { type: 'links', id: titled.id, title: `Titled ${HOSTILE}`, preview: 'https://example.com/a?x=1', link: `${base}/${titled.alias}`, date: today() },
          { type: 'links', id: untitled.id, title: 'https://example.com/untitled', preview: 'https://example.com/untitled', link: `https://br.example/${untitled.alias}`, date: today() },
          { type: 'qr', id: qr.id, title: 'Menu QR', preview: `${base}/qr/${qr.alias}`, link: `${base}/q/${qr.alias}`, date: today() },
        ]),
      )
      const paged = await u.api.get(`/api/channel/${ch.id}?limit=2&page=2`)
      expect(paged.json().data).toMatchObject({ result: 3, perpage: 2, currentpage: 2, nextpage: 2, maxpage: 2 })
      expect(paged.json().data.items).toHaveLength(1)
    })

    it('lets an item sit in several channels and orders items newest assignment first', async () => {
      const a = await addChannel(me, { name: 'A' })
      const b = await addChannel(me, { name: 'B' })
      const first = await insertLink(me.user.id, { title: 'first' })
      const second = await insertLink(me.user.id, { title: 'second' })
      await me.api.post(`/api/channel/${a.id}/assign/links/${first.id}`)
      await t.app.db
        .update(channelItems)
        .set({ createdAt: new Date(Date.now() - 60_000) })
        .where(and(eq(channelItems.channelId, a.id), eq(channelItems.itemId, first.id)))
      await me.api.post(`/api/channel/${a.id}/assign/links/${second.id}`)
      await me.api.post(`/api/channel/${b.id}/assign/links/${first.id}`)
      expect((await me.api.get(`/api/channel/${a.id}`)).json().data.items.map((i: { title: string }) => i.title)).toEqual(['second', 'first'])
      expect((await me.api.get(`/api/channel/${b.id}`)).json().data.items.map((i: { title: string }) => i.title)).toEqual(['first'])
    })

    it('drops items that no longer exist from the listing', async () => {
      const ch = await addChannel(me, { name: 'Stale' })
      const link = await insertLink(me.user.id, { title: 'soon gone' })
      await me.api.post(`/api/channel/${ch.id}/assign/links/${link.id}`)
      await t.app.db.delete(links).where(eq(links.id, link.id))
      expect((await me.api.get(`/api/channel/${ch.id}`)).json().data).toMatchObject({ result: 0, items: [] })
    })

    it('refuses an unknown type (400), a bio page (404), and another account’s items (404), writing nothing', async () => {
      const ch = await addChannel(me, { name: 'Guarded' })
      const mine = await insertLink(me.user.id)
      const theirLink = await insertLink(other.user.id)
      const theirQr = await insertQr(other.user.id, 'their QR')
      const before = await itemCount()
      for (const type of ['link', 'LINKS', 'qrs', 'x', '<script>', 'bios']) {
        expectError(await me.api.post(`/api/channel/${ch.id}/assign/${encodeURIComponent(type)}/${mine.id}`), 400, /type must be one of: links, bio, qr/)
      }
      expectError(await me.api.post(`/api/channel/${ch.id}/assign/bio/1`), 404, /Bio page not found/)
      expectError(await me.api.post(`/api/channel/${ch.id}/assign/links/${theirLink.id}`), 404, /Link not found/)
      expectError(await me.api.post(`/api/channel/${ch.id}/assign/qr/${theirQr.id}`), 404, /QR code not found/)
      expectError(await me.api.post(`/api/channel/${ch.id}/assign/qr/${mine.id + 100000}`), 404, /QR code not found/)
      expectError(await me.api.post(`/api/channel/${ch.id}/assign/links/0`), 404)
      expectError(await me.api.post(`/api/channel/${ch.id}/assign/links/abc`), 404)
      expect(await itemCount()).toBe(before)
    })
  })

  describe('PUT /api/channel/:id/update', () => {
    it('changes the fields sent and keeps the others', async () => {
      const c = await addChannel(me, { name: 'Before', description: 'desc', color: '#111111', starred: true })
      const res = await me.api.put(`/api/channel/${c.id}/update`, { name: 'After' })
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({ error: 0, message: 'Channel has been updated successfully.' })
      expect(await channelRow(c.id)).toMatchObject({ name: 'After', description: 'desc', color: '#111111', starred: true })
      await me.api.put(`/api/channel/${c.id}/update`, { color: '#0f0', starred: false, description: 'new' })
      expect(await channelRow(c.id)).toMatchObject({ name: 'After', description: 'new', color: '#0f0', starred: false })
      // blanks: the name is kept (a channel needs one); description and colour are cleared
      await me.api.put(`/api/channel/${c.id}/update`, { name: '', description: null, color: '' })
      expect(await channelRow(c.id)).toMatchObject({ name: 'After', description: '', color: '#000000', starred: false })
      expect((await me.api.put(`/api/channel/${c.id}/update`, {})).statusCode).toBe(200)
      const list = await me.api.get('/api/channels?limit=1000')
      expect(list.json().data.channels).toContainEqual({ id: c.id, name: 'After', description: '', color: '#000000', starred: false })
    })

    it.each([
      { name: 'a numeric name', body: { name: 9 }, message: /name must be a string/ },
      { name: 'a long name', body: { name: 'n'.repeat(256) }, message: /at most 255/ },
      { name: 'a bad colour', body: { color: '#12345' }, message: /HEX colour/ },
      { name: 'a bad starred', body: { starred: 'nope' }, message: /starred must be true or false/ },
      { name: 'a control character', body: { description: 'x\u001fy' }, message: /control characters/ },
    ])('refuses $name (400) and changes nothing', async ({ body, message }) => {
      const c = await addChannel(me, { name: 'Steady', description: 'keep', color: '#222', starred: true })
      const before = await channelRow(c.id)
      expectError(await me.api.put(`/api/channel/${c.id}/update`, body), 400, message)
      expect(await channelRow(c.id)).toEqual(before)
    })
  })

  describe('DELETE /api/channel/:id/delete', () => {
    it('deletes the channel and unassigns its items without deleting them', async () => {
      const c = await addChannel(me, { name: 'Doomed' })
      const link = await insertLink(me.user.id)
      const qr = await insertQr(me.user.id, 'kept')
      await me.api.post(`/api/channel/${c.id}/assign/links/${link.id}`)
      await me.api.post(`/api/channel/${c.id}/assign/qr/${qr.id}`)
      const res = await me.api.del(`/api/channel/${c.id}/delete`)
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({ error: 0, message: 'Channel has been deleted successfully.' })
      expect(await channelRow(c.id)).toBeUndefined()
      expect(await t.app.db.select().from(channelItems).where(eq(channelItems.channelId, c.id))).toEqual([])
      expect((await t.app.db.select().from(links).where(eq(links.id, link.id))).length).toBe(1)
      expect((await t.app.db.select().from(qrCodes).where(eq(qrCodes.id, qr.id))).length).toBe(1)
      expectError(await me.api.get(`/api/channel/${c.id}`), 404, /Channel not found/)
    })
  })

  describe('another account’s channel', () => {
    it('is a 404 for read, update, delete and assign, and stays unchanged', async () => {
      const theirs = await addChannel(other, { name: 'Theirs', description: 'private', color: '#333', starred: true })
      const theirLink = await insertLink(other.user.id)
      await other.api.post(`/api/channel/${theirs.id}/assign/links/${theirLink.id}`)
      const myLink = await insertLink(me.user.id)
      const before = await channelRow(theirs.id)
      const itemsBefore = await itemCount()
      expectError(await me.api.get(`/api/channel/${theirs.id}`), 404, /Channel not found/)
      expectError(await me.api.put(`/api/channel/${theirs.id}/update`, { name: 'Hijacked' }), 404, /Channel not found/)
      expectError(await me.api.del(`/api/channel/${theirs.id}/delete`), 404, /Channel not found/)
      expectError(await me.api.post(`/api/channel/${theirs.id}/assign/links/${myLink.id}`), 404, /Channel not found/)
      expectError(await me.api.post(`/api/channel/${theirs.id}/assign/links/${theirLink.id}`), 404, /Channel not found/)
      expect(await channelRow(theirs.id)).toEqual(before)
      expect(await itemCount()).toBe(itemsBefore)
      const mine = (await me.api.get('/api/channels?limit=1000')).json().data.channels as { id: number }[]
      expect(mine.map((c) => c.id)).not.toContain(theirs.id)
    })

    it.each(['0', '-1', 'abc', '2147483648'])('a path id of %s names nothing (404)', async (id) => {
      expectError(await me.api.get(`/api/channel/${id}`), 404)
      expectError(await me.api.put(`/api/channel/${id}/update`, {}), 404)
      expectError(await me.api.del(`/api/channel/${id}/delete`), 404)
      expectError(await me.api.post(`/api/channel/${id}/assign/links/1`), 404)
    })
  })

  it('needs a key (401)', async () => {
    expectError(await t.api().get('/api/channels'), 401)
    expectError(await t.api().post('/api/channel/add', { name: 'x' }), 401)
  })
})
