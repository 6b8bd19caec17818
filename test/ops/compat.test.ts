import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testApp, type TestApp, type TestUser } from '../helpers/app.js'

/** COMPAT_LIST_ERROR and COMPAT_V1 over HTTP (DECISIONS §10.7); the defaults are the contract's. */
const form = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }

async function withLinks(env: Record<string, string>) {
  const t = await testApp(env)
  const admin = await t.makeUser({ admin: true, plan: 'pro' })
  expect((await admin.api.post('/api/url/add', { url: 'https://example.com/a', custom: 'compat-a' })).statusCode).toBe(200)
  return { t, admin }
}

describe('defaults: lists carry "0", v1 carries error', () => {
  let t: TestApp
  let admin: TestUser
  beforeAll(async () => ({ t, admin } = await withLinks({})))
  afterAll(() => t.close())

  it('management lists and queries answer error "0", single objects error 0', async () => {
    for (const url of ['/api/urls', '/api/plans', '/api/users', '/api/urls?short=kurz.test/compat-a']) {
      const res = await admin.api.get(url)
      expect(res.statusCode, url).toBe(200)
      expect(res.json().error, url).toBe('0')
    }
    expect((await admin.api.get('/api/account')).json().error).toBe(0)
  })

  it('v1 answers carry the error key', async () => {
    const list = await admin.api.get('/api/v1/links')
    expect(list.json()).toMatchObject({ error: '0', status: 200 })
    const bad = await admin.api.post('/api/v1/links', 'url=not-a-url', form)
    expect(bad.statusCode).toBe(422)
    expect(bad.json()).toMatchObject({ error: 1, errors: { url: expect.any(Array) } })
  })
})

describe('COMPAT_LIST_ERROR=number', () => {
  let t: TestApp
  let admin: TestUser
  beforeAll(async () => ({ t, admin } = await withLinks({ COMPAT_LIST_ERROR: 'number' })))
  afterAll(() => t.close())

  it('every list and query answers error 0 (a number); the rest is unchanged', async () => {
    for (const url of ['/api/urls', '/api/plans', '/api/users', '/api/urls?short=kurz.test/compat-a', '/api/v1/links']) {
      const res = await admin.api.get(url)
      expect(res.statusCode, url).toBe(200)
      expect(res.json().error, url).toBe(0)
      expect(res.body, url).not.toContain('"error":"0"')
    }
    const list = (await admin.api.get('/api/urls')).json()
    expect(list.data.urls.map((u: { alias: string }) => u.alias)).toEqual(['compat-a'])
    expect((await admin.api.get('/api/account')).json().error).toBe(0)
    const missing = await admin.api.get('/api/url/999999')
    expect(missing.statusCode).toBe(404)
    expect(missing.json().error).toBe(1)
  })
})

describe('COMPAT_V1=phpshort', () => {
  let t: TestApp
  let admin: TestUser
  beforeAll(async () => ({ t, admin } = await withLinks({ COMPAT_V1: 'phpshort' })))
  afterAll(() => t.close())

  it('v1 answers without the error key, in the same shapes otherwise', async () => {
    const made = await admin.api.post('/api/v1/links', 'url=https%3A%2F%2Fexample.com%2Fv1&alias=php-v1', form)
    expect(made.statusCode).toBe(201)
    const created = made.json()
    expect(created).not.toHaveProperty('error')
    expect(created).toMatchObject({ data: { alias: 'php-v1' }, status: 201 })

    const list = await admin.api.get('/api/v1/links?search=php&by=alias')
    expect(list.json()).not.toHaveProperty('error')
    expect(list.json()).toMatchObject({ data: [{ alias: 'php-v1' }], meta: { total: 1 }, status: 200 })

    const one = await admin.api.get(`/api/v1/links/${created.data.id}`)
    expect(one.json()).not.toHaveProperty('error')
    const bad = await admin.api.post('/api/v1/links', 'url=not-a-url', form)
    expect(bad.statusCode).toBe(422)
    expect(bad.json()).not.toHaveProperty('error')
    expect(bad.json()).toMatchObject({ message: expect.any(String), errors: { url: expect.any(Array) } })
    const anonymous = await t.api().get('/api/v1/links')
    expect(anonymous.statusCode).toBe(401)
    expect(anonymous.json()).not.toHaveProperty('error')
    const gone = await admin.api.del(`/api/v1/links/${created.data.id}`)
    expect(gone.json()).toMatchObject({ id: created.data.id, object: 'link', deleted: true, status: 200 })
    expect(gone.json()).not.toHaveProperty('error')
  })

  it('leaves the management interface alone', async () => {
    expect((await admin.api.get('/api/urls')).json().error).toBe('0')
    expect((await admin.api.get('/api/account')).json().error).toBe(0)
  })
})
