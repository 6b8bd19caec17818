import http from 'node:http'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { qrCodes } from '../../src/db/schema/index.js'
import { ApiError } from '../../src/http/errors.js'
import { loadLogo, MAX_LOGO_BYTES } from '../../src/resources/qr/logo.js'
import { appWith, expectError, type TestApp, type TestUser } from '../helpers/app.js'
import { closeServer, listenLocally } from '../helpers/local-server.js'
import { rejectionOf } from '../helpers/rejection.js'
import { aliasOf, decodePng, decodeSvg, get, logoDataUrl, pixel, PUBLIC, qrCount } from './qr-helpers.js'

const CRIMSON = { r: 220, g: 20, b: 60 }

const refusal = (p: Promise<unknown>) => rejectionOf(p, ApiError, 'expected the logo to be refused')

describe('QR logos', () => {
  let t: TestApp
  let u: TestUser
  let png: string
  let jpeg: string
  beforeAll(async () => {
    [t, u] = await appWith({})
    png = await logoDataUrl('png', CRIMSON)
    jpeg = await logoDataUrl('jpeg', CRIMSON)
  })
  afterAll(() => t.close())

  const centre = (body: Buffer) => {
    const d = decodePng(body)
    return { d, rgb: pixel(d, d.width >> 1, d.height >> 1) }
  }
  const near = (a: number[], b: number[], tolerance = 12) => a.every((v, i) => Math.abs(v - b[i]) <= tolerance)

  it.each(['png', 'jpeg'] as const)('a %s data: logo is stored, composited in the centre, and the code still decodes (level H)', async (format) => {
    const logo = format === 'png' ? png : jpeg
    const res = await u.api.post('/api/qr/add', { type: 'link', data: 'https://example.com/with-logo', logo })
    expect(res.statusCode).toBe(200)
    const { id, link } = res.json()
    const alias = aliasOf(link)
    const [row] = await t.app.db.select().from(qrCodes).where(eq(qrCodes.id, id))
    expect(row.logo).toBe(logo)
    expect(row.logoHash).toMatch(/^[A-Za-z0-9_-]{22}$/)

    for (const size of [300, 1024, 96]) {
      const { d, rgb } = centre((await get(t, `/qr/${alias}?size=${size}`)).rawPayload)
      expect(d.text).toBe(`${PUBLIC}/q/${alias}`)
      expect(near(rgb, [CRIMSON.r, CRIMSON.g, CRIMSON.b])).toBe(true)
    }
    const svg = await get(t, `/qr/${alias}?format=svg`)
    expect(svg.body).toContain(`href="${logo}"`)
    expect((await decodeSvg(svg.rawPayload)).text).toBe(`${PUBLIC}/q/${alias}`)
  })

  it('a long text with a logo still decodes', async () => {
    const text = 'Kurz QR '.repeat(40).trim()
    const res = await u.api.post('/api/qr/add', { type: 'text', data: text, logo: png, foreground: 'rgb(0,0,80)' })
    const { d } = centre((await get(t, `/qr/${aliasOf(res.json().link)}?size=600`)).rawPayload)
    expect(d.text).toBe(text)
  })

  it('text that fits without a logo but not at level H is refused with a logo', async () => {
    const before = await qrCount(t)
    expectError(await u.api.post('/api/qr/add', { type: 'text', data: 'x'.repeat(1500), logo: png }), 400, /^data is too long to fit in a QR code with a logo; shorten it or drop the logo\.$/)
    expect(await qrCount(t)).toBe(before)
    expect((await u.api.post('/api/qr/add', { type: 'text', data: 'x'.repeat(1500) })).statusCode).toBe(200)
  })

  it('update adds a logo, keeps it when not sent, and removes it when sent as null', async () => {
    const { id, link } = (await u.api.post('/api/qr/add', { type: 'link', data: 'https://example.com/l' })).json()
    const alias = aliasOf(link)
    expect(near(centre((await get(t, `/qr/${alias}`)).rawPayload).rgb, [CRIMSON.r, CRIMSON.g, CRIMSON.b])).toBe(false)

    expect((await u.api.put(`/api/qr/${id}/update`, { data: 'https://example.com/l', logo: png })).statusCode).toBe(200)
    expect(near(centre((await get(t, `/qr/${alias}`)).rawPayload).rgb, [CRIMSON.r, CRIMSON.g, CRIMSON.b])).toBe(true)

    expect((await u.api.put(`/api/qr/${id}/update`, { data: 'https://example.com/m' })).statusCode).toBe(200)
    const kept = centre((await get(t, `/qr/${alias}`)).rawPayload)
    expect(near(kept.rgb, [CRIMSON.r, CRIMSON.g, CRIMSON.b])).toBe(true)
    expect(kept.d.text).toBe(`${PUBLIC}/q/${alias}`)

    expect((await u.api.put(`/api/qr/${id}/update`, { data: 'https://example.com/m', logo: null })).statusCode).toBe(200)
    const [row] = await t.app.db.select().from(qrCodes).where(eq(qrCodes.id, id))
    expect([row.logo, row.logoHash]).toEqual([null, null])
    expect(near(centre((await get(t, `/qr/${alias}`)).rawPayload).rgb, [CRIMSON.r, CRIMSON.g, CRIMSON.b])).toBe(false)
  })

  describe('data: logos that are refused', () => {
    it.each([
      ['no base64 marker', 'data:image/png,abc', /^logo must be a base64 data: URL/],
      ['bad base64', 'data:image/png;base64,@@@@', /^logo is not valid base64\.$/],
      ['a GIF', `data:image/gif;base64,${Buffer.from('GIF89a').toString('base64')}`, /^logo must be a PNG or JPEG image\.$/],
      ['GIF bytes labelled PNG', `data:image/png;base64,${Buffer.from('GIF89a\x01\x00\x01\x00').toString('base64')}`, /^logo must be a PNG or JPEG image\.$/],
      ['a damaged PNG', `data:image/png;base64,${Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(64, 3)]).toString('base64')}`, /^logo could not be decoded/],
      ['an empty payload', 'data:image/png;base64,', /^logo is empty\.$/],
    ])('%s', async (_name, logo, message) => {
      const before = await qrCount(t)
      expectError(await u.api.post('/api/qr/add', { type: 'text', data: 'x', logo }), 400, message)
      expect(await qrCount(t)).toBe(before)
    })

    it('a decompression bomb (tiny file, huge pixel count) is refused', async () => {
      const bomb = await sharp({ create: { width: 4200, height: 4200, channels: 3, background: { r: 255, g: 255, b: 255 } } })
        .png({ compressionLevel: 9, palette: true, colours: 2 })
        .toBuffer()
      expect(bomb.length).toBeLessThan(MAX_LOGO_BYTES)
      const before = await qrCount(t)
      expectError(
        await u.api.post('/api/qr/add', { type: 'text', data: 'x', logo: `data:image/png;base64,${bomb.toString('base64')}` }),
        400,
        /^logo could not be decoded as a PNG or JPEG image \(damaged, or larger than 4096 × 4096 pixels\)\.$/,
      )
      expect(await qrCount(t)).toBe(before)
    })
  })

  describe('URL logos, fetched once through the SSRF guard', () => {
    let server: http.Server
    let base: string
    let hits = 0
    let logoBytes: Buffer
    beforeAll(async () => {
      logoBytes = await sharp({ create: { width: 64, height: 64, channels: 3, background: CRIMSON } }).png().toBuffer()
      server = http.createServer((req, res) => {
        hits++
        switch (req.url) {
          case '/logo.png':
            res.writeHead(200, { 'content-type': 'image/png' })
            return res.end(logoBytes)
          case '/octet':
            res.writeHead(200, { 'content-type': 'application/octet-stream' })
            return res.end(logoBytes)
          case '/page.html':
            res.writeHead(200, { 'content-type': 'text/html' })
            return res.end('<html></html>')
          case '/fake.png':
            res.writeHead(200, { 'content-type': 'image/png' })
            return res.end('<html>not a png</html>')
          case '/huge.png':
            res.writeHead(200, { 'content-type': 'image/png' })
            return res.end(Buffer.concat([logoBytes, Buffer.alloc(MAX_LOGO_BYTES)]))
          case '/to-private':
            res.writeHead(302, { location: 'http://192.168.0.10/logo.png' })
            return res.end()
          case '/slow':
            res.writeHead(200, { 'content-type': 'image/png' })
            return res.write(logoBytes.subarray(0, 10))
          default:
            res.writeHead(404)
            return res.end()
        }
      })
      base = await listenLocally(server)
    })
    afterAll(() => closeServer(server))

    // the test server is plain http on loopback: these options exist for tests only
    const local = { allowLoopback: true, protocols: ['https:', 'http:'] as ('https:' | 'http:')[], ports: 'any' as const, timeoutMs: 500 }

    it('fetches a PNG (image/png or octet-stream) into a data: URL', async () => {
      const expected = `data:image/png;base64,${logoBytes.toString('base64')}`
      expect((await loadLogo(`${base}/logo.png`, local)).dataUrl).toBe(expected)
      expect((await loadLogo(`${base}/octet`, local)).dataUrl).toBe(expected)
    })

    it.each([
      ['/page.html', /^logo could not be fetched: the URL answered with content type "text\/html", which is not accepted\.$/],
      ['/fake.png', /^logo must be a PNG or JPEG image\.$/],
      ['/huge.png', /^logo must be at most 256 KiB\.$/],
      ['/to-private', /^logo could not be fetched: the URL points at a private address, which is not allowed\.$/],
      ['/slow', /^logo could not be fetched: the URL did not answer within 0.5 s\.$/],
      ['/missing.png', /^logo could not be fetched: the URL answered with HTTP status 404\.$/],
    ])('refuses %s', async (path, message) => {
      const err = await refusal(loadLogo(`${base}${path}`, local))
      expect(err.status).toBe(400)
      expect(err.message).toMatch(message)
      expect(err.fields).toEqual({ logo: [err.message] })
    })

    it('through the API the local server is refused before any request, and nothing is written', async () => {
      const before = await qrCount(t)
      const hitsBefore = hits
      const httpsUrl = base.replace('http:', 'https:')
      expectError(
        await u.api.post('/api/qr/add', { type: 'link', data: 'https://example.com', logo: `${httpsUrl}/logo.png` }),
        400,
        /^logo could not be fetched: the URL must use a standard port \(80, 443, 8080, 8443\)\.$/,
      )
      expectError(await u.api.post('/api/qr/add', { type: 'link', data: 'https://example.com', logo: 'https://127.0.0.1:8443/logo.png' }), 400, /points at a loopback address/)
      expectError(await u.api.post('/api/qr/add', { type: 'link', data: 'https://example.com', logo: `${base}/logo.png` }), 400, /^logo must be an https:\/\/ URL/)
      expect(hits).toBe(hitsBefore)
      expect(await qrCount(t)).toBe(before)
    })
  })
})
