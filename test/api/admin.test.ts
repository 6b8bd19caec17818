import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { count, eq } from 'drizzle-orm'
import {
  apiKeys, campaigns, channels, clickQuota, domains, links, pages, pixels, plans, qrCodes, sessions, ssoTokens, users,
} from '../../src/db/schema/index.js'
import { toTimestamp } from '../../src/http/format.js'
import { sha256 } from '../../src/lib/crypto.js'
import { addMonths } from '../../src/lib/time.js'
import { appWith, expectError, TS, type TestApp, type TestUser } from '../helpers/app.js'
import { rowById } from '../helpers/fixtures.js'
import { gravatar, rowCounts } from '../helpers/accounts.js'

const FREE_LIMITS = {
  links: 1000, clicks: 0, retention: 90,
  custom: { enabled: '1' }, team: { enabled: '0', count: '5' }, splash: { enabled: '1', count: '5' },
  overlay: { enabled: '1', count: '5' }, pixels: { enabled: '1', count: '5' }, domain: { enabled: '1', count: '5' },
  multiple: { enabled: '0' }, alias: { enabled: '1' }, device: { enabled: '1' }, geo: { enabled: '1' },
  bundle: { enabled: '1' }, parameters: { enabled: '1' }, export: { enabled: '1' }, api: { enabled: '1' },
}
const PRO_LIMITS = {
  links: 0, clicks: 0, retention: 730,
  custom: { enabled: '1' }, team: { enabled: '1', count: '0' }, splash: { enabled: '1', count: '0' },
  overlay: { enabled: '1', count: '0' }, pixels: { enabled: '1', count: '0' }, domain: { enabled: '1', count: '0' },
  multiple: { enabled: '1' }, alias: { enabled: '1' }, device: { enabled: '1' }, geo: { enabled: '1' },
  bundle: { enabled: '1' }, parameters: { enabled: '1' }, export: { enabled: '1' }, api: { enabled: '1' },
}

describe('admin', () => {
  let t: TestApp
  let admin: TestUser
  let freeId: number
  let proId: number
  beforeAll(async () => {
    [t, admin] = await appWith({ admin: true, username: 'the_admin' })
    const all = await t.app.db.select().from(plans)
    freeId = all.find((p) => p.name === 'Free')!.id
    proId = all.find((p) => p.name === 'Pro')!.id
  })
  afterAll(() => t.close())

  const userRow = (id: number) => rowById(t, users, id)
  const planRow = (id: number) => rowById(t, plans, id)
  const BAD_IDS = ['-1', 'abc', '0', '99999999999999999999', '2147483648', '1.5', '1e3', '%20']

  describe('GET /api/plans', () => {
    it('lists the seeded Free and Pro plans exactly, with error "0"', async () => {
      const res = await admin.api.get('/api/plans')
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({
        error: '0',
        data: [
          { id: freeId, name: 'Free', free: true, prices: null, limits: FREE_LIMITS },
          { id: proId, name: 'Pro', free: false, prices: { monthly: 9.99, yearly: 99, lifetime: 299 }, limits: PRO_LIMITS },
        ],
      })
    })
  })

  describe('POST /api/plan/add and PUT /api/plan/:id/update (extension)', () => {
    it('creates a plan; unspecified features are off and numbers 0', async () => {
      const res = await admin.api.post('/api/plan/add', {
        name: 'Team',
        free: false,
        prices: { monthly: 19.5, yearly: '190', lifetime: 500 },
        limits: { links: 5000, clicks: 100000, retention: 365, custom: { enabled: true }, pixels: { enabled: '1', count: 10 }, api: { enabled: 1 } },
      })
      expect(res.statusCode).toBe(200)
      const off = { enabled: '0' }
      const offCounted = { enabled: '0', count: '0' }
      const expected = {
        id: expect.any(Number),
        name: 'Team',
        free: false,
        prices: { monthly: 19.5, yearly: 190, lifetime: 500 },
        limits: {
          links: 5000, clicks: 100000, retention: 365,
          custom: { enabled: '1' }, team: offCounted, splash: offCounted, overlay: offCounted,
          pixels: { enabled: '1', count: '10' }, domain: offCounted, multiple: off, alias: off, device: off, geo: off,
          bundle: off, parameters: off, export: off, api: { enabled: '1' },
        },
      }
      expect(res.json()).toEqual({ error: 0, id: expect.any(Number), data: expected })
      const id = res.json().id
      expect((await admin.api.get('/api/plans')).json().data.find((p: { id: number }) => p.id === id)).toEqual({ ...expected, id })
    })

    it('a new plan without `free` is free unless it names a price', async () => {
      const bare = await admin.api.post('/api/plan/add', { name: 'Unpriced' })
      expect(bare.json().data).toMatchObject({ free: true, prices: null })
      const priced = await admin.api.post('/api/plan/add', { name: 'Priced', prices: { monthly: 4 } })
      expect(priced.json().data).toMatchObject({ free: false, prices: { monthly: 4, yearly: 0, lifetime: 0 } })
    })

    it('updates only the fields sent', async () => {
      const id = (await admin.api.post('/api/plan/add', { name: 'Starter', free: false, prices: { monthly: 5 }, limits: { links: 50, geo: { enabled: true } } })).json().id
      const res = await admin.api.put(`/api/plan/${id}/update`, { limits: { links: 75, device: { enabled: 'true' } } })
      expect(res.statusCode).toBe(200)
      expect(res.json()).toMatchObject({ error: 0, message: 'Plan has been updated successfully.' })
      expect(res.json().data).toMatchObject({
        id, name: 'Starter', free: false, prices: { monthly: 5, yearly: 0, lifetime: 0 },
        limits: { links: 75, clicks: 0, geo: { enabled: '1' }, device: { enabled: '1' }, api: { enabled: '0' } },
      })
      const renamed = await admin.api.put(`/api/plan/${id}/update`, { name: 'Starter Plus' })
      expect(renamed.json().data).toMatchObject({ name: 'Starter Plus', limits: { links: 75 } })
    })

    it('moves the default flag, so new users get the new default plan', async () => {
      const id = (await admin.api.post('/api/plan/add', { name: 'Trial', free: true, default: true, limits: { api: { enabled: true } } })).json().id
      try {
        expect((await planRow(id)).isDefault).toBe(true)
        expect((await planRow(freeId)).isDefault).toBe(false)
        const res = await admin.api.post('/api/user/add', { username: 'trial_user', email: 'trial@example.com', password: 'password' })
        expect((await userRow(res.json().data.id)).planId).toBe(id)
      } finally {
        await admin.api.put(`/api/plan/${freeId}/update`, { default: true })
      }
      expect((await planRow(freeId)).isDefault).toBe(true)
      expect((await planRow(id)).isDefault).toBe(false)
    })

    const badPlans: { name: string; body: unknown; message: RegExp }[] = [
      { name: 'no name', body: { free: true }, message: /^name / },
      { name: 'an empty name', body: { name: '' }, message: /^name / },
      { name: 'a name of 256 characters', body: { name: 'n'.repeat(256) }, message: /^name / },
      { name: 'a name that is a number', body: { name: 42 }, message: /^name / },
      { name: 'a name with a control character', body: { name: 'bad\u0000name' }, message: /^name / },
      { name: 'free that is not a boolean', body: { name: 'X', free: 'maybe' }, message: /^free / },
      { name: 'a negative link limit', body: { name: 'X', limits: { links: -1 } }, message: /^limits\.links / },
      { name: 'a link limit that is a string', body: { name: 'X', limits: { links: '10' } }, message: /^limits\.links / },
      { name: 'a fractional retention', body: { name: 'X', limits: { retention: 1.5 } }, message: /^limits\.retention / },
      { name: 'a price that is not a number', body: { name: 'X', prices: { monthly: 'cheap' } }, message: /^prices\.monthly / },
      { name: 'a negative price', body: { name: 'X', prices: { yearly: -5 } }, message: /^prices\.yearly / },
      { name: 'a feature switch that is not boolean', body: { name: 'X', limits: { api: { enabled: 'perhaps' } } }, message: /^limits\.api\.enabled / },
      { name: 'a feature count that is not a number', body: { name: 'X', limits: { pixels: { enabled: true, count: 'ten' } } }, message: /^limits\.pixels\.count / },
    ]
    it.each(badPlans)('POST /api/plan/add refuses $name, writing nothing', async ({ body, message }) => {
      const counts = await rowCounts(t.app.db)
      expectError(await admin.api.post('/api/plan/add', body as object), 400, message)
      expect(await rowCounts(t.app.db)).toEqual(counts)
    })

    it('refuses a duplicate plan name with 409', async () => {
      const counts = await rowCounts(t.app.db)
      expectError(await admin.api.post('/api/plan/add', { name: 'Pro' }), 409, /name/)
      expect(await rowCounts(t.app.db)).toEqual(counts)
    })

    it('PUT /api/plan/:id/update refuses bad bodies and unknown ids, changing nothing', async () => {
      const before = await planRow(proId)
      expectError(await admin.api.put(`/api/plan/${proId}/update`, { limits: { links: -3 } }), 400, /limits\.links/)
      expectError(await admin.api.put(`/api/plan/${proId}/update`, { name: '' }), 400, /name/)
      expectError(await admin.api.put(`/api/plan/${proId}/update`, { name: 'Free' }), 409, /name/)
      expectError(await admin.api.put('/api/plan/999999/update', { name: 'Ghost' }), 404)
      for (const id of BAD_IDS) expectError(await admin.api.put(`/api/plan/${id}/update`, { name: 'Ghost' }), 404)
      expect(await planRow(proId)).toEqual(before)
    })
  })

  describe('PUT /api/plan/:planid/user/:userid', () => {
    const expiresOf = async (u: TestUser) => (await userRow(u.user.id)).planExpires

    it('monthly: Pro until one month from now', async () => {
      const u = await t.makeUser()
      const before = new Date()
      const res = await admin.api.put(`/api/plan/${proId}/user/${u.user.id}`, { type: 'monthly' })
      const after = new Date()
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({ error: 0, message: 'User has been subscribed to the Pro plan.' })
      const expires = (await expiresOf(u))!
      expect(expires.getTime()).toBeGreaterThanOrEqual(addMonths(before, 1).getTime())
      expect(expires.getTime()).toBeLessThanOrEqual(addMonths(after, 1).getTime())
      expect((await u.api.get('/api/account')).json().data).toMatchObject({ status: 'pro', expires: toTimestamp(expires) })
    })

    it('yearly: Pro until one year from now', async () => {
      const u = await t.makeUser()
      const before = new Date()
      expect((await admin.api.put(`/api/plan/${proId}/user/${u.user.id}`, { type: 'yearly' })).statusCode).toBe(200)
      const expires = (await expiresOf(u))!
      expect(expires.getTime()).toBeGreaterThanOrEqual(addMonths(before, 12).getTime())
      expect(expires.getTime()).toBeLessThanOrEqual(addMonths(new Date(), 12).getTime())
    })

    it('lifetime: Pro with no expiry', async () => {
      const u = await t.makeUser()
      expect((await admin.api.put(`/api/plan/${proId}/user/${u.user.id}`, { type: 'lifetime' })).statusCode).toBe(200)
      expect((await u.api.get('/api/account')).json().data).toMatchObject({ status: 'pro', expires: null })
    })

    it('an explicit expiration wins over the type (ISO 8601 accepted too)', async () => {
      const u = await t.makeUser()
      expect((await admin.api.put(`/api/plan/${proId}/user/${u.user.id}`, { type: 'monthly', expiration: '2098-07-08 09:10:11' })).statusCode).toBe(200)
      expect((await u.api.get('/api/account')).json().data).toMatchObject({ status: 'pro', expires: '2098-07-08 09:10:11' })
      expect((await admin.api.put(`/api/plan/${proId}/user/${u.user.id}`, { type: 'yearly', expiration: '2097-01-01T12:00:00Z' })).statusCode).toBe(200)
      expect((await u.api.get('/api/account')).json().data.expires).toBe('2097-01-01 12:00:00')
    })

    it('back to the free plan: status free, no expiry', async () => {
      const u = await t.makeUser({ plan: 'pro' })
      expect((await admin.api.put(`/api/plan/${freeId}/user/${u.user.id}`, { type: 'monthly' })).statusCode).toBe(200)
      expect((await u.api.get('/api/account')).json().data).toMatchObject({ status: 'free', expires: null })
      expect((await userRow(u.user.id)).planId).toBe(freeId)
    })

    it('falls back to the free plan once the subscription has passed', async () => {
      const u = await t.makeUser()
      await admin.api.put(`/api/plan/${proId}/user/${u.user.id}`, { type: 'monthly' })
      await t.app.db.update(users).set({ planExpires: new Date(Date.now() - 60_000) }).where(eq(users.id, u.user.id))
      const seen = (await admin.api.get(`/api/user/${u.user.id}`)).json().data
      expect(seen).toMatchObject({ status: 'free', expires: null, planid: freeId })
      expect((await u.api.get('/api/account')).json().data.status).toBe('free')
    })

    it('takes an expiration in the past: the subscription is over, and the user is back on the free plan at once', async () => {
      const u = await t.makeUser()
      expect((await admin.api.put(`/api/plan/${proId}/user/${u.user.id}`, { type: 'monthly', expiration: '2001-01-01 00:00:00' })).statusCode).toBe(200)
      expect((await u.api.get('/api/account')).json().data.status).toBe('free')
      expect((await admin.api.get(`/api/user/${u.user.id}`)).json().data).toMatchObject({ status: 'free', expires: null, planid: freeId })
      const made = (await admin.api.post('/api/user/add', { username: `lapsed${Date.now()}`, email: `lapsed${Date.now()}@example.com`, password: 'hunter22', planid: proId, expiration: '2001-01-01 00:00:00' })).json()
      expect(made.error).toBe(0)
      expect((await admin.api.get(`/api/user/${made.data.id}`)).json().data).toMatchObject({ status: 'free', expires: null, planid: freeId })
    })

    const bad: { name: string; body: unknown; message: RegExp }[] = [
      { name: 'no type', body: {}, message: /^type / },
      { name: 'an unknown type', body: { type: 'weekly' }, message: /^type .*monthly, yearly, lifetime/ },
      { name: 'a type that is a number', body: { type: 1 }, message: /^type / },
      { name: 'a malformed expiration', body: { type: 'monthly', expiration: 'next week' }, message: /^expiration / },
      { name: 'an impossible date', body: { type: 'monthly', expiration: '2099-02-31 00:00:00' }, message: /^expiration / },
      { name: 'an expiration that is a number', body: { type: 'monthly', expiration: 4102444800 }, message: /^expiration / },
    ]
    it.each(bad)('refuses $name (400), changing nothing', async ({ body, message }) => {
      const u = await t.makeUser()
      const before = await userRow(u.user.id)
      expectError(await admin.api.put(`/api/plan/${proId}/user/${u.user.id}`, body as object), 400, message)
      expect(await userRow(u.user.id)).toEqual(before)
    })

    it('unknown plan or user, or ids that name nothing: 404, nothing changed', async () => {
      const u = await t.makeUser()
      const before = await userRow(u.user.id)
      expectError(await admin.api.put(`/api/plan/999999/user/${u.user.id}`, { type: 'monthly' }), 404, /Plan/)
      expectError(await admin.api.put(`/api/plan/${proId}/user/999999`, { type: 'monthly' }), 404, /User/)
      for (const id of BAD_IDS) {
        expectError(await admin.api.put(`/api/plan/${id}/user/${u.user.id}`, { type: 'monthly' }), 404)
        expectError(await admin.api.put(`/api/plan/${proId}/user/${id}`, { type: 'monthly' }), 404)
      }
      expect(await userRow(u.user.id)).toEqual(before)
    })
  })

  describe('GET /api/users', () => {
    let tag: string
    let free1: TestUser
    let pro1: TestUser
    let admin2: TestUser
    beforeAll(async () => {
      tag = `lst${Date.now().toString(36)}`
      free1 = await t.makeUser({ email: `${tag}.free@example.com` })
      pro1 = await t.makeUser({ email: `${tag}.Pro@Example.com`, plan: 'pro' })
      admin2 = await t.makeUser({ email: `${tag}.admin@example.com`, admin: true })
    })

    const item = (u: TestUser, planid: number, status: 'free' | 'pro', isAdmin = false) => ({
      id: u.user.id,
      email: u.user.email,
      username: u.user.username,
      avatar: gravatar(u.user.email),
      status,
      expires: null,
      registered: expect.stringMatching(TS),
      planid,
      apikey: u.key,
      admin: isAdmin,
    })

    it('returns a plain array, newest first, with each user’s API key and error "0"', async () => {
      const res = await admin.api.get(`/api/users?email=${tag}`)
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({ error: '0', data: [item(admin2, freeId, 'free', true), item(pro1, proId, 'pro'), item(free1, freeId, 'free')] })
    })

    it.each([
      ['admin', () => [admin2.user.id]],
      ['pro', () => [pro1.user.id]],
      ['free', () => [admin2.user.id, free1.user.id]],
    ])('filter=%s', async (filter, ids) => {
      const res = await admin.api.get(`/api/users?filter=${filter}&email=${tag}`)
      expect(res.statusCode).toBe(200)
      expect(res.json().data.map((u: { id: number }) => u.id)).toEqual(ids())
    })

    it('filter=pro leaves out a pro subscription that has passed', async () => {
      const u = await t.makeUser({ email: `${tag}.lapsed@example.com`, plan: 'pro' })
      await t.app.db.update(users).set({ planExpires: new Date(Date.now() - 1000) }).where(eq(users.id, u.user.id))
      const pro = (await admin.api.get(`/api/users?filter=pro&email=${tag}`)).json().data
      expect(pro.map((x: { id: number }) => x.id)).toEqual([pro1.user.id])
      const free = (await admin.api.get(`/api/users?filter=free&email=${tag}.lapsed`)).json().data
      expect(free).toEqual([{ ...item(u, freeId, 'free') }])
    })

    it.each(['email', 'search', 'q'])('searches emails with %s=, case-insensitive substring', async (param) => {
      const res = await admin.api.get(`/api/users?${param}=${tag.toUpperCase()}.PRO`)
      expect(res.json()).toEqual({ error: '0', data: [item(pro1, proId, 'pro')] })
    })

    it('treats % and _ in the search literally', async () => {
      expect((await admin.api.get('/api/users?email=%25')).json()).toEqual({ error: '0', data: [] })
      expect((await admin.api.get(`/api/users?email=${tag}_free`)).json()).toEqual({ error: '0', data: [] })
    })

    it('pages with limit and page', async () => {
      const page1 = (await admin.api.get(`/api/users?email=${tag}&limit=2`)).json().data
      const page2 = (await admin.api.get(`/api/users?email=${tag}&limit=2&page=2`)).json().data
      const page9 = (await admin.api.get(`/api/users?email=${tag}&limit=2&page=9`)).json()
      expect(page1.map((u: { id: number }) => u.id)).toEqual([expect.any(Number), admin2.user.id])
      expect(page2.map((u: { id: number }) => u.id)).toEqual([pro1.user.id, free1.user.id])
      expect(page9).toEqual({ error: '0', data: [] })
    })

    it.each([
      ['filter=vip', /^filter /],
      ['filter=', null],
      ['limit=0', /^limit /],
      ['limit=-1', /^limit /],
      ['limit=abc', /^limit /],
      ['page=0', /^page /],
      ['page=x', /^page /],
    ])('?%s', async (query, message) => {
      const res = await admin.api.get(`/api/users?${query}&email=${tag}`)
      if (message) expectError(res, 400, message)
      else expect(res.statusCode).toBe(200)
    })

    it('clamps a huge limit instead of refusing it', async () => {
      const res = await admin.api.get(`/api/users?email=${tag}&limit=1000000`)
      expect(res.statusCode).toBe(200)
      expect(res.json().data).toHaveLength(4)
    })
  })

  describe('GET /api/user/:id', () => {
    it('returns the user with plan id and API key', async () => {
      const u = await t.makeUser({ plan: 'pro' })
      const res = await admin.api.get(`/api/user/${u.user.id}`)
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({
        error: 0,
        data: {
          id: u.user.id, email: u.user.email, username: u.user.username, avatar: gravatar(u.user.email), status: 'pro',
          expires: null, registered: expect.stringMatching(TS), planid: proId, apikey: u.key, admin: false,
        },
      })
      // the key it shows is the live one
      expect((await t.api(res.json().data.apikey).get('/api/account')).json().data.id).toBe(u.user.id)
    })

    it('shows the new key after a rotation', async () => {
      const u = await t.makeUser()
      const fresh = (await u.api.post('/api/account/apikey')).json().apikey
      expect((await admin.api.get(`/api/user/${u.user.id}`)).json().data.apikey).toBe(fresh)
    })

    it.each([...BAD_IDS, '999999'])('404 for /api/user/%s', async (id) => {
      expectError(await admin.api.get(`/api/user/${id}`), 404)
    })
  })

  describe('POST /api/user/add', () => {
    it('creates a user on the default plan with a working API key', async () => {
      const res = await admin.api.post('/api/user/add', { username: 'new.user-1', email: 'New.User@example.com', password: 'hunter22' })
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({ error: 0, message: 'User has been registered.', data: { id: expect.any(Number), email: 'New.User@example.com', username: 'new.user-1' } })
      const id = res.json().data.id
      const shown = (await admin.api.get(`/api/user/${id}`)).json().data
      expect(shown).toMatchObject({ id, planid: freeId, status: 'free', expires: null, admin: false, apikey: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/) })
      expect((await t.api(shown.apikey).get('/api/account')).json().data).toMatchObject({ id, username: 'new.user-1' })
      const login = await t.app.inject({ method: 'POST', url: '/login', payload: { email: 'new.user@EXAMPLE.com', password: 'hunter22' } })
      expect(login.statusCode).toBe(302)
      const [row] = await t.app.db.select().from(users).where(eq(users.id, id))
      expect(row.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/)
    })

    it('with planid and expiration: pro until then', async () => {
      const res = await admin.api.post('/api/user/add', { username: 'paying', email: 'paying@example.com', password: 'hunter22', planid: proId, expiration: '2099-12-31 23:59:59' })
      expect(res.statusCode).toBe(200)
      const shown = (await admin.api.get(`/api/user/${res.json().data.id}`)).json().data
      expect(shown).toMatchObject({ planid: proId, status: 'pro', expires: '2099-12-31 23:59:59' })
    })

    it('ignores admin and apikey in the body', async () => {
      const res = await admin.api.post('/api/user/add', { username: 'not_admin', email: 'not-admin@example.com', password: 'hunter22', admin: true, apikey: 'B'.repeat(32), __proto__: { admin: true } })
      expect(res.statusCode).toBe(200)
      const shown = (await admin.api.get(`/api/user/${res.json().data.id}`)).json().data
      expect(shown.admin).toBe(false)
      expect(shown.apikey).not.toBe('B'.repeat(32))
      expectError(await t.api('B'.repeat(32)).get('/api/account'), 401)
    })

    const good = { username: 'valid_name', email: 'valid@example.com', password: 'hunter22' }
    const bad: { name: string; body: unknown; status: number; message: RegExp }[] = [
      { name: 'an empty body', body: {}, status: 400, message: /^username / },
      { name: 'no email', body: { username: 'abc', password: 'hunter22' }, status: 400, message: /^email / },
      { name: 'no password', body: { username: 'abc', email: 'a@example.com' }, status: 400, message: /^password / },
      { name: 'a username of 2 characters', body: { ...good, username: 'ab' }, status: 400, message: /^username / },
      { name: 'a username of 33 characters', body: { ...good, username: 'a'.repeat(33) }, status: 400, message: /^username / },
      { name: 'a username with HTML', body: { ...good, username: '<b>bold</b>' }, status: 400, message: /^username / },
      { name: 'a username with a quote', body: { ...good, username: 'o"neil' }, status: 400, message: /^username / },
      { name: 'a username with a space', body: { ...good, username: 'two words' }, status: 400, message: /^username / },
      { name: 'a username with unicode', body: { ...good, username: 'zoë_user' }, status: 400, message: /^username / },
      { name: 'a username that is a number', body: { ...good, username: 12345 }, status: 400, message: /^username / },
      { name: 'an invalid email', body: { ...good, email: 'nope' }, status: 400, message: /^email / },
      { name: 'an email with a control character', body: { ...good, email: 'a\u0000b@example.com' }, status: 400, message: /^email / },
      { name: 'an email with CRLF', body: { ...good, email: 'a@example.com\r\n' + 'x' }, status: 400, message: /^email / },
      { name: 'a password of 4 characters', body: { ...good, password: '1234' }, status: 400, message: /^password .*5/ },
      { name: 'a password that is a number', body: { ...good, password: 12345678 }, status: 400, message: /^password / },
      { name: 'an unknown planid', body: { ...good, planid: 999999 }, status: 400, message: /^planid: no plan has that id\.$/ },
      { name: 'a planid that is not a number', body: { ...good, planid: 'pro' }, status: 400, message: /^planid / },
      { name: 'a negative planid', body: { ...good, planid: -1 }, status: 400, message: /^planid / },
      { name: 'a malformed expiration', body: { ...good, expiration: '31/12/2099' }, status: 400, message: /^expiration / },
    ]
    it.each(bad)('refuses $name ($status), writing nothing', async ({ body, status, message }) => {
      const counts = await rowCounts(t.app.db)
      expectError(await admin.api.post('/api/user/add', body as object), status, message)
      expect(await rowCounts(t.app.db)).toEqual(counts)
    })

    it('refuses a taken email or username, ignoring case (409), writing nothing', async () => {
      await admin.api.post('/api/user/add', { username: 'Taken_Name', email: 'taken@example.com', password: 'hunter22' })
      const counts = await rowCounts(t.app.db)
      expectError(await admin.api.post('/api/user/add', { username: 'other_name', email: 'TAKEN@example.com', password: 'hunter22' }), 409, /email/)
      expectError(await admin.api.post('/api/user/add', { username: 'taken_name', email: 'other@example.com', password: 'hunter22' }), 409, /username/)
      expect(await rowCounts(t.app.db)).toEqual(counts)
    })
  })

  describe('DELETE /api/user/:id/delete', () => {
    it('deletes the user and everything they own', async () => {
      const victim = await t.makeUser()
      const bystander = await t.makeUser()
      const uid = victim.user.id
      const db = t.app.db
      const [domain] = await db.insert(domains).values({ userId: uid, domain: 'https://go.victim.test', host: 'go.victim.test' }).returning()
      await db.insert(links).values({ userId: uid, alias: 'victim1', url: 'https://example.com/a', domainId: domain.id })
      await db.insert(links).values({ userId: bystander.user.id, alias: 'keep01', url: 'https://example.com/b' })
      await db.insert(pixels).values({ userId: uid, type: 'gtmpixel', name: 'GTM', tag: 'GTM-1' })
      await db.insert(campaigns).values({ userId: uid, name: 'Spring' })
      await db.insert(channels).values({ userId: uid, name: 'Chan' })
      await db.insert(pages).values({ userId: uid, kind: 'splash', name: 'Splash' })
      await db.insert(qrCodes).values({ userId: uid, alias: 'qrvictim', type: 'text', data: 'hi', target: 'hi', content: 'hi', name: 'QR' })
      await db.insert(clickQuota).values({ userId: uid, month: '2030-01', count: 5 })
      await admin.api.get(`/api/user/login/${uid}`)

      const res = await admin.api.del(`/api/user/${uid}/delete`)
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({ error: 0, message: 'User has been deleted.' })

      for (const table of [domains, links, pixels, campaigns, channels, pages, qrCodes, apiKeys, ssoTokens, sessions, clickQuota]) {
        const [{ n }] = await db.select({ n: count() }).from(table).where(eq(table.userId, uid))
        expect(n).toBe(0)
      }
      expect(await userRow(uid)).toBeUndefined()
      expectError(await admin.api.get(`/api/user/${uid}`), 404)
      expectError(await victim.api.get('/api/account'), 401)
      // the bystander keeps everything
      const [{ n }] = await db.select({ n: count() }).from(links).where(eq(links.userId, bystander.user.id))
      expect(n).toBe(1)
      expect((await bystander.api.get('/api/account')).statusCode).toBe(200)
    })

    it('takes a JSON content type with an empty body', async () => {
      const u = await t.makeUser()
      const res = await admin.api.del(`/api/user/${u.user.id}/delete`, { 'content-type': 'application/json' })
      expect(res.statusCode).toBe(200)
    })

    it('refuses to delete the calling admin (400), deleting nothing', async () => {
      const counts = await rowCounts(t.app.db)
      expectError(await admin.api.del(`/api/user/${admin.user.id}/delete`), 400, /own account/)
      expect(await rowCounts(t.app.db)).toEqual(counts)
      expect((await admin.api.get('/api/account')).statusCode).toBe(200)
    })

    it.each([...BAD_IDS, '999999'])('404 for /api/user/%s/delete, deleting nothing', async (id) => {
      const counts = await rowCounts(t.app.db)
      expectError(await admin.api.del(`/api/user/${id}/delete`), 404)
      expect(await rowCounts(t.app.db)).toEqual(counts)
    })
  })

  describe('GET /api/user/login/:id', () => {
    it('returns a single-use SSO URL; only the token’s SHA-256 is stored', async () => {
      const u = await t.makeUser()
      const res = await admin.api.get(`/api/user/login/${u.user.id}`)
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({ error: 0, url: expect.stringMatching(/^http:\/\/kurz\.test\/sso\/[A-Za-z0-9_-]{43}$/) })
      const token = res.json().url.split('/sso/')[1]
      const rows = await t.app.db.select().from(ssoTokens).where(eq(ssoTokens.userId, u.user.id))
      expect(rows).toHaveLength(1)
      expect(rows[0].tokenHash).toBe(sha256(token))
      expect(JSON.stringify(rows)).not.toContain(token)
      expect(rows[0].expiresAt.getTime() - rows[0].createdAt.getTime()).toBeGreaterThan(59 * 60_000)
      expect(rows[0].expiresAt.getTime() - Date.now()).toBeLessThanOrEqual(3600_000)
      expect(rows[0].createdBy).toBe(admin.user.id)
    })

    it('issues a different URL each time', async () => {
      const u = await t.makeUser()
      const a = (await admin.api.get(`/api/user/login/${u.user.id}`)).json().url
      const b = (await admin.api.get(`/api/user/login/${u.user.id}`)).json().url
      expect(a).not.toBe(b)
    })

    it('refuses to sign in as another admin (403), issuing nothing', async () => {
      const other = await t.makeUser({ admin: true })
      const counts = await rowCounts(t.app.db)
      expectError(await admin.api.get(`/api/user/login/${other.user.id}`), 403, /admin/)
      expect(await rowCounts(t.app.db)).toEqual(counts)
    })

    it('lets an admin sign in as themselves', async () => {
      const res = await admin.api.get(`/api/user/login/${admin.user.id}`)
      expect(res.statusCode).toBe(200)
      expect(res.json().url).toMatch(/\/sso\//)
    })

    it.each([...BAD_IDS, '999999'])('404 for /api/user/login/%s', async (id) => {
      expectError(await admin.api.get(`/api/user/login/${id}`), 404)
    })
  })
})
