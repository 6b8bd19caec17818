import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { eq } from 'drizzle-orm'
import { appWith, type TestApp, type TestUser } from '../helpers/app.js'
import { expectPage, visit } from '../helpers/visits.js'
import { freshAddress } from '../helpers/addresses.js'
import { linkReports } from '../../src/db/schema/index.js'
import { REPORTS_PER_HOUR, REPORTS_PER_LINK, REPORTS_PER_MINUTE } from '../../src/resources/reports/public.js'

/*
 * Session 36: 5 reports an hour per address let 5,000 addresses store 18,933 reports in 20 s. A
 * link keeps at most REPORTS_PER_LINK reports waiting (more of the same link tell the admin
 * nothing new), and at most REPORTS_PER_MINUTE reports are stored a minute from everyone.
 */

const freshIp = freshAddress

const SENT = 'Your report has been sent to the administrators'
const ALREADY = 'This link has already been reported by others'

describe('report floods', () => {
  let t: TestApp
  let admin: TestUser
  let owner: TestUser
  const ids: Record<string, number> = {}
  beforeAll(async () => {
    ;[t, admin, owner] = await appWith({ admin: true }, { plan: 'pro' })
    for (const alias of ['flood-a', 'flood-b', 'flood-c', 'flood-d', 'flood-e']) {
      ids[alias] = (await owner.api.post('/api/url/add', { url: `https://example.com/${alias}`, custom: alias })).json().id
    }
  })
  afterAll(() => t.close())
  afterEach(() => vi.useRealTimers())

  const report = (alias: string, from = freshIp()) => visit(t, `/${alias}/report`, { form: { reason: 'spam' }, remoteAddress: from })
  const stored = async (alias: string) => (await t.app.db.select().from(linkReports).where(eq(linkReports.linkId, ids[alias]))).length

  it(`a link keeps ${REPORTS_PER_LINK} reports waiting: more are thanked and not stored, and a dismissed one makes room`, async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const answers = []
    for (let i = 0; i < REPORTS_PER_LINK + 5; i++) answers.push(await report('flood-a'))
    for (const res of answers) expectPage(res, 200)
    expect(answers.slice(0, REPORTS_PER_LINK).every((r) => r.body.includes(SENT))).toBe(true)
    expect(answers.slice(REPORTS_PER_LINK).every((r) => r.body.includes(ALREADY))).toBe(true)
    expect(await stored('flood-a')).toBe(REPORTS_PER_LINK)
    expect((await admin.api.get(`/api/reports?link=${ids['flood-a']}`)).json().data.result).toBe(REPORTS_PER_LINK)
    // another link is not held up by this one
    expect((await report('flood-b')).body).toContain(SENT)
    const [first] = (await admin.api.get(`/api/reports?link=${ids['flood-a']}`)).json().data.reports
    expect((await admin.api.del(`/api/reports/${first.id}/delete`)).statusCode).toBe(200)
    expect((await report('flood-a')).body).toContain(SENT)
    expect(await stored('flood-a')).toBe(REPORTS_PER_LINK)
  })

  it(`at most ${REPORTS_PER_MINUTE} reports are stored a minute from all addresses, then a 429 that says so; reports a full link turns away take no room`, async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(Date.now() + 2 * 60_000)
    // a full link's reports, before and among the others, are not counted
    for (let i = 0; i < 10; i++) expect((await report('flood-a')).body).toContain(ALREADY)
    // an address that has used all but one of its own budget
    const patient = freshIp()
    for (let i = 0; i < REPORTS_PER_HOUR - 1; i++) expect((await report('flood-b', patient)).body).toContain(SENT)
    const targets = ['flood-c', 'flood-d', 'flood-e']
    for (let i = 0; i < REPORTS_PER_MINUTE - (REPORTS_PER_HOUR - 1); i++) {
      const res = await report(targets[i % 3])
      expect(res.body, `report ${i + 1}`).toContain(SENT)
    }
    const before = (await t.app.db.select().from(linkReports)).length
    const refused = await report('flood-b', patient)
    expectPage(refused, 429)
    expect(refused.body).toContain('Many reports are arriving right now. Try again in a minute.')
    const wait = Number(refused.headers['retry-after'])
    expect(wait).toBeGreaterThan(0)
    expect(wait).toBeLessThanOrEqual(60)
    expect((await report('flood-c')).statusCode).toBe(429)
    expect((await t.app.db.select().from(linkReports)).length).toBe(before)
    // a minute later there is room again, and the refusal did not spend the patient address's own budget
    vi.setSystemTime(Date.now() + 61_000)
    expect((await report('flood-b', patient)).body).toContain(SENT)
    expect((await report('flood-b', patient)).statusCode).toBe(429)
  })
})
