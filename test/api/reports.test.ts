import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { appWith, expectError, testApp, type TestApp, type TestUser } from '../helpers/app.js'
import { countRows } from '../helpers/fixtures.js'
import { expectPage, visit } from '../helpers/visits.js'
import { freshAddress } from '../helpers/addresses.js'
import { linkReports, links } from '../../src/db/schema/index.js'
import { REPORTS_PER_HOUR } from '../../src/resources/reports/public.js'

/*
 * DECISIONS §10.6: anyone can report a link at /<alias>/report (a form, throttled per IP);
 * admins read the reports at GET /api/reports.
 */

/** Addresses of this run only (a /64 each): with REDIS_URL the throttle's counts outlive the test database. */
const addresses = new Map<number, string>()
const ip = (n: number) => addresses.get(n) ?? addresses.set(n, freshAddress()).get(n)!

const HOSTILE = '<script>alert(1)</script>"\'><img src=x onerror=alert(2)>'

describe('link reports', () => {
  let t: TestApp
  let admin: TestUser
  let alice: TestUser
  let linkId: number

  beforeAll(async () => {
    ;[t, admin, alice] = await appWith({ admin: true }, { plan: 'pro' })
    linkId = (await alice.api.post('/api/url/add', { url: 'https://example.com/reported', custom: 'reported' })).json().id
    // disabled through v1, the interface that has the field
    const v1 = await t.app.inject({
      method: 'POST',
      url: '/api/v1/links',
      headers: { authorization: `Bearer ${alice.key}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      payload: 'url=https%3A%2F%2Fexample.com%2Foff&alias=switched-off&disabled=1',
    })
    expect(v1.statusCode, v1.body).toBe(201)
  })
  afterAll(() => t.close())

  const report = (alias: string, form: Record<string, string>, from = ip(1)) => visit(t, `/${alias}/report`, { form, remoteAddress: from })

  it('GET shows an escaped form with a strict CSP, posting to itself', async () => {
    const res = await visit(t, '/reported/report')
    expectPage(res, 200)
    expect(res.headers['content-security-policy']).toMatch(/script-src 'none'/)
    expect(res.headers['content-security-policy']).toMatch(/form-action 'self'/)
    expect(res.body).toContain('<code>http://kurz.test/reported</code>')
    expect(res.body).toContain('<form method="post" action="/reported/report">')
    expect(res.body).toContain('<option value="phishing">')
  })

  it('POST stores the report and thanks the visitor', async () => {
    const before = await countRows(t, linkReports)
    const res = await report('reported', { reason: 'phishing', comment: 'Asks for my bank password', email: 'me@example.com' }, ip(50))
    expectPage(res, 200)
    expect(res.body).toContain('Thank you')
    expect(await countRows(t, linkReports)).toBe(before + 1)
  })

  it('a refused post shows the form again with what was sent, escaped', async () => {
    const before = await countRows(t, linkReports)
    const res = await report('reported', { reason: HOSTILE, comment: HOSTILE, email: 'not-an-email' }, ip(51))
    expectPage(res, 400)
    expect(res.body).not.toContain('<script>')
    expect(res.body).not.toContain('<img')
    expect(res.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&gt;&lt;img src=x onerror=alert(2)&gt;</textarea>')
    expect(res.body).toMatch(/Choose what is wrong/)
    const badEmail = await report('reported', { reason: 'spam', email: `"><script>x</script>` }, ip(51))
    expectPage(badEmail, 400)
    expect(badEmail.body).toContain('value="&quot;&gt;&lt;script&gt;x&lt;/script&gt;"')
    expect(badEmail.body).not.toContain('<script>')
    // a NUL, which Postgres cannot store, was a 500 (and spent one of the visitor's reports)
    expect(await report('reported', { reason: 'spam', comment: 'a\u0000b' }, ip(51))).toMatchObject({ statusCode: 400, body: expect.stringContaining('Details must not contain control characters.') })
    expect(await report('reported', { reason: 'spam', email: 'a\u0000@b.example' }, ip(51))).toMatchObject({ statusCode: 400, body: expect.stringContaining('That email address does not look right.') })
    // line breaks in the details are fine
    expectPage(await report('reported', { reason: 'spam', comment: 'line one\r\nline two' }, ip(52)), 200)
    expect(await countRows(t, linkReports)).toBe(before + 1)
  })

  it(`is throttled per IP: ${REPORTS_PER_HOUR} reports an hour, then 429; another address is not affected`, async () => {
    const from = ip(9)
    const answers = await Promise.all(Array.from({ length: REPORTS_PER_HOUR + 5 }, () => report('reported', { reason: 'spam' }, from)))
    const statuses = answers.map((r) => r.statusCode)
    expect(statuses.filter((s) => s === 200)).toHaveLength(REPORTS_PER_HOUR)
    expect(statuses.filter((s) => s === 429)).toHaveLength(5)
    const refused = answers.find((r) => r.statusCode === 429)!
    expectPage(refused, 429)
    expect(refused.headers['retry-after']).toBe('3600')
    expect((await report('reported', { reason: 'spam' }, ip(10))).statusCode).toBe(200)
  })

  it('a missing, disabled or malformed alias is the same 404 as before; reserved paths answer as they did', async () => {
    for (const path of ['/nope/report', '/switched-off/report', '/bad%20alias/report']) {
      expectPage(await visit(t, path), 404)
      expectPage(await visit(t, path, { form: { reason: 'spam' } }), 404)
    }
    for (const path of ['/api/report', '/api/reports/report']) {
      const res = await visit(t, path)
      expect(res.statusCode).toBe(404)
      expect(res.json()).toEqual({ error: 1, message: `No route GET ${path}.` })
    }
    expect((await visit(t, '/reported/report/x')).statusCode).toBe(404)
  })

  it('GET /api/reports: admins only, newest first, paginated, per link', async () => {
    expectError(await alice.api.get('/api/reports'), 403, /admin/)
    expectError(await t.api().get('/api/reports'), 401)
    const all = (await admin.api.get('/api/reports')).json()
    expect(all.error).toBe('0')
    const total = all.data.result
    expect(total).toBeGreaterThanOrEqual(REPORTS_PER_HOUR + 2)
    expect(all.data.reports.find((r: { comment: string }) => r.comment === 'Asks for my bank password')).toEqual({
      id: expect.any(Number),
      link: linkId,
      shorturl: 'http://kurz.test/reported',
      url: 'https://example.com/reported',
      reason: 'phishing',
      comment: 'Asks for my bank password',
      email: 'me@example.com',
      date: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      quarantined: false,
    })
    // whether the link is quarantined now: what the admin may release
    await t.app.db.update(links).set({ quarantined: true }).where(eq(links.id, linkId))
    const now = (await admin.api.get(`/api/reports?link=${linkId}`)).json().data.reports
    expect(now.every((r: { quarantined: boolean }) => r.quarantined)).toBe(true)
    await t.app.db.update(links).set({ quarantined: false }).where(eq(links.id, linkId))
    const page = (await admin.api.get('/api/reports?limit=2&page=2')).json().data
    expect(page).toMatchObject({ result: total, perpage: 2, currentpage: 2, maxpage: Math.ceil(total / 2) })
    expect(page.reports).toHaveLength(2)
    expect((await admin.api.get(`/api/reports?link=${linkId}`)).json().data.result).toBe(total)
    expect((await admin.api.get('/api/reports?link=999999')).json().data.result).toBe(0)
    expectError(await admin.api.get('/api/reports?link=abc'), 400, /^link /)
  })

  it('DELETE /api/reports/:id/delete: admins dismiss one report; the link and the other reports stay', async () => {
    const before = (await admin.api.get(`/api/reports?link=${linkId}`)).json().data
    const [first, second] = before.reports as { id: number }[]
    expectError(await alice.api.del(`/api/reports/${first.id}/delete`), 403, /admin/)
    expectError(await t.api().del(`/api/reports/${first.id}/delete`), 401)
    expect((await admin.api.get(`/api/reports?link=${linkId}`)).json().data.result).toBe(before.result)

    const res = await admin.api.del(`/api/reports/${first.id}/delete`)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ error: 0, message: 'Report has been dismissed.' })
    const after = (await admin.api.get(`/api/reports?link=${linkId}`)).json().data
    expect(after.result).toBe(before.result - 1)
    expect(after.reports.map((r: { id: number }) => r.id)).not.toContain(first.id)
    expect(after.reports.map((r: { id: number }) => r.id)).toContain(second.id)
    expect((await alice.api.get(`/api/url/${linkId}`)).statusCode).toBe(200)

    expectError(await admin.api.del(`/api/reports/${first.id}/delete`), 404, /^Report not found\.$/)
    expectError(await admin.api.del('/api/reports/99999999/delete'), 404)
    expect((await admin.api.del('/api/reports/abc/delete')).statusCode).toBe(404)
  })

  it('a report keeps its short URL when the link is deleted', async () => {
    expect((await alice.api.del(`/api/url/${linkId}/delete`)).statusCode).toBe(200)
    const rows = (await admin.api.get('/api/reports')).json().data.reports
    expect(rows.every((r: { link: number | null; shorturl: string; url: string }) => r.link === null && r.shorturl === 'http://kurz.test/reported' && r.url === '')).toBe(true)
  })
})

describe('the per-account creation throttle (CREATE_LIMIT_PER_HOUR)', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await testApp({ CREATE_LIMIT_PER_HOUR: '3', ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}) })
  })
  afterAll(() => t.close())

  it('lets a non-admin account create that many links an hour over both interfaces, even at once, then 429; admins are not limited', async () => {
    const u = await t.makeUser({ plan: 'pro' })
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => u.api.post('/api/url/add', { url: `https://example.com/${i}` })))
    expect(answers.filter((r) => r.statusCode === 200)).toHaveLength(3)
    for (const r of answers.filter((r) => r.statusCode !== 200)) expectError(r, 429, /at most 3 links an hour \(CREATE_LIMIT_PER_HOUR\)/)
    const v1 = await t.app.inject({
      method: 'POST',
      url: '/api/v1/links',
      headers: { authorization: `Bearer ${u.key}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      payload: 'url=https%3A%2F%2Fexample.com%2Fv1',
    })
    expect(v1.statusCode).toBe(429)
    const other = await t.makeUser({ plan: 'pro' })
    expect((await other.api.post('/api/url/add', { url: 'https://example.com/other' })).statusCode).toBe(200)
    const admin = await t.makeUser({ admin: true })
    for (let i = 0; i < 5; i++) expect((await admin.api.post('/api/url/add', { url: `https://example.com/a${i}` })).statusCode).toBe(200)
  })

  it("counts imported rows too: the rows past the hour's room are refused in one line, and an import with no room left is a 429 that writes nothing", async () => {
    const u = await t.makeUser({ plan: 'pro' })
    const csv = (names: string[]) => `url,alias\n${names.map((n) => `https://example.com/${n},imp-${n}`).join('\n')}\n`
    const count = async () => (await u.api.get('/api/urls?limit=100')).json().data.result
    expect((await u.api.post('/api/url/add', { url: 'https://example.com/first' })).statusCode).toBe(200)

    const res = await u.api.post('/api/urls/import?format=csv', csv(['a', 'b', 'c', 'd']), { 'content-type': 'text/csv' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({
      error: 0,
      imported: 2,
      skipped: 0,
      errors: [{ line: 4, message: expect.stringMatching(/^Too many links created: .*at most 3 links an hour \(CREATE_LIMIT_PER_HOUR\)\. Try again in \d+ seconds\. This row and the 1 after it were not imported\.$/) }],
    })
    expect(await count()).toBe(3)

    const none = await u.api.post('/api/urls/import?format=csv', csv(['e']), { 'content-type': 'text/csv' })
    expectError(none, 429, /at most 3 links an hour/)
    expect(Number(none.headers['retry-after'])).toBeGreaterThan(0)
    expect(await count()).toBe(3)
  })
})
