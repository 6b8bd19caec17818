import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { and, eq } from 'drizzle-orm'
import { channelItems, channels, clicks, qrCodes } from '../../src/db/schema/index.js'
import { toDay } from '../../src/http/format.js'
import { appWith, expectError, TS, type TestApp, type TestUser } from '../helpers/app.js'
import { NO_QR_STATS as ZERO_STATS, rowById } from '../helpers/fixtures.js'
import { aliasOf, decodePng, get, GOOGLEBOT, PUBLIC, qrCount } from './qr-helpers.js'

const LINK = /^http:\/\/kurz\.test\/qr\/[A-Za-z0-9]{6,}$/

describe('QR codes API', () => {
  let t: TestApp
  let a: TestUser
  let b: TestUser
  beforeAll(async () => { [t, a, b] = await appWith({}, {}) })
  afterAll(() => t.close())

  async function create(user: TestUser, body: Record<string, unknown>) {
    const res = await user.api.post('/api/qr/add', body)
    expect(res.statusCode, res.body).toBe(200)
    const json = res.json()
    expect(json).toEqual({ error: 0, id: expect.any(Number), link: expect.stringMatching(LINK) })
    return { id: json.id as number, alias: aliasOf(json.link), link: json.link as string }
  }
  const row = (id: number) => rowById(t, qrCodes, id)

  describe('POST /api/qr/add, the image and the scan, for all seven types', () => {
    const vcard = {
      fname: 'Ada',
      lname: 'Lovelace',
      phone: '+44 20 7946 0958',
      email: 'ada@example.com',
      company: 'Engines, Ltd',
      site: 'https://example.com/ada',
      address: '12 St James Square',
      city: 'London',
      country: 'United Kingdom',
    }
    const cases: { type: string; data: unknown; encodes: 'scan' | string; scan: { status: number; location?: string; vcard?: string } }[] = [
      { type: 'text', data: 'Hello, Kurz! Grüße ✓', encodes: 'Hello, Kurz! Grüße ✓', scan: { status: 404 } },
      { type: 'link', data: 'https://example.com/landing?utm_source=print', encodes: 'scan', scan: { status: 302, location: 'https://example.com/landing?utm_source=print' } },
      {
        type: 'email',
        data: { email: 'ada@example.com', subject: 'Hello there', body: 'Line one\nLine two' },
        encodes: 'scan',
        scan: { status: 302, location: 'mailto:ada@example.com?subject=Hello%20there&body=Line%20one%0D%0ALine%20two' },
      },
      { type: 'phone', data: '+1 (555) 123-4567', encodes: 'scan', scan: { status: 302, location: 'tel:+15551234567' } },
      { type: 'sms', data: { phone: '+15551234567', message: 'Count me in!' }, encodes: 'scan', scan: { status: 302, location: 'sms:+15551234567?body=Count%20me%20in!' } },
      {
        type: 'wifi',
        data: { ssid: 'Kurz;Guest', password: 'pa:ss,word"1', encryption: 'WPA' },
        encodes: 'WIFI:T:WPA;S:Kurz\\;Guest;P:pa\\:ss\\,word\\"1;;',
        scan: { status: 404 },
      },
      // `password?` (DECISIONS §7): without one the phone asks for it; its length is not ours to judge
      { type: 'wifi', data: { ssid: 'Lobby', encryption: 'WPA' }, encodes: 'WIFI:T:WPA;S:Lobby;;', scan: { status: 404 } },
      { type: 'wifi', data: { ssid: 'Attic', password: 'secret', encryption: 'WPA' }, encodes: 'WIFI:T:WPA;S:Attic;P:secret;;', scan: { status: 404 } },
      {
        type: 'vcard',
        data: vcard,
        encodes: 'scan',
        scan: {
          status: 200,
          vcard:
            'BEGIN:VCARD\r\nVERSION:3.0\r\nN:Lovelace;Ada;;;\r\nFN:Ada Lovelace\r\nORG:Engines\\, Ltd\r\nTEL;TYPE=CELL:+442079460958\r\n' +
            'EMAIL;TYPE=INTERNET:ada@example.com\r\nURL:https://example.com/ada\r\nADR;TYPE=WORK:;;12 St James Square;London;;;United Kingdom\r\nEND:VCARD\r\n',
        },
      },
    ]

    it.each(cases)('$type: created, its PNG decodes to the expected content, a scan answers $scan.status', async ({ type, data, encodes, scan }) => {
      const { id, alias, link } = await create(a, { type, data })
      expect(link).toBe(`${PUBLIC}/qr/${alias}`)

      const details = await a.api.get(`/api/qr/${id}`)
      expect(details.statusCode).toBe(200)
      expect(details.json()).toEqual({
        error: 0,
        details: { id, link, scans: 0, name: `${type} ${toDay(new Date())}`, date: expect.stringMatching(TS) },
        data: ZERO_STATS,
      })

      const image = await get(t, `/qr/${alias}`)
      expect(image.statusCode).toBe(200)
      expect(image.headers['content-type']).toBe('image/png')
      const decoded = decodePng(image.rawPayload)
      expect(decoded.text).toBe(encodes === 'scan' ? `${PUBLIC}/q/${alias}` : encodes)

      const res = await get(t, `/q/${alias}`)
      expect(res.statusCode).toBe(scan.status)
      if (scan.location) expect(res.headers.location).toBe(scan.location)
      if (scan.vcard) {
        expect(res.headers['content-type']).toBe('text/vcard; charset=utf-8')
        expect(res.headers['content-disposition']).toMatch(/^inline; filename="[A-Za-z0-9_-]+\.vcf"$/)
        expect(res.body).toBe(scan.vcard)
      }
      if (scan.status === 404) expect(res.headers['content-type']).toMatch(/^text\/html/)
    })

    it('takes string data as the finished content for every type', async () => {
      const strings: [string, string, string | null][] = [
        ['email', 'mailto:ada@example.com?subject=Hi', 'mailto:ada@example.com?subject=Hi'],
        ['sms', 'SMSTO:+15551234567:See you', 'sms:+15551234567?body=See%20you'],
        ['wifi', 'WIFI:T:nopass;S:Cafe;;', null],
        ['vcard', 'BEGIN:VCARD\nVERSION:3.0\nFN:Raw Card\nEND:VCARD', null],
      ]
      for (const [type, data, location] of strings) {
        const { alias } = await create(a, { type, data })
        const scan = await get(t, `/q/${alias}`)
        if (location) expect(scan.headers.location).toBe(location)
        if (type === 'wifi') expect(decodePng((await get(t, `/qr/${alias}`)).rawPayload).text).toBe('WIFI:T:nopass;S:Cafe;;')
        if (type === 'vcard') expect(scan.body).toBe('BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Raw Card\r\nEND:VCARD\r\n')
      }
    })

    it('uses the sent name, colours, and ignores mass-assigned fields', async () => {
      const { id, alias } = await create(a, {
        type: 'text',
        data: 'x',
        name: 'Poster, spring',
        background: 'rgb(255, 250, 240)',
        foreground: 'rgb(20,40,80)',
        scans: 99,
        alias: 'mine',
        userId: b.user.id,
        user_id: b.user.id,
        id: 424242,
        logoHash: 'x',
      })
      const r = await row(id)
      expect(r).toMatchObject({ userId: a.user.id, name: 'Poster, spring', scans: 0, background: 'rgb(255,250,240)', foreground: 'rgb(20,40,80)', logo: null, logoHash: null })
      expect(alias).not.toBe('mine')
      expect(id).not.toBe(424242)
    })

    it('gives random, distinct aliases of at least 6 alphanumeric characters', async () => {
      const aliases = new Set<string>()
      for (let i = 0; i < 5; i++) aliases.add((await create(a, { type: 'text', data: `n${i}` })).alias)
      expect(aliases.size).toBe(5)
      for (const x of aliases) expect(x).toMatch(/^[A-Za-z0-9]{6,}$/)
    })
  })

  describe('GET /api/qr', () => {
    it('lists the caller\'s QR codes, newest first, paginated', async () => {
      const u = await t.makeUser()
      const one = await create(u, { type: 'text', data: 'one', name: 'One' })
      const two = await create(u, { type: 'link', data: 'https://example.com/two', name: 'Two' })
      const three = await create(u, { type: 'phone', data: '+15550003333' })
      const res = await u.api.get('/api/qr')
      expect(res.statusCode).toBe(200)
      const item = (x: { id: number; link: string }, name: string) => ({ id: x.id, link: x.link, scans: 0, name, date: expect.stringMatching(TS) })
      expect(res.json()).toEqual({
        error: '0',
        data: {
          result: 3,
          perpage: 15,
          currentpage: 1,
          nextpage: 1,
          maxpage: 1,
          qrs: [item(three, `phone ${toDay(new Date())}`), item(two, 'Two'), item(one, 'One')],
        },
      })
      expect((await u.api.get('/api/qr?limit=2&page=2')).json()).toEqual({
        error: '0',
        data: { result: 3, perpage: 2, currentpage: 2, nextpage: 2, maxpage: 2, qrs: [item(one, 'One')] },
      })
      expect((await u.api.get('/api/qr?limit=2&page=9')).json()).toEqual({
        error: '0',
        data: { result: 3, perpage: 2, currentpage: 9, nextpage: 2, maxpage: 2, qrs: [] },
      })
      const empty = await t.makeUser()
      expect((await empty.api.get('/api/qr')).json()).toEqual({ error: '0', data: { result: 0, perpage: 15, currentpage: 1, nextpage: 1, maxpage: 1, qrs: [] } })
    })

    it('refuses a bad limit or page', async () => {
      expectError(await a.api.get('/api/qr?limit=0'), 400, /^limit /)
      expectError(await a.api.get('/api/qr?page=abc'), 400, /^page must be a whole number\.$/)
    })

    it('needs a key', async () => {
      expectError(await t.api().get('/api/qr'), 401)
    })
  })

  describe('scans through the click pipeline', () => {
    it('counts GET scans; HEAD and bots are not scans; stats carry facebook, twitter and instagram', async () => {
      const { id, alias, link } = await create(a, { type: 'link', data: 'https://example.com/scan-me', name: 'Scanned' })
      expect((await get(t, `/q/${alias}`, { referer: 'https://www.instagram.com/p/abc/' })).statusCode).toBe(302)
      expect((await get(t, `/q/${alias}`, { referer: 'https://t.co/xyz' })).statusCode).toBe(302)
      expect((await get(t, `/q/${alias}`)).statusCode).toBe(302)
      const head = await get(t, `/q/${alias}`, {}, 'HEAD')
      expect(head.statusCode).toBe(302)
      expect(head.headers.location).toBe('https://example.com/scan-me')
      expect((await get(t, `/q/${alias}`, { 'user-agent': GOOGLEBOT })).statusCode).toBe(302)
      await t.app.clicks.flush()

      const res = await a.api.get(`/api/qr/${id}`)
      expect(res.json()).toEqual({
        error: 0,
        details: { id, link, scans: 3, name: 'Scanned', date: expect.stringMatching(TS) },
        data: {
          clicks: 3,
          uniqueClicks: 1,
          topCountries: { Unknown: '3' },
          topReferrers: { Direct: '1', 'instagram.com': '1', 't.co': '1' },
          topBrowsers: { Chrome: '3' },
          topOs: { Windows: '3' },
          socialCount: { facebook: 0, twitter: 1, instagram: 1 },
          botClicks: 1,
        },
      })
      const stored = await t.app.db.select().from(clicks).where(eq(clicks.qrId, id))
      expect(stored.map((c) => [c.source, c.bot]).sort()).toEqual([
        ['qr', false],
        ['qr', false],
        ['qr', false],
        ['qr', true],
      ])
      expect((await a.api.get('/api/qr')).json().data.qrs.find((q: { id: number }) => q.id === id).scans).toBe(3)
    })

    it('text and wifi codes have no scan target: 404, nothing recorded', async () => {
      const text = await create(a, { type: 'text', data: 'just text' })
      const wifi = await create(a, { type: 'wifi', data: { ssid: 'Lab', encryption: 'nopass' } })
      for (const x of [text, wifi]) expect((await get(t, `/q/${x.alias}`)).statusCode).toBe(404)
      await t.app.clicks.flush()
      for (const x of [text, wifi]) expect(await t.app.db.select().from(clicks).where(eq(clicks.qrId, x.id))).toEqual([])
    })

    it('an unknown or malformed alias is a 404 page', async () => {
      for (const url of ['/q/nope00', '/q/..%2Fetc', '/q/a-b_c']) {
        const res = await get(t, url)
        expect(res.statusCode).toBe(404)
        expect(res.headers['content-type']).toMatch(/^text\/html/)
      }
    })
  })

  describe('PUT /api/qr/:id/update', () => {
    it('changes the target of a tracked code; its image stays the same', async () => {
      const { id, alias } = await create(a, { type: 'link', data: 'https://example.com/old', name: 'Menu' })
      const before = (await get(t, `/qr/${alias}`)).rawPayload
      const res = await a.api.put(`/api/qr/${id}/update`, { data: 'https://example.com/new' })
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({ error: 0, message: 'QR code has been updated successfully.' })
      expect((await get(t, `/q/${alias}`)).headers.location).toBe('https://example.com/new')
      expect((await get(t, `/qr/${alias}`)).rawPayload.equals(before)).toBe(true)
      expect(await row(id)).toMatchObject({ type: 'link', data: 'https://example.com/new', name: 'Menu', background: 'rgb(255,255,255)', foreground: 'rgb(0,0,0)' })
    })

    it('keeps fields not sent, sets those sent, clears those sent as null or ""', async () => {
      const { id, alias } = await create(a, { type: 'text', data: 'v1', name: 'Named', background: 'rgb(250,250,210)', foreground: 'rgb(0,0,139)' })
      await a.api.put(`/api/qr/${id}/update`, { data: 'v2' })
      expect(await row(id)).toMatchObject({ data: 'v2', content: 'v2', name: 'Named', background: 'rgb(250,250,210)', foreground: 'rgb(0,0,139)' })
      expect(decodePng((await get(t, `/qr/${alias}`)).rawPayload).text).toBe('v2')

      await a.api.put(`/api/qr/${id}/update`, { data: 'v3', foreground: 'rgb(139,0,0)', name: 'Renamed' })
      expect(await row(id)).toMatchObject({ data: 'v3', name: 'Renamed', background: 'rgb(250,250,210)', foreground: 'rgb(139,0,0)' })

      const r = await row(id)
      await a.api.put(`/api/qr/${id}/update`, { data: 'v4', background: null, foreground: '', name: null })
      expect(await row(id)).toMatchObject({ data: 'v4', name: `text ${toDay(r.createdAt)}`, background: 'rgb(255,255,255)', foreground: 'rgb(0,0,0)' })
    })

    it('changes the type when it is sent: a text code becomes a tracked link', async () => {
      const { id, alias } = await create(a, { type: 'text', data: 'plain' })
      expect((await a.api.put(`/api/qr/${id}/update`, { type: 'link', data: 'https://example.com/now-a-link' })).statusCode).toBe(200)
      expect(decodePng((await get(t, `/qr/${alias}`)).rawPayload).text).toBe(`${PUBLIC}/q/${alias}`)
      expect((await get(t, `/q/${alias}`)).headers.location).toBe('https://example.com/now-a-link')
      expect((await a.api.put(`/api/qr/${id}/update`, { type: 'wifi', data: { ssid: 'Back', encryption: 'nopass' } })).statusCode).toBe(200)
      expect(decodePng((await get(t, `/qr/${alias}`)).rawPayload).text).toBe('WIFI:T:nopass;S:Back;;')
      expect((await get(t, `/q/${alias}`)).statusCode).toBe(404)
    })

    it.each([
      { name: 'no data', body: {}, message: /^data is required\.$/ },
      { name: 'data null', body: { data: null }, message: /^data is required\.$/ },
      { name: 'a javascript: URL', body: { data: 'javascript:alert(1)' }, message: /^data is refused: the javascript: scheme/ },
      { name: 'an object for a link', body: { data: { url: 'https://example.com' } }, message: /^data must be a string \(the URL\)/ },
      { name: 'an unknown type', body: { type: 'barcode', data: 'x' }, message: /^type must be one of: text, vcard, link, email, phone, sms, wifi\.$/ },
      { name: 'a data shape of the new type', body: { type: 'wifi', data: { ssid: 'x' } }, message: /^data\.encryption / },
      { name: 'a bad colour', body: { data: 'https://example.com', background: 'rgb(1,2,3,4)' }, message: /^background / },
      { name: 'too little contrast', body: { data: 'https://example.com', foreground: 'rgb(250,250,250)' }, message: /^foreground and background are too similar/ },
      { name: 'a private logo URL', body: { data: 'https://example.com', logo: 'https://10.0.0.1/logo.png' }, message: /^logo could not be fetched: the URL points at a private address/ },
      { name: 'a name too long', body: { data: 'https://example.com', name: 'n'.repeat(256) }, message: /^name must be at most 255 characters\.$/ },
    ])('refuses $name and changes nothing', async ({ body, message }) => {
      const { id } = await create(a, { type: 'link', data: 'https://example.com/keep', name: 'Keep' })
      const before = await row(id)
      expectError(await a.api.put(`/api/qr/${id}/update`, body), 400, message)
      expect(await row(id)).toEqual(before)
    })
  })

  describe('DELETE /api/qr/:id/delete', () => {
    it('deletes the code, its scans and its channel items in one go', async () => {
      const { id, alias } = await create(a, { type: 'link', data: 'https://example.com/bye' })
      const other = await create(a, { type: 'text', data: 'stays' })
      await get(t, `/q/${alias}`)
      await t.app.clicks.flush()
      const [channel] = await t.app.db.insert(channels).values({ userId: a.user.id, name: 'Print' }).returning()
      await t.app.db.insert(channelItems).values([
        { channelId: channel.id, itemType: 'qr', itemId: id },
        { channelId: channel.id, itemType: 'qr', itemId: other.id },
        { channelId: channel.id, itemType: 'links', itemId: id },
      ])

      const res = await a.api.del(`/api/qr/${id}/delete`)
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({ error: 0, message: 'QR code has been deleted successfully.' })

      expect(await row(id)).toBeUndefined()
      expect(await t.app.db.select().from(clicks).where(eq(clicks.qrId, id))).toEqual([])
      const items = await t.app.db.select({ type: channelItems.itemType, id: channelItems.itemId }).from(channelItems).where(eq(channelItems.channelId, channel.id))
      expect(items.sort((x, y) => x.type.localeCompare(y.type))).toEqual([
        { type: 'links', id },
        { type: 'qr', id: other.id },
      ])
      expectError(await a.api.get(`/api/qr/${id}`), 404, /^QR code not found\.$/)
      expectError(await a.api.del(`/api/qr/${id}/delete`), 404, /^QR code not found\.$/)
      expect((await get(t, `/qr/${alias}`)).statusCode).toBe(404)
      expect((await get(t, `/q/${alias}`)).statusCode).toBe(404)
    })
  })

  describe('another account\'s QR code', () => {
    it('is a 404 for read, update and delete, and stays unchanged', async () => {
      const { id, alias } = await create(a, { type: 'link', data: 'https://example.com/mine', name: 'Mine' })
      const [channel] = await t.app.db.insert(channels).values({ userId: a.user.id, name: 'Mine' }).returning()
      await t.app.db.insert(channelItems).values({ channelId: channel.id, itemType: 'qr', itemId: id })
      const before = await row(id)
      expectError(await b.api.get(`/api/qr/${id}`), 404, /^QR code not found\.$/)
      expectError(await b.api.put(`/api/qr/${id}/update`, { data: 'https://evil.example/' }), 404, /^QR code not found\.$/)
      expectError(await b.api.put(`/api/qr/${id}/update`, { type: 'text', data: 'owned' }), 404, /^QR code not found\.$/)
      expectError(await b.api.del(`/api/qr/${id}/delete`), 404, /^QR code not found\.$/)
      expect(await row(id)).toEqual(before)
      expect(await t.app.db.select().from(channelItems).where(and(eq(channelItems.itemType, 'qr'), eq(channelItems.itemId, id)))).toHaveLength(1)
      expect((await get(t, `/q/${alias}`)).headers.location).toBe('https://example.com/mine')
      expect((await b.api.get('/api/qr')).json().data.qrs.map((q: { id: number }) => q.id)).not.toContain(id)
    })

    it.each(['0', '-1', 'abc', '2147483648', '1.5', '99999'])('path id %s names no object: 404', async (id) => {
      expectError(await a.api.get(`/api/qr/${id}`), 404)
      expectError(await a.api.put(`/api/qr/${id}/update`, { data: 'x' }), 404)
      expectError(await a.api.del(`/api/qr/${id}/delete`), 404)
    })
  })

  describe('POST /api/qr/add refuses bad input, naming the field, writing nothing', () => {
    const big = `data:image/png;base64,${Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(300 * 1024, 7)]).toString('base64')}`
    const html = `data:image/png;base64,${Buffer.from('<html><script>alert(1)</script></html>').toString('base64')}`
    it.each([
      { name: 'an empty body', body: {}, message: /^type must be one of: text, vcard, link, email, phone, sms, wifi\.$/ },
      { name: 'an unknown type', body: { type: 'barcode', data: 'x' }, message: /^type must be one of/ },
      { name: 'a numeric type', body: { type: 3, data: 'x' }, message: /^type / },
      { name: 'no data', body: { type: 'link' }, message: /^data is required\.$/ },
      { name: 'empty data', body: { type: 'text', data: '' }, message: /^data is required\.$/ },
      { name: 'a number as text', body: { type: 'text', data: 123 }, message: /^data must be a string for type text\.$/ },
      { name: 'text too long for a QR code', body: { type: 'text', data: 'x'.repeat(3000) }, message: /^data is too long to fit in a QR code; shorten it\.$/ },
      { name: 'a javascript: link', body: { type: 'link', data: 'javascript:alert(1)' }, message: /^data is refused: the javascript: scheme is not allowed\.$/ },
      { name: 'a mixed-case javascript: link', body: { type: 'link', data: 'JaVaScRiPt:alert(1)' }, message: /^data is refused: the javascript: scheme/ },
      { name: 'a file: link', body: { type: 'link', data: 'file:///etc/passwd' }, message: /^data is refused: the file: scheme/ },
      { name: 'a relative link', body: { type: 'link', data: '/just/a/path' }, message: /^data must be an absolute URL/ },
      { name: 'a link with credentials', body: { type: 'link', data: 'https://user:pass@example.com/' }, message: /^data must not contain a user name or password\.$/ },
      { name: 'a link over 8 KiB', body: { type: 'link', data: `https://example.com/${'a'.repeat(8200)}` }, message: /^data must be at most 8192 characters\.$/ },
      { name: 'an object as link', body: { type: 'link', data: { url: 'https://example.com' } }, message: /^data must be a string \(the URL\) for type link\.$/ },
      { name: 'a bad phone number', body: { type: 'phone', data: 'call me maybe' }, message: /^data must be a phone number/ },
      { name: 'a bad e-mail address', body: { type: 'email', data: 'not-an-address' }, message: /^data must be a valid e-mail address/ },
      { name: 'an email object without email', body: { type: 'email', data: { subject: 'Hi' } }, message: /^data\.email / },
      { name: 'an email object with a bad email', body: { type: 'email', data: { email: 'a@b' } }, message: /^data\.email must be a valid email address\.$/ },
      { name: 'an sms without phone', body: { type: 'sms', data: { message: 'hi' } }, message: /^data\.phone / },
      { name: 'an sms with a bad phone', body: { type: 'sms', data: { phone: 'abc' } }, message: /^data\.phone must be a phone number/ },
      { name: 'wifi without ssid', body: { type: 'wifi', data: { password: '12345678', encryption: 'WPA' } }, message: /^data\.ssid / },
      { name: 'wifi with an unknown encryption', body: { type: 'wifi', data: { ssid: 'Net', encryption: 'WPA9' } }, message: /^data\.encryption must be one of WPA, WEP, nopass\.$/ },
      { name: 'wifi as free text', body: { type: 'wifi', data: 'my home network' }, message: /^data must be an object \{ssid, password, encryption\}/ },
      { name: 'a vcard without fname', body: { type: 'vcard', data: { lname: 'Lovelace' } }, message: /^data\.fname / },
      { name: 'a vcard with a bad email', body: { type: 'vcard', data: { fname: 'Ada', email: 'nope' } }, message: /^data\.email / },
      { name: 'a vcard with a javascript: site', body: { type: 'vcard', data: { fname: 'Ada', site: 'javascript:alert(1)' } }, message: /^data\.site / },
      { name: 'a vcard as an array', body: { type: 'vcard', data: ['Ada'] }, message: /^data must be an object \{fname/ },
      { name: 'background rgb(300,0,0)', body: { type: 'text', data: 'x', background: 'rgb(300,0,0)' }, message: /^background must be a colour like rgb\(255,255,255\), each value from 0 to 255\.$/ },
      { name: 'a named foreground colour', body: { type: 'text', data: 'x', foreground: 'blue' }, message: /^foreground / },
      { name: 'a numeric background', body: { type: 'text', data: 'x', background: 255 }, message: /^background must be a string/ },
      { name: 'foreground equal to background', body: { type: 'text', data: 'x', foreground: 'rgb(255,255,255)' }, message: /^foreground and background are too similar/ },
      { name: 'a name too long', body: { type: 'text', data: 'x', name: 'n'.repeat(256) }, message: /^name / },
      { name: 'a numeric logo', body: { type: 'text', data: 'x', logo: 12 }, message: /^logo must be a string/ },
      { name: 'an http logo', body: { type: 'text', data: 'x', logo: 'http://example.com/logo.png' }, message: /^logo must be an https:\/\/ URL or a data: URL of a PNG or JPEG image\.$/ },
      { name: 'a server path as logo', body: { type: 'text', data: 'x', logo: '/etc/passwd' }, message: /^logo must be an https:\/\/ URL/ },
      { name: 'a loopback logo', body: { type: 'text', data: 'x', logo: 'https://127.0.0.1/logo.png' }, message: /^logo could not be fetched: the URL points at a loopback address, which is not allowed\.$/ },
      { name: 'a metadata logo', body: { type: 'text', data: 'x', logo: 'https://169.254.169.254/latest/logo.png' }, message: /^logo could not be fetched: the URL points at a link-local \(cloud metadata\) address/ },
      { name: 'a decimal loopback logo', body: { type: 'text', data: 'x', logo: 'https://2130706433/logo.png' }, message: /^logo could not be fetched: the URL points at a loopback address/ },
      { name: 'a mapped IPv6 loopback logo', body: { type: 'text', data: 'x', logo: 'https://[::ffff:127.0.0.1]/logo.png' }, message: /^logo could not be fetched: the URL points at an IPv4-mapped loopback address/ },
      { name: 'a localhost logo', body: { type: 'text', data: 'x', logo: 'https://localhost/logo.png' }, message: /^logo could not be fetched: the URL points at a loopback address/ },
      { name: 'an oversize logo', body: { type: 'text', data: 'x', logo: big }, message: /^logo must be at most 256 KiB\.$/ },
      { name: 'a non-image logo', body: { type: 'text', data: 'x', logo: html }, message: /^logo must be a PNG or JPEG image\.$/ },
      { name: 'a text/html data: logo', body: { type: 'text', data: 'x', logo: 'data:text/html;base64,PGI+eDwvYj4=' }, message: /^logo must be a PNG or JPEG image\.$/ },
    ])('$name', async ({ body, message }) => {
      const before = await qrCount(t)
      expectError(await a.api.post('/api/qr/add', body), 400, message)
      expect(await qrCount(t)).toBe(before)
    })

    it('a body that is not JSON is a 400, a wrong content type a 415', async () => {
      const before = await qrCount(t)
      expectError(await a.api.post('/api/qr/add', '{"type":', { 'content-type': 'application/json' }), 400)
      expectError(await a.api.post('/api/qr/add', 'type=text', { 'content-type': 'application/x-www-form-urlencoded' }), 415)
      expect(await qrCount(t)).toBe(before)
    })
  })
})
