import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { users } from '../../src/db/schema/index.js'
import { appWith, expectError, testApp, type TestApp, type TestUser } from '../helpers/app.js'

/** Authentication of both interfaces (SPEC.md Authentication, DECISIONS §3). */
describe('API keys', () => {
  let t: TestApp
  let u: TestUser
  let admin: TestUser
  beforeAll(async () => { [t, u, admin] = await appWith({}, { admin: true }) })
  afterAll(() => t.close())

  const get = (url: string, headers: Record<string, string | string[]> = {}) =>
    t.app.inject({ method: 'GET', url, headers: headers as Record<string, string> })

  const PATHS = ['/api/account', '/api/v1/links']

  describe.each(PATHS)('%s', (path) => {
    const refused: [string, () => Record<string, string | string[]>][] = [
      ['no Authorization header', () => ({})],
      ['an empty header', () => ({ authorization: '' })],
      ['"Bearer" and nothing else', () => ({ authorization: 'Bearer' })],
      ['"Bearer" with trailing spaces', () => ({ authorization: 'Bearer    ' })],
      ['an unknown key', () => ({ authorization: `Bearer ${'x'.repeat(32)}` })],
      ['a key one character off', () => ({ authorization: `Bearer ${u.key.slice(0, -1)}${u.key.endsWith('a') ? 'b' : 'a'}` })],
      ['a key with a space inside', () => ({ authorization: `Bearer ${u.key.slice(0, 10)} ${u.key.slice(10)}` })],
      ['a key with characters keys never have', () => ({ authorization: `Bearer ${u.key.slice(0, 31)}'` })],
      ['another scheme (Basic)', () => ({ authorization: `Basic ${Buffer.from(`${u.key}:`).toString('base64')}` })],
      ['a JSON value instead of a key', () => ({ authorization: 'Bearer true' })],
      ['a key of 2 KiB', () => ({ authorization: `Bearer ${'k'.repeat(2048)}` })],
      // Node would keep the first; a proxy on the way may have read the other
      ['two Authorization headers, the right key first', () => ({ authorization: [`Bearer ${u.key}`, `Bearer ${'x'.repeat(32)}`] })],
      ['the right key twice', () => ({ authorization: [`Bearer ${u.key}`, `Bearer ${u.key}`] })],
    ]
    it.each(refused)('answers 401 to %s', async (_name, headers) => {
      const res = await get(path, headers())
      expect(res.statusCode).toBe(401)
      expect(res.json()).toMatchObject({ error: 1, message: expect.any(String) })
      expect(res.body).not.toContain(u.key)
    })

    it('ignores a key sent in the query string', async () => {
      for (const name of ['key', 'api_key', 'apikey', 'token', 'access_token']) {
        expectError(await get(`${path}?${name}=${u.key}`), 401)
      }
    })

    it.each([
      ['Bearer <key>', (k: string) => `Bearer ${k}`],
      ['bearer <key> (scheme is case-insensitive)', (k: string) => `bearer ${k}`],
      ['BEARER <key>', (k: string) => `BEARER ${k}`],
      ['Token <key> (the older scheme)', (k: string) => `Token ${k}`],
      ['token <key>', (k: string) => `token ${k}`],
      ['the bare key, no scheme', (k: string) => k],
      ['Bearer <key> with extra spaces', (k: string) => `  Bearer   ${k}  `],
    ])('accepts %s', async (_name, header) => {
      const res = await get(path, { authorization: header(u.key) })
      expect(res.statusCode).toBe(200)
      expect(res.json().error).toEqual(path === '/api/account' ? 0 : '0')
    })
  })

  it('a rotated key is refused as expired on both interfaces (CLI keys:rotate and the extension endpoint share this)', async () => {
    const v = await t.makeUser()
    const fresh = (await v.api.post('/api/account/apikey')).json().apikey as string
    for (const path of PATHS) {
      expectError(await v.api.get(path), 401, /expired/)
      expect((await t.api(fresh).get(path)).statusCode).toBe(200)
    }
  })

  it('a deleted user’s key is refused', async () => {
    const v = await t.makeUser()
    expect((await admin.api.del(`/api/user/${v.user.id}/delete`)).statusCode).toBe(200)
    for (const path of PATHS) expectError(await v.api.get(path), 401)
  })

  describe('plan feature "api" switched off', () => {
    let off: TestUser
    beforeAll(async () => {
      const plan = await admin.api.post('/api/plan/add', { name: 'No API', free: true, limits: { api: { enabled: '0' } } })
      expect(plan.statusCode).toBe(200)
      off = await t.makeUser()
      const sub = await admin.api.put(`/api/plan/${plan.json().id}/user/${off.user.id}`, { type: 'lifetime' })
      expect(sub.statusCode).toBe(200)
    })

    it.each(PATHS)('answers 403 naming the feature on %s', async (path) => {
      expectError(await off.api.get(path), 403, /"api"/)
    })

    it('never limits an admin', async () => {
      const [{ planId }] = await t.app.db.select({ planId: users.planId }).from(users).where(eq(users.id, off.user.id))
      const boss = await t.makeUser({ admin: true })
      await t.app.db.update(users).set({ planId }).where(eq(users.id, boss.user.id))
      expect((await boss.api.get('/api/account')).statusCode).toBe(200)
    })
  })

  describe('admin-only endpoints with a non-admin key', () => {
    const routes: [string, string, unknown?][] = [
      ['GET', '/api/plans'],
      ['POST', '/api/plan/add', { name: 'Sneaky' }],
      ['PUT', '/api/plan/1/update', { name: 'Sneaky' }],
      ['PUT', '/api/plan/2/user/1', { type: 'lifetime' }],
      ['GET', '/api/users'],
      ['GET', '/api/users?filter=admin'],
      ['GET', '/api/user/1'],
      ['POST', '/api/user/add', { username: 'sneaky', email: 'sneaky@example.com', password: 'password' }],
      ['POST', '/api/user/add', { not: 'even valid' }],
      ['DELETE', '/api/user/1/delete'],
      ['GET', '/api/user/login/1'],
      ['GET', '/api/user/abc'],
    ]
    it.each(routes)('%s %s → 403, nothing changed', async (method, url, payload) => {
      const before = await t.app.db.select().from(users)
      const res = await t.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { authorization: `Bearer ${u.key}` } })
      expectError(res, 403, /admin/)
      expect(await t.app.db.select().from(users)).toEqual(before)
    })
  })

  it('two users never see each other through their keys', async () => {
    const a = await t.makeUser()
    const b = await t.makeUser()
    const ra = (await a.api.get('/api/account')).json()
    const rb = (await b.api.get('/api/account')).json()
    expect(ra.data.id).toBe(a.user.id)
    expect(rb.data.id).toBe(b.user.id)
    expect(JSON.stringify(ra)).not.toContain(b.user.username)
  })
})

describe('ADMIN_EMAIL / ADMIN_API_KEY bootstrap', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await testApp({ ADMIN_EMAIL: 'admin@localhost', ADMIN_API_KEY: 'admin-key-0123456' })
  })
  afterAll(() => t.close())

  it('creates the admin on start with the operator’s key (16 characters or more)', async () => {
    const res = await t.api('admin-key-0123456').get('/api/account')
    expect(res.statusCode).toBe(200)
    expect(res.json().data).toMatchObject({ email: 'admin@localhost', username: 'admin' })
    expect((await t.api('admin-key-0123456').get('/api/plans')).statusCode).toBe(200)
    expectError(await t.api('admin-key-0123457').get('/api/account'), 401)
  })
})
