import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { links, overlayResponses, pages } from '../../src/db/schema/index.js'
import { OVERLAY_SUBMISSIONS_PER_HOUR } from '../../src/resources/pages/public.js'
import { appWith, expectError, TS, type TestApp, type TestUser } from '../helpers/app.js'
import { countRows, created, rowById } from '../helpers/fixtures.js'

const HOSTILE = '"><script>alert(1)</script>'

describe('splash pages and CTA overlays', () => {
  let t: TestApp
  let me: TestUser
  let other: TestUser

  beforeAll(async () => { [t, me, other] = await appWith({ plan: 'pro' }, { plan: 'pro' }) })
  afterAll(() => t.close())

  const pageCount = () => countRows(t, pages)
  const pageRow = (id: number) => rowById(t, pages, id)
  const linkRow = (id: number) => rowById(t, links, id)
  const responseCount = () => countRows(t, overlayResponses)
  const add = async (u: TestUser, kind: 'splash' | 'overlay', body: Record<string, unknown>) => (await created(u, `/api/${kind}/add`, body)).id
  let seq = 0
  const insertLink = async (userId: number, over: Partial<typeof links.$inferInsert> = {}) =>
    (await t.app.db.insert(links).values({ userId, alias: `pg${++seq}u${userId}`, url: 'https://example.com/dest', ...over }).returning())[0]

  describe('splash pages', () => {
    it('creates, lists (id, name, date) and reads them in full', async () => {
      const u = await t.makeUser()
      const empty = await u.api.get('/api/splash')
      expect(empty.json()).toEqual({ error: '0', data: { result: 0, perpage: 15, currentpage: 1, nextpage: 1, maxpage: 1, splash: [] } })

      const res = await u.api.post('/api/splash/add', {
        name: 'Launch',
        title: 'Big news',
        message: 'We moved.\nSee you there.',
        image: 'https://cdn.example.com/banner.png',
        button: 'Go now',
        countdown: 10,
      })
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({ error: 0, id: expect.any(Number) })
      const id = res.json().id
      const minimal = await add(u, 'splash', { name: 'Minimal' })

      const list = await u.api.get('/api/splash')
      expect(list.json()).toEqual({
        error: '0',
        data: {
          result: 2,
          perpage: 15,
          currentpage: 1,
          nextpage: 1,
          maxpage: 1,
          splash: [
            { id: minimal, name: 'Minimal', date: expect.stringMatching(TS) },
            { id, name: 'Launch', date: expect.stringMatching(TS) },
          ],
        },
      })
      expect((await u.api.get(`/api/splash/${id}`)).json()).toEqual({
        error: 0,
        data: {
          id,
          name: 'Launch',
          title: 'Big news',
          message: 'We moved.\nSee you there.',
          image: 'https://cdn.example.com/banner.png',
          button: 'Go now',
          countdown: 10,
          date: expect.stringMatching(TS),
        },
      })
      expect((await u.api.get(`/api/splash/${minimal}`)).json().data).toEqual({
        id: minimal,
        name: 'Minimal',
        title: '',
        message: '',
        image: '',
        button: '',
        countdown: 5,
        date: expect.stringMatching(TS),
      })
      expect(await pageRow(id)).toMatchObject({ kind: 'splash', imageUrl: 'https://cdn.example.com/banner.png', buttonLabel: 'Go now', countdown: 10 })
    })

    it('accepts a countdown of 0 and 60 and stores markup as data', async () => {
      const zero = await add(me, 'splash', { name: HOSTILE, title: HOSTILE, countdown: 0 })
      expect((await me.api.get(`/api/splash/${zero}`)).json().data).toMatchObject({ name: HOSTILE, title: HOSTILE, countdown: 0 })
      const sixty = await add(me, 'splash', { name: 'max', countdown: 60 })
      expect((await pageRow(sixty)).countdown).toBe(60)
    })

    it.each([
      { name: 'no name', body: {}, message: /name must not be empty/ },
      { name: 'a numeric name', body: { name: 1 }, message: /name must be a string/ },
      { name: 'a name over 255', body: { name: 'n'.repeat(256) }, message: /at most 255/ },
      { name: 'a control character in the title', body: { name: 'n', title: 'a\u0000' }, message: /title must not contain control/ },
      { name: 'a message over 2000', body: { name: 'n', message: 'm'.repeat(2001) }, message: /message must be at most 2000/ },
      { name: 'a javascript: image', body: { name: 'n', image: 'javascript:alert(1)' }, message: /^image is refused: the javascript: scheme is not allowed\.$/ },
      { name: 'a deep-link image', body: { name: 'n', image: 'tg://x' }, message: /image must be an http\(s\) URL/ },
      { name: 'an http image (the page shows https images only)', body: { name: 'n', image: 'http://cdn.example.com/banner.png' }, message: /^image must be an https:\/\/ address/ },
      { name: 'a relative image', body: { name: 'n', image: '/img.png' }, message: /image must be an absolute URL/ },
      { name: 'a countdown of 61', body: { name: 'n', countdown: 61 }, message: /between 0 and 60/ },
      { name: 'a negative countdown', body: { name: 'n', countdown: -1 }, message: /between 0 and 60/ },
      { name: 'a fractional countdown', body: { name: 'n', countdown: 1.5 }, message: /whole number/ },
      { name: 'a string countdown', body: { name: 'n', countdown: '5' }, message: /countdown must be a whole number/ },
      { name: 'a numeric button', body: { name: 'n', button: 7 }, message: /button must be a string/ },
    ])('refuses $name (400) and writes nothing', async ({ body, message }) => {
      const before = await pageCount()
      expectError(await me.api.post('/api/splash/add', body), 400, message)
      expect(await pageCount()).toBe(before)
    })

    it('ignores mass-assigned fields (owner, kind, ids, settings)', async () => {
      const id = await add(me, 'splash', { name: 'mass', userId: other.user.id, kind: 'overlay', id: 99999, settings: { options: ['x'] }, overlayType: 'poll' })
      expect(await pageRow(id)).toMatchObject({ userId: me.user.id, kind: 'splash', overlayType: null, settings: {} })
      const o = await add(me, 'overlay', { name: 'mass', kind: 'splash', userId: other.user.id, settings: { position: 'evil' } })
      expect(await pageRow(o)).toMatchObject({ userId: me.user.id, kind: 'overlay', settings: { position: 'bottom-left' } })
    })

    it('updates the fields sent, clears with "" or null, and keeps the name on a blank', async () => {
      const id = await add(me, 'splash', { name: 'Edit me', title: 'T', message: 'M', image: 'https://example.com/i.jpg', button: 'B', countdown: 9 })
      const res = await me.api.put(`/api/splash/${id}/update`, { title: 'New title', countdown: 3 })
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({ error: 0, message: 'Splash page has been updated successfully.' })
      expect((await me.api.get(`/api/splash/${id}`)).json().data).toMatchObject({ name: 'Edit me', title: 'New title', message: 'M', countdown: 3 })
      await me.api.put(`/api/splash/${id}/update`, { name: '', title: null, message: '', image: null, button: '', countdown: null })
      expect((await me.api.get(`/api/splash/${id}`)).json().data).toMatchObject({
        name: 'Edit me',
        title: '',
        message: '',
        image: '',
        button: '',
        countdown: 5,
      })
      expect((await me.api.put(`/api/splash/${id}/update`, {})).statusCode).toBe(200)
    })

    it.each([
      { name: 'a bad countdown', body: { countdown: 100 } },
      { name: 'a bad image', body: { image: 'data:image/png;base64,AAAA' } },
      { name: 'a numeric name', body: { name: 4 } },
    ])('refuses an update with $name (400) and changes nothing', async ({ body }) => {
      const id = await add(me, 'splash', { name: 'Steady', countdown: 7 })
      const before = await pageRow(id)
      expectError(await me.api.put(`/api/splash/${id}/update`, body), 400)
      expect(await pageRow(id)).toEqual(before)
    })

    it('deleting a splash page sends the links using it back to direct', async () => {
      const id = await add(me, 'splash', { name: 'Going' })
      const link = await insertLink(me.user.id, { type: 'splash-page', pageId: id })
      const untouched = await insertLink(me.user.id, { type: 'frame' })
      const res = await me.api.del(`/api/splash/${id}/delete`)
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({ error: 0, message: 'Splash page has been deleted successfully.' })
      expect(await pageRow(id)).toBeUndefined()
      expect(await linkRow(link.id)).toMatchObject({ type: 'direct', pageId: null })
      expect(await linkRow(untouched.id)).toMatchObject({ type: 'frame', pageId: null })
      expectError(await me.api.get(`/api/splash/${id}`), 404, /Splash page not found/)
    })
  })

  describe('CTA overlays', () => {
    it('creates message, contact and poll overlays; lists them under data.cta and reads them in full', async () => {
      const u = await t.makeUser()
      const message = await add(u, 'overlay', { name: 'Promo' })
      const contact = await add(u, 'overlay', {
        name: 'Contact us',
        type: 'contact',
        title: 'Questions?',
        message: 'Write to us',
        button: 'Send',
        position: 'bottom-right',
        background: '#ffffff',
        color: '#123',
        buttonbackground: '#2554C7',
        buttoncolor: '#fff',
      })
      const poll = await add(u, 'overlay', {
        name: 'Poll',
        type: 'poll',
        title: 'Which colour?',
        options: ['Red', 'Green', HOSTILE],
        buttonurl: 'https://example.com/more',
        button: 'More',
      })
      const list = await u.api.get('/api/overlay')
      expect(list.json()).toEqual({
        error: '0',
        data: {
          result: 3,
          perpage: 15,
          currentpage: 1,
          nextpage: 1,
          maxpage: 1,
          cta: [
            { id: poll, type: 'poll', name: 'Poll', date: expect.stringMatching(TS) },
            { id: contact, type: 'contact', name: 'Contact us', date: expect.stringMatching(TS) },
            { id: message, type: 'message', name: 'Promo', date: expect.stringMatching(TS) },
          ],
        },
      })
      const full = (id: number) => u.api.get(`/api/overlay/${id}`).then((r) => r.json())
      expect(await full(message)).toEqual({
        error: 0,
        data: {
          id: message,
          type: 'message',
          name: 'Promo',
          title: '',
          message: '',
          button: '',
          buttonurl: '',
          position: 'bottom-left',
          background: '',
          color: '',
          buttonbackground: '',
          buttoncolor: '',
          options: [],
          date: expect.stringMatching(TS),
        },
      })
      expect((await full(contact)).data).toEqual({
        id: contact,
        type: 'contact',
        name: 'Contact us',
        title: 'Questions?',
        message: 'Write to us',
        button: 'Send',
        buttonurl: '',
        position: 'bottom-right',
        background: '#ffffff',
        color: '#123',
        buttonbackground: '#2554C7',
        buttoncolor: '#fff',
        options: [],
        date: expect.stringMatching(TS),
      })
      expect((await full(poll)).data).toMatchObject({ type: 'poll', options: ['Red', 'Green', HOSTILE], buttonurl: 'https://example.com/more' })
      // the stored settings are what the redirect renderer reads (interfaces.md item 6)
      expect((await pageRow(contact)).settings).toEqual({
        position: 'bottom-right',
        background: '#ffffff',
        color: '#123',
        buttonBackground: '#2554C7',
        buttonColor: '#fff',
      })
      expect((await pageRow(poll)).settings).toEqual({ position: 'bottom-left', options: ['Red', 'Green', HOSTILE] })
    })

    it('draws splash and overlay ids from one sequence, and each kind answers only for itself', async () => {
      const s = await add(me, 'splash', { name: 's' })
      const o = await add(me, 'overlay', { name: 'o' })
      expect(o).not.toBe(s)
      expectError(await me.api.get(`/api/splash/${o}`), 404, /Splash page not found/)
      expectError(await me.api.get(`/api/overlay/${s}`), 404, /Overlay not found/)
      expectError(await me.api.del(`/api/overlay/${s}/delete`), 404)
      expectError(await me.api.put(`/api/splash/${o}/update`, { name: 'x' }), 404)
      expect(await pageRow(s)).toBeDefined()
    })

    it.each([
      { name: 'no name', body: { type: 'message' }, message: /name must not be empty/ },
      { name: 'an unknown type', body: { name: 'n', type: 'banner' }, message: /type must be one of: message, contact, poll/ },
      { name: 'a poll without options', body: { name: 'n', type: 'poll' }, message: /a poll needs 2 to 10 answers/ },
      { name: 'a poll with one option', body: { name: 'n', type: 'poll', options: ['only'] }, message: /2 to 10 answers/ },
      { name: 'a poll with 11 options', body: { name: 'n', type: 'poll', options: Array.from({ length: 11 }, (_, i) => `o${i}`) }, message: /2 to 10 answers/ },
      { name: 'a poll with an empty option', body: { name: 'n', type: 'poll', options: ['a', ''] }, message: /^options\.1 must not be empty\.$/ },
      { name: 'a poll with a numeric option', body: { name: 'n', type: 'poll', options: ['a', 2] }, message: /^options\.1 must be a string\.$/ },
      { name: 'options as a string', body: { name: 'n', type: 'poll', options: 'a,b' }, message: /options must be an array/ },
      { name: 'a bad position', body: { name: 'n', position: 'left' }, message: /position must be one of/ },
      { name: 'a bad background', body: { name: 'n', background: 'white' }, message: /background must be a HEX colour/ },
      { name: 'a hostile colour', body: { name: 'n', color: '#fff;background:url(x)' }, message: /color must be a HEX colour/ },
      { name: 'a bad button colour', body: { name: 'n', buttoncolor: '#12' }, message: /buttoncolor must be a HEX colour/ },
      { name: 'a javascript: button URL', body: { name: 'n', buttonurl: 'javascript:alert(1)' }, message: /^buttonurl is refused: the javascript: scheme is not allowed\.$/ },
      { name: 'a control character in the message', body: { name: 'n', message: 'a\u007fb' }, message: /control characters/ },
      { name: 'a name over 255', body: { name: 'n'.repeat(256) }, message: /at most 255/ },
    ])('refuses $name (400) and writes nothing', async ({ body, message }) => {
      const before = await pageCount()
      expectError(await me.api.post('/api/overlay/add', body), 400, message)
      expect(await pageCount()).toBe(before)
    })

    it('updates the fields sent; a poll keeps or replaces its options; other types drop them', async () => {
      const id = await add(me, 'overlay', { name: 'Morph', type: 'poll', options: ['a', 'b'], background: '#000', position: 'top' })
      await me.api.put(`/api/overlay/${id}/update`, { title: 'Vote' })
      expect((await me.api.get(`/api/overlay/${id}`)).json().data).toMatchObject({ type: 'poll', title: 'Vote', options: ['a', 'b'], background: '#000', position: 'top' })
      await me.api.put(`/api/overlay/${id}/update`, { options: ['x', 'y', 'z'], background: '', position: null })
      expect((await me.api.get(`/api/overlay/${id}`)).json().data).toMatchObject({ options: ['x', 'y', 'z'], background: '', position: 'bottom-left' })
      const res = await me.api.put(`/api/overlay/${id}/update`, { type: 'contact' })
      expect(res.json()).toEqual({ error: 0, message: 'Overlay has been updated successfully.' })
      expect((await me.api.get(`/api/overlay/${id}`)).json().data).toMatchObject({ type: 'contact', options: [] })
      expect((await pageRow(id)).settings).toEqual({ position: 'bottom-left' })
    })

    it.each([
      { name: 'becoming a poll without options', body: { type: 'poll' }, message: /a poll needs 2 to 10 answers/ },
      { name: 'a bad colour', body: { color: 'blue' }, message: /HEX colour/ },
      { name: 'a bad type', body: { type: 'survey' }, message: /type must be one of/ },
      { name: 'one option', body: { type: 'poll', options: ['x'] }, message: /2 to 10 answers/ },
    ])('refuses an update $name (400) and changes nothing', async ({ body, message }) => {
      const id = await add(me, 'overlay', { name: 'Steady', type: 'contact', color: '#abcdef' })
      const before = await pageRow(id)
      expectError(await me.api.put(`/api/overlay/${id}/update`, body), 400, message)
      expect(await pageRow(id)).toEqual(before)
    })

    it('deleting an overlay sends the links using it back to direct and removes its responses', async () => {
      const id = await add(me, 'overlay', { name: 'Going', type: 'contact' })
      const link = await insertLink(me.user.id, { type: 'overlay', pageId: id })
      await t.app.db.insert(overlayResponses).values({ pageId: id, linkId: link.id, data: { type: 'contact', name: 'a', email: 'a@example.com', message: '' } })
      const res = await me.api.del(`/api/overlay/${id}/delete`)
      expect(res.json()).toEqual({ error: 0, message: 'Overlay has been deleted successfully.' })
      expect(await linkRow(link.id)).toMatchObject({ type: 'direct', pageId: null })
      expect(await t.app.db.select().from(overlayResponses).where(eq(overlayResponses.pageId, id))).toEqual([])
    })
  })

  describe('plan features', () => {
    it('Free allows 5 splash pages and 5 overlays, counted apart (the 6th is a 403 naming the feature)', async () => {
      const u = await t.makeUser({ plan: 'free' })
      for (let n = 0; n < 5; n++) await add(u, 'splash', { name: `s${n}` })
      for (let n = 0; n < 5; n++) await add(u, 'overlay', { name: `o${n}` })
      const before = await pageCount()
      expectError(await u.api.post('/api/splash/add', { name: 's6' }), 403, /"splash"/)
      expectError(await u.api.post('/api/overlay/add', { name: 'o6' }), 403, /"overlay"/)
      expect(await pageCount()).toBe(before)
    })

    it('a plan with the feature off refuses creating but still lists', async () => {
      const u = await t.makeUser({ features: { splash: { enabled: '0', count: '5' }, overlay: { enabled: '0', count: '5' } } })
      expectError(await u.api.post('/api/splash/add', { name: 's' }), 403, /"splash"/)
      expectError(await u.api.post('/api/overlay/add', { name: 'o' }), 403, /"overlay"/)
      expect((await u.api.get('/api/splash')).statusCode).toBe(200)
      expect((await u.api.get('/api/overlay')).statusCode).toBe(200)
    })
  })

  describe('another account’s pages', () => {
    it('are a 404 for read, update, delete and responses, and stay unchanged', async () => {
      const s = await add(other, 'splash', { name: 'Their splash', countdown: 8 })
      const o = await add(other, 'overlay', { name: 'Their overlay', type: 'contact' })
      const beforeS = await pageRow(s)
      const beforeO = await pageRow(o)
      expectError(await me.api.get(`/api/splash/${s}`), 404, /Splash page not found/)
      expectError(await me.api.put(`/api/splash/${s}/update`, { name: 'Mine' }), 404, /Splash page not found/)
      expectError(await me.api.del(`/api/splash/${s}/delete`), 404, /Splash page not found/)
      expectError(await me.api.get(`/api/overlay/${o}`), 404, /Overlay not found/)
      expectError(await me.api.put(`/api/overlay/${o}/update`, { name: 'Mine' }), 404, /Overlay not found/)
      expectError(await me.api.del(`/api/overlay/${o}/delete`), 404, /Overlay not found/)
      expectError(await me.api.get(`/api/overlay/${o}/responses`), 404, /Overlay not found/)
      expect(await pageRow(s)).toEqual(beforeS)
      expect(await pageRow(o)).toEqual(beforeO)
      const mine = [...(await me.api.get('/api/splash?limit=1000')).json().data.splash, ...(await me.api.get('/api/overlay?limit=1000')).json().data.cta]
      expect(mine.map((p: { id: number }) => p.id)).not.toContain(s)
      expect(mine.map((p: { id: number }) => p.id)).not.toContain(o)
    })

    it.each(['0', '-1', 'abc', '2147483648'])('a path id of %s names nothing (404)', async (id) => {
      for (const kind of ['splash', 'overlay']) {
        expectError(await me.api.get(`/api/${kind}/${id}`), 404)
        expectError(await me.api.put(`/api/${kind}/${id}/update`, {}), 404)
        expectError(await me.api.del(`/api/${kind}/${id}/delete`), 404)
      }
      expectError(await me.api.get(`/api/overlay/${id}/responses`), 404)
    })
  })

  describe('POST /_/overlay/:pageId – overlay responses', () => {
    let ipSeq = 0
    const submit = (pageId: number | string, form: Record<string, string | string[]>, ip = `198.51.100.${++ipSeq}`) =>
      t.app.inject({
        method: 'POST',
        url: `/_/overlay/${pageId}`,
        remoteAddress: ip,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams(Object.entries(form).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x]) : [[k, v]]))).toString(),
      })

    it('stores a contact submission, answers an escaped thank-you page, and shows it to the owner', async () => {
      const u = await t.makeUser({ plan: 'pro' })
      const id = await add(u, 'overlay', { name: 'Contact', type: 'contact' })
      const link = await insertLink(u.user.id, { type: 'overlay', pageId: id, alias: 'contact-link' })
      const res = await submit(id, { link: String(link.id), name: HOSTILE, email: 'visitor@example.com', message: `Hello\n${HOSTILE}` })
      expect(res.statusCode).toBe(200)
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
      expect(res.headers['content-security-policy']).toContain("script-src 'none'")
      expect(res.body).toContain('Your message has been sent.')
      expect(res.body).toContain('<a href="http://kurz.test/contact-link">Back to the page</a>')
      expect(res.body).not.toContain('<script>')

      const list = await u.api.get(`/api/overlay/${id}/responses`)
      expect(list.json()).toEqual({
        error: '0',
        data: {
          result: 1,
          perpage: 15,
          currentpage: 1,
          nextpage: 1,
          maxpage: 1,
          responses: [
            { id: expect.any(Number), link: link.id, type: 'contact', name: HOSTILE, email: 'visitor@example.com', message: `Hello\n${HOSTILE}`, date: expect.stringMatching(TS) },
          ],
        },
      })
      // without a link: stored with link null, no back link
      const bare = await submit(id, { email: 'other@example.com' })
      expect(bare.statusCode).toBe(200)
      expect(bare.body).not.toContain('Back to the page')
      expect((await u.api.get(`/api/overlay/${id}/responses`)).json().data.responses[0]).toEqual({
        id: expect.any(Number),
        link: null,
        type: 'contact',
        name: '',
        email: 'other@example.com',
        message: '',
        date: expect.stringMatching(TS),
      })
    })

    it('counts a poll vote with the answer chosen', async () => {
      const u = await t.makeUser({ plan: 'pro' })
      const id = await add(u, 'overlay', { name: 'Poll', type: 'poll', options: ['Yes', 'No'] })
      const res = await submit(id, { option: '1' })
      expect(res.statusCode).toBe(200)
      expect(res.body).toContain('Your vote has been counted.')
      expect((await u.api.get(`/api/overlay/${id}/responses`)).json().data.responses).toEqual([
        { id: expect.any(Number), link: null, type: 'poll', option: 1, answer: 'No', date: expect.stringMatching(TS) },
      ])
    })

    it.each([
      { name: 'a missing email', kind: 'contact', form: { name: 'x' }, message: /email must be a valid email address/ },
      { name: 'a bad email', kind: 'contact', form: { email: 'not-an-email' }, message: /email must be a valid email address/ },
      { name: 'a long name', kind: 'contact', form: { email: 'a@example.com', name: 'n'.repeat(256) }, message: /name must be at most 255/ },
      { name: 'a long message', kind: 'contact', form: { email: 'a@example.com', message: 'm'.repeat(2001) }, message: /message must be at most 2000/ },
      { name: 'a control character', kind: 'contact', form: { email: 'a@example.com', name: 'a\u0001b' }, message: /control characters/ },
      { name: 'a repeated field', kind: 'contact', form: { email: ['a@example.com', 'b@example.com'] }, message: /Each field may be sent once/ },
      { name: 'no option', kind: 'poll', form: {}, message: /Choose one of the answers/ },
      { name: 'an option out of range', kind: 'poll', form: { option: '2' }, message: /Choose one of the answers/ },
      { name: 'a negative option', kind: 'poll', form: { option: '-1' }, message: /Choose one of the answers/ },
      { name: 'a text option', kind: 'poll', form: { option: 'Yes' }, message: /Choose one of the answers/ },
      { name: 'a link id that is not a number', kind: 'poll', form: { option: '0', link: 'abc' }, message: /unknown link/ },
      { name: 'a link not showing this overlay', kind: 'poll', form: { option: '0', link: 'OTHER' }, message: /unknown link/ },
    ])('refuses $name (400 page) and stores nothing', async ({ kind, form, message }) => {
      const id = await add(me, 'overlay', kind === 'poll' ? { name: 'p', type: 'poll', options: ['Yes', 'No'] } : { name: 'c', type: 'contact' })
      const f = { ...form } as Record<string, string | string[]>
      if (f.link === 'OTHER') f.link = String((await insertLink(me.user.id, { type: 'direct' })).id)
      const before = await responseCount()
      const res = await submit(id, f)
      expect(res.statusCode).toBe(400)
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
      expect(res.body).toMatch(message)
      expect(await responseCount()).toBe(before)
    })

    it('is a 404 page for a message overlay, a splash page, an unknown or malformed id', async () => {
      const message = await add(me, 'overlay', { name: 'm' })
      const splash = await add(me, 'splash', { name: 's' })
      const before = await responseCount()
      for (const id of [message, splash, 2147483647, '0', 'abc', '99999999999']) {
        const res = await submit(id, { email: 'a@example.com', option: '0' })
        expect(res.statusCode, String(id)).toBe(404)
        expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
      }
      expect(await responseCount()).toBe(before)
    })

    it(`throttles an IP after ${OVERLAY_SUBMISSIONS_PER_HOUR} submissions to one overlay (429)`, async () => {
      const id = await add(me, 'overlay', { name: 'busy', type: 'poll', options: ['a', 'b'] })
      const another = await add(me, 'overlay', { name: 'calm', type: 'poll', options: ['a', 'b'] })
      for (let n = 0; n < OVERLAY_SUBMISSIONS_PER_HOUR; n++) expect((await submit(id, { option: '0' }, '203.0.113.9')).statusCode).toBe(200)
      const before = await responseCount()
      const blocked = await submit(id, { option: '0' }, '203.0.113.9')
      expect(blocked.statusCode).toBe(429)
      expect(blocked.headers['retry-after']).toBe('3600')
      expect(await responseCount()).toBe(before)
      // another IP, or another overlay, still gets through
      expect((await submit(id, { option: '1' }, '203.0.113.10')).statusCode).toBe(200)
      expect((await submit(another, { option: '1' }, '203.0.113.9')).statusCode).toBe(200)
    })

    it('lists responses newest first, paginated, for the owner only', async () => {
      const u = await t.makeUser({ plan: 'pro' })
      const id = await add(u, 'overlay', { name: 'Poll', type: 'poll', options: ['a', 'b', 'c'] })
      for (const option of ['0', '1', '2']) await submit(id, { option })
      const page = await u.api.get(`/api/overlay/${id}/responses?limit=2&page=1`)
      expect(page.json().data).toMatchObject({ result: 3, perpage: 2, currentpage: 1, nextpage: 2, maxpage: 2 })
      expect(page.json().data.responses.map((r: { answer: string }) => r.answer)).toEqual(['c', 'b'])
    })
  })

  it('needs a key (401) on the API but not on the public form', async () => {
    expectError(await t.api().get('/api/splash'), 401)
    expectError(await t.api().get('/api/overlay'), 401)
    expectError(await t.api().post('/api/splash/add', { name: 'x' }), 401)
  })
})

describe('splash pages and overlays: visits follow changes at once (redirect cache)', () => {
  let t: TestApp
  let u: TestUser
  beforeAll(async () => { [t, u] = await appWith({ plan: 'pro' }) })
  afterAll(() => t.close())

  const visit = (path: string) => t.app.inject({ method: 'GET', url: path, headers: { host: 'kurz.test', 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0' } })
  const shorten = (body: Record<string, unknown>) => created(u, '/api/url/add', body)

  it('a splash page edit shows on the next visit; deleting it makes the link direct', async () => {
    const id = (await u.api.post('/api/splash/add', { name: 'S', title: 'First title' })).json().id
    await shorten({ url: 'https://example.com/splashed', custom: 'splashed', type: String(id) })
    expect((await visit('/splashed')).body).toContain('First title')
    await u.api.put(`/api/splash/${id}/update`, { title: `Second ${HOSTILE}` })
    const edited = await visit('/splashed')
    expect(edited.body).toContain('Second &quot;&gt;&lt;script&gt;')
    expect(edited.body).not.toContain(HOSTILE)
    await u.api.del(`/api/splash/${id}/delete`)
    const direct = await visit('/splashed')
    expect(direct.statusCode).toBe(302)
    expect(direct.headers.location).toBe('https://example.com/splashed')
  })

  it('a poll overlay’s form posts votes that reach its owner; deleting it makes the link direct', async () => {
    const id = (await u.api.post('/api/overlay/add', { name: 'Poll', type: 'poll', title: 'Pick one', options: ['Tea', 'Coffee'] })).json().id
    const link = await shorten({ url: 'https://example.com/polled', custom: 'polled', type: String(id) })
    const page = await visit('/polled')
    expect(page.statusCode).toBe(200)
    expect(page.body).toContain(`action="/_/overlay/${id}"`)
    expect(page.body).toContain(`name="link" value="${link.id}"`)
    const vote = await t.app.inject({
      method: 'POST',
      url: `/_/overlay/${id}`,
      headers: { host: 'kurz.test', 'content-type': 'application/x-www-form-urlencoded' },
      payload: `link=${link.id}&option=1`,
    })
    expect(vote.statusCode).toBe(200)
    expect(vote.body).toContain('<a href="http://kurz.test/polled">Back to the page</a>')
    expect((await u.api.get(`/api/overlay/${id}/responses`)).json().data.responses).toEqual([
      { id: expect.any(Number), link: link.id, type: 'poll', option: 1, answer: 'Coffee', date: expect.stringMatching(TS) },
    ])
    await u.api.put(`/api/overlay/${id}/update`, { options: ['Tea', 'Coffee', 'Water'] })
    expect((await visit('/polled')).body).toContain('Water')
    await u.api.del(`/api/overlay/${id}/delete`)
    expect((await visit('/polled')).statusCode).toBe(302)
  })
})
