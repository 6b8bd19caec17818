import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { LightMyRequestResponse } from 'fastify'
import { testApp, type TestApp, type TestUser } from '../helpers/app.js'

const APP = 'https://app.example.com'
const OTHER = 'https://evil.example'

const corsHeaders = (res: LightMyRequestResponse) => Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))

function preflight(t: TestApp, url: string, origin: string, method = 'POST') {
  return t.app.inject({
    method: 'OPTIONS',
    url,
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization, content-type' },
  })
}

describe('CORS_ORIGINS set', () => {
  let t: TestApp
  let u: TestUser
  beforeAll(async () => {
    t = await testApp({ CORS_ORIGINS: `${APP}, http://localhost:5173` })
    u = await t.makeUser()
  })
  afterAll(() => t.close())

  it('answers a preflight to the management interface from an allowed origin', async () => {
    const res = await preflight(t, '/api/url/add', APP)
    expect(res.statusCode).toBe(204)
    expect(res.headers['access-control-allow-origin']).toBe(APP)
    expect(String(res.headers['access-control-allow-methods']).split(/,\s*/)).toEqual(expect.arrayContaining(['GET', 'POST', 'PUT', 'DELETE']))
    expect(String(res.headers['access-control-allow-headers']).toLowerCase().split(/,\s*/)).toEqual(expect.arrayContaining(['authorization', 'content-type']))
    expect(res.headers['access-control-allow-credentials']).toBeUndefined()
    expect(res.headers['access-control-max-age']).toBe('600')
    expect(String(res.headers.vary)).toMatch(/Origin/i)
  })

  it('answers preflights of the v1 interface, its delete path included', async () => {
    for (const [url, method] of [['/api/v1/links/1', 'PUT'], ['/links/1/destroy', 'DELETE']]) {
      const res = await preflight(t, url, 'http://localhost:5173', method)
      expect(res.statusCode, url).toBe(204)
      expect(res.headers['access-control-allow-origin'], url).toBe('http://localhost:5173')
    }
  })

  it('lets the allowed origin read answers, failures and rate-limit headers included', async () => {
    const ok = await u.api.get('/api/account', { origin: APP })
    expect(ok.statusCode).toBe(200)
    expect(ok.headers['access-control-allow-origin']).toBe(APP)
    expect(String(ok.headers['access-control-expose-headers']).toLowerCase()).toContain('x-ratelimit-remaining')
    const created = await u.api.post('/api/url/add', { url: 'https://example.com/cors' }, { origin: APP })
    expect(created.statusCode).toBe(200)
    expect(created.headers['access-control-allow-origin']).toBe(APP)
    const denied = await t.api().get('/api/account', { origin: APP })
    expect(denied.statusCode).toBe(401)
    expect(denied.headers['access-control-allow-origin']).toBe(APP)
  })

  it('lets the allowed origin read the 404 of an API path no route answers', async () => {
    for (const [method, url] of [['GET', '/api/no-such-thing'], ['PATCH', '/api/url/1'], ['GET', '/links/1/destroy']] as const) {
      const res = await t.app.inject({ method, url, headers: { origin: APP, authorization: `Bearer ${u.key}` } })
      expect(res.statusCode, url).toBe(404)
      expect(res.headers['access-control-allow-origin'], url).toBe(APP)
      expect(res.json().error, url).toBe(1)
    }
    // other paths' 404s carry none
    const page = await t.app.inject({ method: 'GET', url: '/no/such/page', headers: { origin: APP } })
    expect(page.statusCode).toBe(404)
    expect(corsHeaders(page)).toEqual([])
  })

  it('gives an origin not on the list no CORS header at all', async () => {
    const pre = await preflight(t, '/api/url/add', OTHER)
    expect(pre.statusCode).toBe(404)
    expect(corsHeaders(pre)).toEqual([])
    const res = await u.api.get('/api/account', { origin: OTHER })
    expect(res.statusCode).toBe(200)
    expect(corsHeaders(res)).toEqual([])
    // an origin differing only in scheme or port is another origin
    expect(corsHeaders(await u.api.get('/api/account', { origin: 'http://app.example.com' }))).toEqual([])
    expect(corsHeaders(await u.api.get('/api/account', { origin: 'https://app.example.com:8443' }))).toEqual([])
  })

  it('never puts CORS headers on short links, pages or the dashboard', async () => {
    const created = (await u.api.post('/api/url/add', { url: 'https://example.com/short', custom: 'corslink' })).json()
    expect(created.error).toBe(0)
    const visit = await t.app.inject({ method: 'GET', url: '/corslink', headers: { origin: APP } })
    expect(visit.statusCode).toBe(302)
    expect(corsHeaders(visit)).toEqual([])
    expect(String(visit.headers.vary ?? '')).not.toMatch(/Origin/i)
    const linkPreflight = await preflight(t, '/corslink', APP, 'GET')
    expect(corsHeaders(linkPreflight)).toEqual([])
    for (const url of ['/login', '/dashboard', '/healthz', '/openapi.json', '/missing-alias']) {
      const res = await t.app.inject({ method: 'GET', url, headers: { origin: APP } })
      expect(corsHeaders(res), url).toEqual([])
    }
  })
})

describe('CORS_ORIGINS=*', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await testApp({ CORS_ORIGINS: '*' })
  })
  afterAll(() => t.close())

  it('allows any origin on the API, still not on short links', async () => {
    const res = await preflight(t, '/api/urls', OTHER, 'GET')
    expect(res.statusCode).toBe(204)
    expect(res.headers['access-control-allow-origin']).toBe('*')
    expect(corsHeaders(await t.app.inject({ method: 'GET', url: '/some-alias', headers: { origin: OTHER } }))).toEqual([])
  })
})

describe('CORS_ORIGINS unset (the default)', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await testApp()
  })
  afterAll(() => t.close())

  it('sends no CORS header anywhere', async () => {
    const pre = await preflight(t, '/api/url/add', APP)
    expect(pre.statusCode).toBe(404)
    expect(corsHeaders(pre)).toEqual([])
    const u = await t.makeUser()
    expect(corsHeaders(await u.api.get('/api/account', { origin: APP }))).toEqual([])
  })
})
