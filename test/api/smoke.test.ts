import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testApp, type TestApp } from '../helpers/app.js'

describe('smoke', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await testApp()
  })
  afterAll(() => t.close())

  it('GET /healthz', async () => {
    const res = await t.api().get('/healthz')
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ status: 'ok' })
  })
  it('GET /api/account', async () => {
    const u = await t.makeUser()
    const res = await u.api.get('/api/account')
    expect(res.statusCode).toBe(200)
    expect(res.json().data.username).toBe(u.user.username)
    expect(res.headers['x-ratelimit-limit']).toBe('100000')
  })
})
