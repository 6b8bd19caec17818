import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testApp, type TestApp, type TestUser } from '../helpers/app.js'
import { addLink, makePage, makePixel } from '../helpers/fixtures.js'
import { visit } from '../helpers/visits.js'

/** GET /api/account/usage (extension): what an account uses of its plan, against the plan's caps. */
describe('GET /api/account/usage', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await testApp()
  })
  afterAll(() => t.close())

  const month = () => new Date().toISOString().slice(0, 7)
  const usage = async (u: TestUser) => {
    const res = await u.api.get('/api/account/usage')
    expect(res.statusCode).toBe(200)
    return res.json().data
  }

  it('answers a new account on Free: nothing used, the seeded caps', async () => {
    const u = await t.makeUser({ plan: 'free' })
    const res = await u.api.get('/api/account/usage')
    expect(res.json()).toEqual({
      error: 0,
      data: {
        plan: { id: u.user.planId, name: 'Free' },
        links: { used: 0, limit: 1000 },
        clicks: { month: month(), used: 0, limit: 0 },
        retention: 90,
        domain: { enabled: true, used: 0, limit: 5 },
        pixels: { enabled: true, used: 0, limit: 5 },
        splash: { enabled: true, used: 0, limit: 5 },
        overlay: { enabled: true, used: 0, limit: 5 },
      },
    })
  })

  it('counts what the account made and the detailed clicks of this month, up to the plan\'s quota; another account is unaffected', async () => {
    const u = await t.makeUser({ features: { pixels: { enabled: '0', count: '0' } } })
    const other = await t.makeUser({ plan: 'free' })
    const before = await usage(other)
    // a plan recording one detailed click a month (the cap is set through the admin API)
    const admin = await t.makeUser({ admin: true })
    expect((await admin.api.put(`/api/plan/${u.user.planId}/update`, { limits: { clicks: 1, links: 10 } })).statusCode).toBe(200)
    await addLink(u, { url: 'https://usage.example/a', custom: 'usage-a' })
    await addLink(u, { url: 'https://usage.example/b' })
    await makePixel(t, u.user.id)
    await makePage(t, u.user.id, 'splash')
    for (let i = 0; i < 3; i++) expect((await visit(t, '/usage-a', { remoteAddress: '8.8.8.8' })).statusCode).toBe(302)
    await t.app.clicks.flush()

    const got = await usage(u)
    expect(got).toMatchObject({
      links: { used: 2, limit: 10 },
      clicks: { month: month(), used: 1, limit: 1 },
      pixels: { enabled: false, used: 1, limit: 0 },
      splash: { enabled: true, used: 1, limit: 0 },
      overlay: { enabled: true, used: 0, limit: 0 },
      domain: { enabled: true, used: 0, limit: 0 },
    })
    // every visit still counts on the link; only the detail is capped
    expect((await u.api.get('/api/urls')).json().data.urls.find((l: { alias: string }) => l.alias === 'usage-a').clicks).toBe(3)
    expect(await usage(other)).toEqual(before)
  })

  it('an admin is never limited: every cap 0, every feature enabled', async () => {
    const admin = await t.makeUser({ admin: true, off: ['pixels', 'domain'], maxLinks: 3 })
    expect(await usage(admin)).toMatchObject({
      links: { used: 0, limit: 0 },
      clicks: { limit: 0 },
      domain: { enabled: true, limit: 0 },
      pixels: { enabled: true, limit: 0 },
    })
  })

  it('needs a key', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/account/usage' })
    expect(res.statusCode).toBe(401)
    expect(res.json()).toMatchObject({ error: 1, message: expect.any(String) })
  })
})
