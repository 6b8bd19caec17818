import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { apiKeys, plans, users } from '../../src/db/schema/index.js'
import { expectError, testApp, TS, type TestApp } from '../helpers/app.js'
import { rowById } from '../helpers/fixtures.js'
import { gravatar, rowCounts } from '../helpers/accounts.js'

describe('account', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await testApp()
  })
  afterAll(() => t.close())

  const planId = async (name: string) => (await t.app.db.select().from(plans).where(eq(plans.name, name)))[0].id
  const userRow = (id: number) => rowById(t, users, id)

  describe('GET /api/account', () => {
    it('answers the caller’s account on a free plan', async () => {
      const u = await t.makeUser({ email: 'Free.Person@Example.com', username: 'free_person' })
      const res = await u.api.get('/api/account')
      expect(res.statusCode).toBe(200)
      expect(res.headers['content-type']).toMatch(/^application\/json/)
      expect(res.json()).toEqual({
        error: 0,
        data: {
          id: u.user.id,
          email: 'Free.Person@Example.com',
          username: 'free_person',
          avatar: gravatar('free.person@example.com'),
          status: 'free',
          expires: null,
          registered: expect.stringMatching(TS),
        },
      })
      expect(res.json().data.avatar).toMatch(/^https:\/\/www\.gravatar\.com\/avatar\/[0-9a-f]{32}\?d=identicon$/)
    })

    it('says pro for a user on the Pro plan, with the expiry as a timestamp', async () => {
      const u = await t.makeUser({ plan: 'pro' })
      const expires = new Date(Date.UTC(2099, 0, 2, 3, 4, 5))
      await t.app.db.update(users).set({ planExpires: expires }).where(eq(users.id, u.user.id))
      const res = await u.api.get('/api/account')
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({
        error: 0,
        data: {
          id: u.user.id,
          email: u.user.email,
          username: u.user.username,
          avatar: gravatar(u.user.email),
          status: 'pro',
          expires: '2099-01-02 03:04:05',
          registered: expect.stringMatching(TS),
        },
      })
    })

    it('puts a user whose subscription has ended back on the free plan on their next request', async () => {
      const u = await t.makeUser({ plan: 'pro' })
      await t.app.db.update(users).set({ planExpires: new Date(Date.now() - 1000) }).where(eq(users.id, u.user.id))
      const res = await u.api.get('/api/account')
      expect(res.statusCode).toBe(200)
      expect(res.json().data).toMatchObject({ status: 'free', expires: null })
      const row = await userRow(u.user.id)
      expect(row.planId).toBe(await planId('Free'))
      expect(row.planExpires).toBeNull()
    })

    it('shows each user only their own account', async () => {
      const a = await t.makeUser()
      const b = await t.makeUser()
      expect((await a.api.get('/api/account')).json().data.id).toBe(a.user.id)
      expect((await b.api.get('/api/account')).json().data.id).toBe(b.user.id)
      expect((await a.api.get('/api/account')).body).not.toContain(b.user.email)
    })
  })

  describe('PUT /api/account/update', () => {
    it('changes the email', async () => {
      const u = await t.makeUser()
      const res = await u.api.put('/api/account/update', { email: 'New.Address@example.org' })
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({ error: 0, message: 'Account has been updated successfully.' })
      const account = (await u.api.get('/api/account')).json().data
      expect(account.email).toBe('New.Address@example.org')
      expect(account.avatar).toBe(gravatar('new.address@example.org'))
    })

    it('changes the password (the new one signs in, the old one no longer does)', async () => {
      const u = await t.makeUser({ password: 'old-password' })
      const res = await u.api.put('/api/account/update', { password: 'brand-new-pass' })
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({ error: 0, message: 'Account has been updated successfully.' })
      const login = (password: string) =>
        t.app.inject({ method: 'POST', url: '/login', payload: { email: u.user.email, password } })
      expect((await login('old-password')).statusCode).toBe(401)
      const ok = await login('brand-new-pass')
      expect(ok.statusCode).toBe(302)
      expect(ok.headers.location).toBe('/dashboard')
    })

    it('a new password ends the user’s dashboard sessions', async () => {
      const admin = await t.makeUser({ admin: true })
      const u = await t.makeUser()
      const sso = new URL((await admin.api.get(`/api/user/login/${u.user.id}`)).json().url)
      const signedIn = await t.app.inject({ method: 'GET', url: sso.pathname })
      const cookie = String(signedIn.headers['set-cookie']).split(';')[0]
      expect((await t.app.inject({ method: 'GET', url: '/dashboard', headers: { cookie } })).statusCode).toBe(200)
      expect((await u.api.put('/api/account/update', { password: 'changed-pass' })).statusCode).toBe(200)
      expect((await t.app.inject({ method: 'GET', url: '/dashboard', headers: { cookie } })).headers.location).toBe('/login')
    })

    it('changes both at once, and keeps the API key', async () => {
      const u = await t.makeUser()
      const res = await u.api.put('/api/account/update', { email: `both${u.user.id}@example.com`, password: 'another-pass' })
      expect(res.statusCode).toBe(200)
      expect((await u.api.get('/api/account')).json().data.email).toBe(`both${u.user.id}@example.com`)
    })

    it('ignores admin, planid, apikey and other fields it does not own (mass assignment)', async () => {
      const u = await t.makeUser()
      const before = await userRow(u.user.id)
      const res = await u.api.put('/api/account/update', {
        email: `mass${u.user.id}@example.com`,
        admin: true,
        planid: await planId('Pro'),
        planId: await planId('Pro'),
        apikey: 'A'.repeat(32),
        id: 1,
        username: 'hijacked',
        status: 'pro',
        expires: '2099-01-01 00:00:00',
      })
      expect(res.statusCode).toBe(200)
      const after = await userRow(u.user.id)
      expect(after).toMatchObject({ admin: false, planId: before.planId, planExpires: null, username: before.username, id: before.id })
      expect((await u.api.get('/api/account')).statusCode).toBe(200) // same key still works
      expect((await t.api('A'.repeat(32)).get('/api/account')).statusCode).toBe(401)
    })

    it('ignores __proto__ and constructor.prototype in the body', async () => {
      const u = await t.makeUser()
      for (const payload of [
        `{"email":"proto${u.user.id}@example.com","__proto__":{"admin":true}}`,
        `{"email":"ctor${u.user.id}@example.com","constructor":{"prototype":{"admin":true}}}`,
      ]) {
        const res = await u.api.put('/api/account/update', payload, { 'content-type': 'application/json' })
        expect(res.statusCode).toBe(200)
        expect((await userRow(u.user.id)).admin).toBe(false)
        expect(({} as Record<string, unknown>).admin).toBeUndefined()
      }
      expectError(await u.api.get('/api/users'), 403)
    })

    const bad: { name: string; body: unknown; status: number; message: RegExp }[] = [
      { name: 'an empty body', body: {}, status: 400, message: /email, password/ },
      { name: 'both fields blank', body: { email: '', password: null }, status: 400, message: /email, password/ },
      { name: 'an invalid email', body: { email: 'not-an-email' }, status: 400, message: /^email .*valid email/ },
      { name: 'an email that is a number', body: { email: 12345 }, status: 400, message: /^email .*string/ },
      { name: 'an email that is an array', body: { email: ['a@b.co'] }, status: 400, message: /^email / },
      { name: 'an email with a control character', body: { email: 'bell\u0007@example.com' }, status: 400, message: /^email / },
      { name: 'an email with a newline', body: { email: 'a@example.com\nBcc: x@example.com' }, status: 400, message: /^email / },
      { name: 'an email with HTML', body: { email: '<script>@example.com' }, status: 400, message: /^email / },
      { name: 'an email over 254 characters', body: { email: `${'a'.repeat(250)}@example.com` }, status: 400, message: /^email / },
      { name: 'a password of 4 characters', body: { password: 'abcd' }, status: 400, message: /^password .*at least 5/ },
      { name: 'a password that is a number', body: { password: 123456 }, status: 400, message: /^password .*string/ },
      { name: 'a password that is an object', body: { password: { $ne: '' } }, status: 400, message: /^password / },
      { name: 'a good email with a bad password', body: { email: 'fine@example.com', password: 'abc' }, status: 400, message: /^password / },
    ]
    it.each(bad)('refuses $name and changes nothing', async ({ body, status, message }) => {
      const u = await t.makeUser()
      const before = await userRow(u.user.id)
      const counts = await rowCounts(t.app.db)
      expectError(await u.api.put('/api/account/update', body as object), status, message)
      expect(await userRow(u.user.id)).toEqual(before)
      expect(await rowCounts(t.app.db)).toEqual(counts)
    })

    it('refuses an email another account has, ignoring case (409), and changes nothing', async () => {
      const a = await t.makeUser({ email: 'taken.address@example.com' })
      const b = await t.makeUser()
      const before = await userRow(b.user.id)
      expectError(await b.api.put('/api/account/update', { email: 'TAKEN.address@EXAMPLE.com' }), 409, /email/)
      expect(await userRow(b.user.id)).toEqual(before)
      expect((await userRow(a.user.id)).email).toBe('taken.address@example.com')
    })

    it('lets a user keep their own email', async () => {
      const u = await t.makeUser()
      expect((await u.api.put('/api/account/update', { email: u.user.email.toUpperCase() })).statusCode).toBe(200)
    })
  })

  describe('POST /api/account/apikey (extension)', () => {
    it('issues a new key; the old one then answers 401 on both interfaces', async () => {
      const u = await t.makeUser()
      const res = await u.api.post('/api/account/apikey')
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({
        error: 0,
        message: 'A new API key has been issued; the previous key no longer works.',
        apikey: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/),
      })
      const fresh = res.json().apikey as string
      expect(fresh).not.toBe(u.key)
      expectError(await u.api.get('/api/account'), 401, /expired/)
      expectError(await u.api.get('/api/v1/links'), 401, /expired/)
      expect((await t.api(fresh).get('/api/account')).json().data.id).toBe(u.user.id)
      expect((await t.api(fresh).get('/api/v1/links')).statusCode).toBe(200)
      // one live key per user, the rotated one kept only as revoked
      const keys = await t.app.db.select().from(apiKeys).where(eq(apiKeys.userId, u.user.id))
      expect(keys.filter((k) => k.revokedAt === null)).toHaveLength(1)
      expect(JSON.stringify(keys)).not.toContain(fresh)
    })

    it('takes a JSON content type with an empty body', async () => {
      const u = await t.makeUser()
      const res = await u.api.post('/api/account/apikey', '', { 'content-type': 'application/json' })
      expect(res.statusCode).toBe(200)
    })

    it('needs a key', async () => {
      expectError(await t.api().post('/api/account/apikey'), 401)
    })
  })
})
