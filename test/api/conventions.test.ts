import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { users } from '../../src/db/schema/index.js'
import { appWith, TS, type TestApp, type TestUser } from '../helpers/app.js'
import { rowCounts } from '../helpers/accounts.js'

/** DECISIONS §2: the conventions every management endpoint shares. */
describe('shared API conventions', () => {
  let t: TestApp
  let u: TestUser
  let admin: TestUser
  beforeAll(async () => { [t, u, admin] = await appWith({}, { admin: true }) })
  afterAll(() => t.close())

  /** Every management failure is exactly {error: 1, message} with a sentence. */
  function expectEnvelope(res: { statusCode: number; json(): any; headers: Record<string, unknown> }, status: number, message?: RegExp) {
    expect(res.statusCode).toBe(status)
    expect(res.headers['content-type']).toMatch(/^application\/json/)
    const body = res.json()
    expect(Object.keys(body).sort()).toEqual(['error', 'message'])
    expect(body.error).toBe(1)
    expect(typeof body.message).toBe('string')
    expect(body.message.length).toBeGreaterThan(3)
    if (message) expect(body.message).toMatch(message)
  }

  const raw = (method: string, url: string, payload: string | Buffer | undefined, headers: Record<string, string> = {}, key = u.key) =>
    t.app.inject({ method: method as 'PUT', url, payload, headers: { authorization: `Bearer ${key}`, ...headers } })

  describe('the error key', () => {
    it('is integer 0 on a single-object success', async () => {
      const res = await u.api.get('/api/account')
      expect(res.json().error).toBe(0)
      expect(res.body).toMatch(/^\{"error":0,/)
      expect((await u.api.put('/api/account/update', { password: 'fresh-password' })).json().error).toBe(0)
      expect((await admin.api.get(`/api/user/${u.user.id}`)).json().error).toBe(0)
    })

    it('is the string "0" on lists and queries', async () => {
      for (const path of ['/api/plans', '/api/users', '/api/users?filter=admin']) {
        const res = await admin.api.get(path)
        expect(res.statusCode).toBe(200)
        expect(res.json().error).toBe('0')
        expect(res.body).toMatch(/^\{"error":"0",/)
      }
    })

    it('is integer 1 with a message on failures', async () => {
      const res = await t.api().get('/api/account')
      expectEnvelope(res, 401)
      expect(res.body).toMatch(/^\{"error":1,/)
    })
  })

  it('writes timestamps as YYYY-MM-DD HH:MM:SS (UTC)', async () => {
    await t.app.db.update(users).set({ planExpires: new Date('2099-03-04T05:06:07.890Z') }).where(eq(users.id, u.user.id))
    const data = (await u.api.get('/api/account')).json().data
    expect(data.registered).toMatch(TS)
    expect(data.expires).toBe('2099-03-04 05:06:07')
    await t.app.db.update(users).set({ planExpires: null }).where(eq(users.id, u.user.id))
  })

  describe('request bodies', () => {
    it('a JSON content type with an empty body is {}', async () => {
      const other = await t.makeUser()
      expect((await raw('POST', '/api/account/apikey', '', { 'content-type': 'application/json' }, other.key)).statusCode).toBe(200)
      // {} reaches validation: the endpoint's own message, not a parse error
      expectEnvelope(await raw('PUT', '/api/account/update', '', { 'content-type': 'application/json' }), 400, /email, password or both/)
      expectEnvelope(await raw('PUT', '/api/account/update', '   ', { 'content-type': 'application/json' }), 400, /email, password or both/)
    })

    it.each([
      ['no content type', {}],
      ['text/plain', { 'content-type': 'text/plain' }],
      ['text/plain with a charset', { 'content-type': 'text/plain; charset=utf-8' }],
      ['application/json with a charset', { 'content-type': 'application/json; charset=utf-8' }],
      ['APPLICATION/JSON', { 'content-type': 'APPLICATION/JSON' }],
    ])('parses JSON sent with %s', async (_name, headers) => {
      const email = `ct${Math.random().toString(36).slice(2, 8)}@example.com`
      const res = await raw('PUT', '/api/account/update', JSON.stringify({ email }), headers as Record<string, string>)
      expect(res.statusCode).toBe(200)
      expect((await u.api.get('/api/account')).json().data.email).toBe(email)
    })

    it.each([
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=xyz',
      'application/xml',
      'text/html',
      'image/png',
    ])('refuses %s with 415, writing nothing', async (type) => {
      const before = await rowCounts(t.app.db)
      const row = (await t.app.db.select().from(users).where(eq(users.id, u.user.id)))[0]
      expectEnvelope(await raw('PUT', '/api/account/update', 'email=x%40example.com', { 'content-type': type }), 415, /Content-Type/)
      expect(await rowCounts(t.app.db)).toEqual(before)
      expect((await t.app.db.select().from(users).where(eq(users.id, u.user.id)))[0]).toEqual(row)
    })

    it.each([
      ['a truncated object', '{"email":'],
      ['a bare word', 'email'],
      ['single quotes', "{'email':'a@example.com'}"],
      ['a trailing comma', '{"email":"a@example.com",}'],
      ['an unclosed array', '['],
    ])('refuses malformed JSON (%s) with 400', async (_name, payload) => {
      const before = await rowCounts(t.app.db)
      expectEnvelope(await raw('PUT', '/api/account/update', payload, { 'content-type': 'application/json' }), 400, /not valid JSON/)
      expect(await rowCounts(t.app.db)).toEqual(before)
    })

    it.each([
      ['an array', '[{"email":"a@example.com"}]'],
      ['a string', '"a@example.com"'],
      ['a number', '42'],
    ])('refuses a JSON body that is %s with 400, saying what the body must be', async (_name, payload) => {
      const sentence = /^The request body must be a JSON object of fields, not a string, a number or a list\.$/
      expectEnvelope(await raw('PUT', '/api/account/update', payload, { 'content-type': 'application/json' }), 400, sentence)
      expectEnvelope(await raw('POST', '/api/url/add', payload, { 'content-type': 'application/json' }), 400, sentence)
      expectEnvelope(await raw('POST', '/api/channel/add', payload, { 'content-type': 'application/json' }), 400, sentence)
    })

    it('survives deeply nested JSON', async () => {
      const deep = '['.repeat(50_000) + ']'.repeat(50_000)
      const res = await raw('PUT', '/api/account/update', `{"email":${deep}}`, { 'content-type': 'application/json' })
      expect([400]).toContain(res.statusCode)
      expect((await u.api.get('/api/account')).statusCode).toBe(200)
    })

    it('refuses a 2 MiB body with 413, writing nothing', async () => {
      const before = await rowCounts(t.app.db)
      const big = JSON.stringify({ email: 'a@example.com', pad: 'x'.repeat(2 * 1024 * 1024) })
      expectEnvelope(await raw('PUT', '/api/account/update', big, { 'content-type': 'application/json' }), 413, /1 MiB/)
      expectEnvelope(await raw('POST', '/api/user/add', big, { 'content-type': 'application/json' }, admin.key), 413)
      expect(await rowCounts(t.app.db)).toEqual(before)
    })

    it('accepts a body just under 1 MiB and refuses one just over', async () => {
      const body = (n: number) => JSON.stringify({ password: 'long-enough', pad: 'x'.repeat(n) })
      expect((await raw('PUT', '/api/account/update', body(1024 * 1024 - 100), { 'content-type': 'application/json' })).statusCode).toBe(200)
      expectEnvelope(await raw('PUT', '/api/account/update', body(1024 * 1024), { 'content-type': 'application/json' }), 413)
    })

    it.each([
      ['email as a number', { email: 1 }, /^email /],
      ['email as a boolean true', { email: true }, /^email /],
      ['email as an object', { email: { $gt: '' } }, /^email /],
      ['password as an array', { password: ['hunter22'] }, /^password /],
      ['password as a number', { password: 123456 }, /^password /],
    ])('refuses wrong JSON types (%s) with 400 naming the field', async (_name, body, message) => {
      const before = await rowCounts(t.app.db)
      expectEnvelope(await u.api.put('/api/account/update', body), 400, message)
      expect(await rowCounts(t.app.db)).toEqual(before)
    })

    it('ignores unknown fields', async () => {
      expect((await u.api.put('/api/account/update', { password: 'yet-another', colour: 'blue', nested: { a: 1 } })).statusCode).toBe(200)
    })

    it.each([
      ['__proto__', '{"__proto__":{"admin":true},"password":"proto-pass"}'],
      ['constructor.prototype', '{"constructor":{"prototype":{"admin":true}},"password":"proto-pass"}'],
      ['nested __proto__', '{"password":"proto-pass","x":{"__proto__":{"admin":true}}}'],
    ])('a %s body has no effect', async (_name, payload) => {
      const res = await raw('PUT', '/api/account/update', payload, { 'content-type': 'application/json' })
      expect(res.statusCode).toBe(200)
      expect(({} as Record<string, unknown>).admin).toBeUndefined()
      expect((await t.app.db.select().from(users).where(eq(users.id, u.user.id)))[0].admin).toBe(false)
      expectEnvelope(await u.api.get('/api/users'), 403)
      // an admin-created user with a polluted body is not an admin either
      const made = await raw('POST', '/api/user/add', `{"__proto__":{"admin":true},"username":"p${Date.now()}","email":"p${Date.now()}@example.com","password":"hunter22"}`, { 'content-type': 'application/json' }, admin.key)
      expect(made.statusCode).toBe(200)
      expect((await t.app.db.select().from(users).where(eq(users.id, made.json().data.id)))[0].admin).toBe(false)
    })
  })

  describe('path ids', () => {
    const BAD = ['-1', 'abc', '0', '99999999999999999999', '2147483648', '1.0', '0x10', '1%00', '%2e%2e']
    const routes = (id: string): [string, string, object?][] => [
      ['GET', `/api/user/${id}`],
      ['DELETE', `/api/user/${id}/delete`],
      ['GET', `/api/user/login/${id}`],
      ['PUT', `/api/plan/${id}/update`, { name: 'X' }],
      ['PUT', `/api/plan/${id}/user/1`, { type: 'monthly' }],
      ['PUT', `/api/plan/1/user/${id}`, { type: 'monthly' }],
    ]
    it.each(BAD)('%s names no object: 404, nothing written', async (id) => {
      const before = await rowCounts(t.app.db)
      for (const [method, url, payload] of routes(id)) {
        const res = await t.app.inject({ method: method as 'GET', url, payload, headers: { authorization: `Bearer ${admin.key}` } })
        expectEnvelope(res, 404)
      }
      expect(await rowCounts(t.app.db)).toEqual(before)
    })

    it('2147483647 is a well-formed id that names nobody: 404', async () => {
      expectEnvelope(await admin.api.get('/api/user/2147483647'), 404, /User not found/)
    })
  })

  // a parameter given twice arrives as a list; "must be a whole number" would send the caller looking elsewhere
  describe('a query parameter given twice', () => {
    it.each([
      ['/api/urls?limit=1&limit=2', 'limit'],
      ['/api/urls?page=1&page=2', 'page'],
      ['/api/users?limit=5&limit=5', 'limit'],
      ['/api/url/1/stats?interval=day&interval=hour', 'interval'],
    ])('%s → 400 saying %s must be given once', async (url, field) => {
      expectEnvelope(await admin.api.get(url), 400, new RegExp(`^${field} must be given once, not as a list\\.$`))
    })
  })

  // Postgres cannot hold a NUL in text: a search for one reached the driver and answered 500
  describe('a NUL byte (%00) in a query value', () => {
    it.each([
      ['/api/urls?q=a%00b', 'q'],
      ['/api/users?email=a%00', 'email'],
      ['/api/users?search=%00', 'search'],
      ['/api/users?q=x%00', 'q'],
      ['/api/urls?q=a&q=b%00', 'q'],
    ])('%s → 400 naming %s', async (url, field) => {
      expectEnvelope(await admin.api.get(url), 400, new RegExp(`^${field} must not contain a NUL`))
    })

    it('in an alias path parameter it names no alias: 404, not the driver\'s 500', async () => {
      const id = (await u.api.post('/api/url/add', { url: 'https://example.com/nul-path' })).json().id
      expectEnvelope(await u.api.del(`/api/url/${id}/alias/a%00b`), 404, /^That is not an earlier alias of this link\.$/)
      expectEnvelope(await u.api.del(`/api/url/${id}/alias/%00`), 404, /^That is not an earlier alias of this link\.$/)
    })

    it('is a 422 naming the field on v1, and a search without one still answers', async () => {
      const res = await u.api.get('/api/v1/links?search=a%00b')
      expect(res.statusCode).toBe(422)
      expect(res.json()).toMatchObject({ error: 1, status: 422, errors: { search: [expect.stringMatching(/NUL/)] } })
      expect((await u.api.get('/api/v1/links?search=a00b')).statusCode).toBe(200)
      expect((await u.api.get('/api/urls?q=%2500')).statusCode).toBe(200)
    })
  })

  // the router refuses these before any route: they answered Fastify's own body, not the contract's
  describe('a path the router cannot read', () => {
    it('a malformed %-escape is a 400 envelope on the interfaces (v1 with its status) and the 404 page elsewhere', async () => {
      expectEnvelope(await admin.api.get('/api/url/%ff'), 400, /malformed %-escape/)
      const v1 = await u.api.get('/api/v1/links/%zz')
      expect(v1.statusCode).toBe(400)
      expect(v1.json()).toEqual({ error: 1, status: 400, message: expect.stringMatching(/malformed %-escape/) })
      const visit = await t.app.inject({ url: '/%ff' })
      expect(visit.statusCode).toBe(404)
      expect(visit.headers['content-type']).toBe('text/html; charset=utf-8')
    })

    it('a path segment past the router\'s limit is a 414 envelope on the interfaces and the 404 page elsewhere', async () => {
      expectEnvelope(await admin.api.get(`/api/url/${'9'.repeat(5000)}`), 414, /too long/)
      const visit = await t.app.inject({ url: `/${'a'.repeat(5000)}` })
      expect(visit.statusCode).toBe(404)
      expect(visit.headers['content-type']).toBe('text/html; charset=utf-8')
    })
  })

  describe('unknown routes', () => {
    it.each([
      ['GET', '/api/nothing-here'],
      ['POST', '/api/nothing-here'],
      ['GET', '/api'],
      ['GET', '/api/'],
      ['DELETE', '/api/account'],
      ['PATCH', '/api/account/update'],
      ['GET', '/api/account/update/extra'],
    ])('%s %s → 404 JSON, with or without a key', async (method, url) => {
      for (const headers of [{}, { authorization: `Bearer ${u.key}` }]) {
        const res = await t.app.inject({ method: method as 'GET', url, headers })
        expectEnvelope(res, 404)
      }
    })
  })

  it('tags every response with a request id, and echoes a sane one the client sent', async () => {
    const res = await u.api.get('/api/account')
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
    expect((await u.api.get('/api/account', { 'x-request-id': 'trace-abc.123' })).headers['x-request-id']).toBe('trace-abc.123')
    expect((await u.api.get('/api/account', { 'x-request-id': 'bad id\u0000<script>' })).headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
  })
})
