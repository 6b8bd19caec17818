import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { and, count, eq, sql } from 'drizzle-orm'
import { clicks } from '../../src/db/schema/index.js'
import { testApp, type TestApp, type TestUser } from '../helpers/app.js'
import { addLink, addV1Link, insertLink, makeDomain } from '../helpers/fixtures.js'
import { counters, expectPage, expectRedirect, visit } from '../helpers/visits.js'
import { UA } from './user-agents.js'

describe('GET /r/:slug campaign rotator', () => {
  let t: TestApp
  let pro: TestUser

  async function campaign(slug: string): Promise<number> {
    const res = await pro.api.post('/api/campaign/add', { name: `Campaign ${slug}`, slug })
    expect(res.statusCode).toBe(200)
    return res.json().id
  }

  beforeAll(async () => {
    // REDIRECT_STATUS applies to direct visits only: the rotator always answers 302
    t = await testApp({ REDIRECT_STATUS: '308' })
    pro = await t.makeUser({ plan: 'pro' })
  })
  afterAll(() => t.close())

  it('answers a random active link with a 302 and counts it as that link’s visit from the rotator', async () => {
    const cid = await campaign('spring')
    const a = await addLink(pro, { url: 'https://example.com/a', custom: 'rotA', campaign: cid })
    const b = await addLink(pro, { url: 'https://example.com/b', custom: 'rotB', campaign: cid })
    await addV1Link(t, pro, { url: 'https://example.com/off', alias: 'rotOff', disabled: '1' }).then((id) => pro.api.post(`/api/campaign/${cid}/assign/${id}`))
    await insertLink(t, pro.user.id, { alias: 'rotOld', url: 'https://example.com/old', campaignId: cid, expiresAt: new Date(Date.now() - 1000) })
    await addLink(pro, { url: 'https://example.com/elsewhere', custom: 'rotOther' })

    const seen = new Map<string, number>()
    for (let i = 0; i < 40; i++) {
      const res = await visit(t, '/r/spring')
      expect(res.statusCode).toBe(302)
      seen.set(res.headers.location as string, (seen.get(res.headers.location as string) ?? 0) + 1)
    }
    expect([...seen.keys()].sort()).toEqual(['https://example.com/a', 'https://example.com/b'])
    const ca = await counters(t, a)
    const cb = await counters(t, b)
    expect(ca.clicks + cb.clicks).toBe(40)
    expect(ca.clicks).toBe(seen.get('https://example.com/a'))
    const [{ n }] = await t.app.db.select({ n: count() }).from(clicks).where(and(eq(clicks.source, 'rotator')))
    expect(n).toBe(40)
    // a direct visit of the same link uses REDIRECT_STATUS and is not a rotator visit
    expectRedirect(await visit(t, '/rotA'), 308, 'https://example.com/a')
  })

  it('a link on a branded domain: its domain is read once, then kept with the cached hosts', async () => {
    const cid = await campaign('branded')
    const domain = await makeDomain(t, pro.user.id, 'https://go.rotator.example')
    await insertLink(t, pro.user.id, { alias: 'rotBrand', url: 'https://example.com/branded', campaignId: cid, domainId: domain.id })
    expectRedirect(await visit(t, '/r/branded'), 302, 'https://example.com/branded')
    // with the domains table gone, only what the cache holds can answer the next visit
    await t.app.db.execute(sql`alter table domains rename to domains_away`)
    try {
      expectRedirect(await visit(t, '/r/branded'), 302, 'https://example.com/branded')
    } finally {
      await t.app.db.execute(sql`alter table domains_away rename to domains`)
    }
  })

  it('skips a link whose click cap is reached, counting live', async () => {
    const cid = await campaign('capped')
    const capped = await addV1Link(t, pro, { url: 'https://example.com/capped', alias: 'rotCap', expiration_clicks: '2' })
    await pro.api.post(`/api/campaign/${cid}/assign/${capped}`)
    expectRedirect(await visit(t, '/r/capped'), 302, 'https://example.com/capped')
    expectRedirect(await visit(t, '/r/capped'), 302, 'https://example.com/capped')
    expectPage(await visit(t, '/r/capped'), 404)
    expect(await counters(t, capped)).toEqual({ clicks: 2, uniqueClicks: 1, botClicks: 0, lastRotation: 0 })
  })

  it('applies the link’s targeting, parameters and the visitor’s query', async () => {
    const cid = await campaign('targeted')
    await addLink(pro, {
      url: 'https://example.com/web?x=1',
      custom: 'rotTarget',
      campaign: cid,
      devicetarget: [{ device: 'Android', link: 'https://example.com/android' }],
      parameters: [{ name: 'utm_campaign', value: 'targeted' }],
    })
    expectRedirect(await visit(t, '/r/targeted?q=1', { headers: { 'user-agent': UA.android } }), 302, 'https://example.com/android?q=1&utm_campaign=targeted')
    expectRedirect(await visit(t, '/r/targeted'), 302, 'https://example.com/web?x=1&utm_campaign=targeted')
  })

  it('shows the link’s password form, posting back to the rotator with the link id', async () => {
    const cid = await campaign('locked')
    const id = await addLink(pro, { url: 'https://example.com/locked', custom: 'rotLocked', campaign: cid, password: 'pw' })
    const other = await addLink(pro, { url: 'https://example.com/not-in-campaign', custom: 'rotNot', password: 'pw' })
    const form = await visit(t, '/r/locked')
    expectPage(form, 200)
    expect(form.body).toContain('<form method="post" action="/r/locked">')
    expect(form.body).toContain(`<input type="hidden" name="link" value="${id}">`)
    expectPage(await visit(t, '/r/locked', { form: { link: String(id), password: 'bad' }, remoteAddress: '192.0.2.30' }), 401)
    expectRedirect(await visit(t, '/r/locked', { form: { link: String(id), password: 'pw' }, remoteAddress: '192.0.2.30' }), 302, 'https://example.com/locked')
    // a link id from outside the campaign opens nothing
    expectPage(await visit(t, '/r/locked', { form: { link: String(other), password: 'pw' } }), 404)
    expectPage(await visit(t, '/r/locked', { form: { link: 'x', password: 'pw' } }), 404)
    expect(await counters(t, id)).toEqual({ clicks: 1, uniqueClicks: 1, botClicks: 0, lastRotation: 0 })
  })

  it('answers 404 for an unknown slug, a campaign without active links, and a hostile slug', async () => {
    await campaign('empty')
    expectPage(await visit(t, '/r/empty'), 404)
    expectPage(await visit(t, '/r/nope'), 404)
    expectPage(await visit(t, '/r/%22%3E%3Cscript%3E'), 404)
  })

  it('HEAD is answered but not counted', async () => {
    const cid = await campaign('heads')
    const id = await addLink(pro, { url: 'https://example.com/h', custom: 'rotHead', campaign: cid })
    expectRedirect(await visit(t, '/r/heads', { method: 'HEAD' }), 302, 'https://example.com/h')
    expect(await counters(t, id)).toEqual({ clicks: 0, uniqueClicks: 0, botClicks: 0, lastRotation: 0 })
  })
})
