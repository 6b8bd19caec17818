import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { domains, links } from '../../src/db/schema/index.js'
import { appWith, type TestApp, type TestUser } from '../helpers/app.js'
import { aliasOf, decodePng, decodeSvg, get, pixel, PUBLIC, type Decoded } from './qr-helpers.js'

const SIZE_ERROR = { error: 1, message: 'size must be a whole number of pixels from 64 to 1024.' }

/** The first pixel along the diagonal that differs from the corner: it lies in the top-left finder pattern. */
function firstDark(d: Decoded): [number, number, number] {
  const corner = pixel(d, 0, 0).join()
  for (let i = 0; i < d.width; i++) if (pixel(d, i, i).join() !== corner) return pixel(d, i, i)
  throw new Error('no module found')
}

describe('QR images', () => {
  let t: TestApp
  let u: TestUser
  let alias: string
  beforeAll(async () => {
    [t, u] = await appWith({})
    alias = aliasOf((await u.api.post('/api/qr/add', { type: 'link', data: 'https://example.com/menu' })).json().link)
  })
  afterAll(() => t.close())

  describe('GET /qr/:alias', () => {
    it('is a 300 px PNG by default, with an ETag and Cache-Control', async () => {
      const res = await get(t, `/qr/${alias}`)
      expect(res.statusCode).toBe(200)
      expect(res.headers['content-type']).toBe('image/png')
      expect(res.headers['cache-control']).toBe('public, max-age=300')
      expect(res.headers['x-content-type-options']).toBe('nosniff')
      expect(res.headers.etag).toMatch(/^"qr-[A-Za-z0-9_-]{32}"$/)
      const d = decodePng(res.rawPayload)
      expect([d.width, d.height]).toEqual([300, 300])
      expect(d.text).toBe(`${PUBLIC}/q/${alias}`)
    })

    it.each([64, 128, 1024])('renders ?size=%i exactly, and it still decodes', async (size) => {
      const res = await get(t, `/qr/${alias}?size=${size}`)
      expect(res.statusCode).toBe(200)
      const d = decodePng(res.rawPayload)
      expect([d.width, d.height]).toEqual([size, size])
      expect(d.text).toBe(`${PUBLIC}/q/${alias}`)
    })

    it.each(['63', '1025', '2048', '0', '-100', 'abc', '300px', '3e2', '99999999'])('refuses ?size=%s with a 400 naming size', async (size) => {
      const res = await get(t, `/qr/${alias}?size=${size}`)
      expect(res.statusCode).toBe(400)
      expect(res.json()).toEqual(SIZE_ERROR)
    })

    // "same options" as /<alias>/qr/<size> (DECISIONS §5): the size may be the path's last part
    it('renders /qr/<alias>/<size> as ?size= does, and refuses a bad one the same way', async () => {
      const res = await get(t, `/qr/${alias}/128?format=png`)
      expect(res.statusCode).toBe(200)
      const d = decodePng(res.rawPayload)
      expect([d.width, d.height]).toEqual([128, 128])
      expect(d.text).toBe(`${PUBLIC}/q/${alias}`)
      expect((await get(t, `/qr/${alias}/1025`)).json()).toEqual(SIZE_ERROR)
      expect((await get(t, '/qr/nosuchcode/128')).statusCode).toBe(404)
    })

    it('refuses an unknown format and a bad colour', async () => {
      expect((await get(t, `/qr/${alias}?format=gif`)).json()).toEqual({ error: 1, message: 'format must be png or svg.' })
      expect((await get(t, `/qr/${alias}?foreground=rgb(300,0,0)`)).json()).toEqual({
        error: 1,
        message: 'foreground must be a colour like rgb(255,255,255) or #ffffff.',
      })
    })

    it('serves valid SVG with ?format=svg, which rasterises to the same code', async () => {
      const res = await get(t, `/qr/${alias}?format=svg&size=256`)
      expect(res.statusCode).toBe(200)
      expect(res.headers['content-type']).toBe('image/svg+xml')
      expect(res.headers['content-security-policy']).toBe("default-src 'none'; img-src data:; style-src 'unsafe-inline'")
      const svg = res.body
      expect(svg).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<svg xmlns="http:\/\/www.w3.org\/2000\/svg" [^>]*width="256" height="256" viewBox="0 0 \d+ \d+"/)
      expect(svg.trimEnd().endsWith('</svg>')).toBe(true)
      expect(svg).not.toMatch(/<script|on\w+=/i)
      const d = await decodeSvg(res.rawPayload)
      expect([d.width, d.height]).toEqual([256, 256])
      expect(d.text).toBe(`${PUBLIC}/q/${alias}`)
    })

    it('applies the stored colours (pixel check), and query colours override them', async () => {
      const made = await u.api.post('/api/qr/add', { type: 'text', data: 'colours', background: 'rgb(255,250,205)', foreground: 'rgb(128,0,32)' })
      const a = aliasOf(made.json().link)
      const d = decodePng((await get(t, `/qr/${a}`)).rawPayload)
      expect(pixel(d, 0, 0)).toEqual([255, 250, 205])
      expect(firstDark(d)).toEqual([128, 0, 32])
      expect(d.text).toBe('colours')

      const o = decodePng((await get(t, `/qr/${a}?foreground=%23003366&background=rgb(240,248,255)`)).rawPayload)
      expect(pixel(o, 0, 0)).toEqual([240, 248, 255])
      expect(firstDark(o)).toEqual([0, 51, 102])

      const svg = (await get(t, `/qr/${a}?format=svg`)).body
      expect(svg).toContain('<rect width="')
      expect(svg).toContain('fill="rgb(255,250,205)"')
      expect(svg).toContain('<path fill="rgb(128,0,32)"')
    })

    it('answers 304 to a matching If-None-Match; another size has another ETag', async () => {
      const first = await get(t, `/qr/${alias}?size=200`)
      const etag = String(first.headers.etag)
      const again = await get(t, `/qr/${alias}?size=200`, { 'if-none-match': etag })
      expect(again.statusCode).toBe(304)
      expect(again.body).toBe('')
      expect((await get(t, `/qr/${alias}?size=200`, { 'if-none-match': `W/${etag}, "other"` })).statusCode).toBe(304)
      const other = await get(t, `/qr/${alias}?size=201`, { 'if-none-match': etag })
      expect(other.statusCode).toBe(200)
      expect(other.headers.etag).not.toBe(etag)
      expect((await get(t, `/qr/${alias}?size=200&format=svg`)).headers.etag).not.toBe(etag)
    })

    it('changes its ETag and image when the code changes', async () => {
      const made = (await u.api.post('/api/qr/add', { type: 'text', data: 'before' })).json()
      const a = aliasOf(made.link)
      const before = await get(t, `/qr/${a}`)
      await u.api.put(`/api/qr/${made.id}/update`, { data: 'after' })
      const after = await get(t, `/qr/${a}`, { 'if-none-match': String(before.headers.etag) })
      expect(after.statusCode).toBe(200)
      expect(decodePng(after.rawPayload).text).toBe('after')
    })

    it('answers HEAD with the headers only', async () => {
      const res = await get(t, `/qr/${alias}`, {}, 'HEAD')
      expect(res.statusCode).toBe(200)
      expect(res.headers['content-type']).toBe('image/png')
      expect(res.body).toBe('')
    })

    it.each(['/qr/nope00', '/qr/a-b', '/qr/a%20b'])('%s is a 404 page', async (url) => {
      const res = await get(t, url)
      expect(res.statusCode).toBe(404)
      expect(res.headers['content-type']).toMatch(/^text\/html/)
    })

    it('needs no API key and is not rate limited by the API budget', async () => {
      const res = await t.app.inject({ method: 'GET', url: `/qr/${alias}`, headers: { host: 'kurz.test' } })
      expect(res.statusCode).toBe(200)
      expect(res.headers['x-ratelimit-limit']).toBeUndefined()
    })
  })

  describe("GET /:alias/qr and /:alias/qr/:size – a link's QR code", () => {
    beforeAll(async () => {
      const [domain] = await t.app.db.insert(domains).values({ userId: u.user.id, domain: 'https://go.example', host: 'go.example' }).returning()
      await t.app.db.insert(links).values([
        { userId: u.user.id, alias: 'abc123', url: 'https://example.com/a' },
        { userId: u.user.id, alias: 'promo', url: 'https://example.com/p', domainId: domain.id },
        { userId: u.user.id, alias: 'off123', url: 'https://example.com/off', disabled: true },
      ])
    })

    it('encodes the short URL on the default domain', async () => {
      const res = await get(t, '/abc123/qr')
      expect(res.statusCode).toBe(200)
      expect(res.headers['content-type']).toBe('image/png')
      const d = decodePng(res.rawPayload)
      expect([d.width, d.height]).toEqual([300, 300])
      expect(d.text).toBe(`${PUBLIC}/abc123`)
    })

    it('encodes the short URL on a branded domain, looked up by the request host', async () => {
      const res = await get(t, '/promo/qr', { host: 'go.example' })
      expect(res.statusCode).toBe(200)
      expect(decodePng(res.rawPayload).text).toBe('https://go.example/promo')
      // the alias lives on the branded domain only
      expect((await get(t, '/promo/qr')).statusCode).toBe(404)
      expect((await get(t, '/abc123/qr', { host: 'go.example' })).statusCode).toBe(404)
    })

    it('takes the size from the path and the options from the query', async () => {
      const d = decodePng((await get(t, '/abc123/qr/128')).rawPayload)
      expect([d.width, d.height]).toEqual([128, 128])
      expect(d.text).toBe(`${PUBLIC}/abc123`)
      const svg = await get(t, '/abc123/qr/512?format=svg')
      expect(svg.headers['content-type']).toBe('image/svg+xml')
      expect((await decodeSvg(svg.rawPayload)).text).toBe(`${PUBLIC}/abc123`)
      const coloured = decodePng((await get(t, '/abc123/qr?foreground=rgb(0,100,0)')).rawPayload)
      expect(firstDark(coloured)).toEqual([0, 100, 0])
    })

    it.each(['/abc123/qr/63', '/abc123/qr/1025', '/abc123/qr/big', '/abc123/qr?size=10'])('refuses %s with a 400 naming size', async (url) => {
      const res = await get(t, url)
      expect(res.statusCode).toBe(400)
      expect(res.json()).toEqual(SIZE_ERROR)
    })

    it.each(['/nope99/qr', '/off123/qr', '/nope99/qr/128'])('%s is a 404 page (no such link, or disabled)', async (url) => {
      const res = await get(t, url)
      expect(res.statusCode).toBe(404)
      expect(res.headers['content-type']).toMatch(/^text\/html/)
    })

    it('is cached with an ETag', async () => {
      const first = await get(t, '/abc123/qr')
      expect((await get(t, '/abc123/qr', { 'if-none-match': String(first.headers.etag) })).statusCode).toBe(304)
    })
  })
})
