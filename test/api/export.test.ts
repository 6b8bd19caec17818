import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appWith, expectError, type TestApp, type TestUser } from '../helpers/app.js'
import { addLink, makeChannel, makeDomain } from '../helpers/fixtures.js'
import { visit } from '../helpers/visits.js'
import { parseCsv } from '../../src/resources/transfer/csv.js'

const table = (csv: string) => [...parseCsv(csv)].map((r) => r.cells)
const HUMAN = { 'user-agent': 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15', 'accept-language': 'fr-FR', referer: 'https://www.social.example/post/1' }

describe('CSV export', () => {
  let t: TestApp
  let alice: TestUser
  let bob: TestUser
  let noExport: TestUser
  beforeAll(async () => {
    ;[t, alice, bob, noExport] = await appWith({ features: {} }, { features: {} }, { off: ['export'] })
  })
  afterAll(() => t.close())

  it('GET /api/urls/export streams the caller\'s links with every column, formulas neutralised, quotes and newlines escaped', async () => {
    const domain = await makeDomain(t, alice.user.id, 'https://go.alice.example')
    const channel = await makeChannel(t, alice.user.id, 'Press, "quoted"')
    const plain = await addLink(alice, { url: 'https://example.com/a', custom: 'plain-link', title: 'Plain', description: 'line one\nline two' })
    const hostile = await addLink(alice, {
      url: 'https://example.com/b',
      custom: 'hostile-link',
      domain: 'https://go.alice.example',
      title: '=HYPERLINK("http://evil.example","Click")',
      description: '@SUM(1+1)',
      channel: channel.id,
      expiry: '2099-01-01 00:00:00',
    })
    await addLink(bob, { url: 'https://example.com/bob', custom: 'bobs-link' })

    const res = await alice.api.get('/api/urls/export')
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8')
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="kurz-links-\d{4}-\d{2}-\d{2}\.csv"$/)
    expect(res.body).toContain('"\'=HYPERLINK(""http://evil.example"",""Click"")"')
    const rows = table(res.body)
    expect(rows[0]).toEqual(['id', 'alias', 'shorturl', 'longurl', 'title', 'description', 'clicks', 'uniqueClicks', 'date', 'domain', 'campaign', 'channels', 'expiry'])
    expect(rows.slice(1)).toEqual([
      [String(plain), 'plain-link', 'http://kurz.test/plain-link', 'https://example.com/a', 'Plain', 'line one\nline two', '0', '0', expect.stringMatching(/^\d{4}-/), 'http://kurz.test', '', '', ''],
      [String(hostile), 'hostile-link', 'https://go.alice.example/hostile-link', 'https://example.com/b', '\'=HYPERLINK("http://evil.example","Click")', "'@SUM(1+1)", '0', '0', expect.stringMatching(/^\d{4}-/), domain.domain, '', 'Press, "quoted"', '2099-01-01 00:00:00'],
    ])
  })

  it('an exported file imports back into another account unchanged', async () => {
    // every character the export guards, and a value whose own apostrophe comes before one
    await addLink(alice, { url: 'https://example.com/c', custom: 'signs-link', title: "'+already quoted", description: '-2+3' })
    const texts = async (u: TestUser) =>
      Object.fromEntries((await u.api.get('/api/urls?limit=100')).json().data.urls.map((l: { alias: string; title: string; description: string }) => [l.alias, [l.title, l.description]]))
    const before = await texts(alice)
    const exported = (await alice.api.get('/api/urls/export')).body
    expect(exported).toContain(`,"'=HYPERLINK(""http://evil.example"",""Click"")",'@SUM(1+1),`)
    expect(exported).toContain(`,''+already quoted,'-2+3,`)
    // aliases are unique per domain: free them, as a move from one install to another would find them
    for (const row of table(exported).slice(1)) expect((await alice.api.del(`/api/url/${row[0]}/delete`)).statusCode).toBe(200)
    const carol = await t.makeUser({ features: {} })
    await makeDomain(t, carol.user.id, 'https://go.carol.example')
    const res = await carol.api.post('/api/urls/import?format=csv', exported, { 'content-type': 'text/csv' })
    expect(res.json()).toEqual({ error: 0, imported: 3, skipped: 0, errors: [] })
    // the import took off exactly the apostrophes the export put on
    expect(await texts(carol)).toEqual(before)
    expect(before['hostile-link']).toEqual(['=HYPERLINK("http://evil.example","Click")', '@SUM(1+1)'])
    expect(before['signs-link']).toEqual(["'+already quoted", '-2+3'])
    // so exporting again writes the same file, cell for cell (ids and dates aside)
    const again = table((await carol.api.get('/api/urls/export')).body)
    const cells = (rows: string[][]) => rows.slice(1).map((r) => [r[1], r[3], r[4], r[5]])
    expect(cells(again)).toEqual(cells(table(exported)))
  })

  it('GET /api/url/:id/clicks/export streams the click rows without IP or visitor hash, filtered by from/to', async () => {
    const id = await addLink(alice, { url: 'https://example.com/clicked', custom: 'clicked-link' })
    await visit(t, '/clicked-link', { headers: HUMAN, remoteAddress: '81.2.69.142' })
    await visit(t, '/clicked-link', { headers: { 'user-agent': 'Googlebot/2.1 (+http://www.google.com/bot.html)' } })
    await t.app.clicks.flush()
    const res = await alice.api.get(`/api/url/${id}/clicks/export`)
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8')
    const rows = table(res.body)
    expect(rows[0]).toEqual(['date', 'country', 'referrer', 'browser', 'os', 'device', 'language', 'bot'])
    expect(rows.slice(1)).toEqual([
      [expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/), 'GB', 'social.example', 'Safari', 'Mac OS', '', 'fr', '0'],
      [expect.stringMatching(/^\d{4}-/), expect.any(String), '', expect.any(String), expect.any(String), expect.any(String), expect.any(String), '1'],
    ])
    expect(res.body).not.toContain('81.2.69.142')
    const past = table((await alice.api.get(`/api/url/${id}/clicks/export?from=2020-01-01&to=2020-12-31`)).body)
    expect(past).toHaveLength(1)
    const today = new Date().toISOString().slice(0, 10)
    expect(table((await alice.api.get(`/api/url/${id}/clicks/export?from=${today}&to=${today}`)).body)).toHaveLength(3)
  })

  it('needs the plan\'s export feature (403 naming it), and another account\'s link is a 404', async () => {
    expectError(await noExport.api.get('/api/urls/export'), 403, /"export"/)
    const own = await addLink(noExport, { url: 'https://example.com/mine' })
    expectError(await noExport.api.get(`/api/url/${own}/clicks/export`), 403, /"export"/)
    const alices = await addLink(alice, { url: 'https://example.com/private' })
    expectError(await bob.api.get(`/api/url/${alices}/clicks/export`), 404)
    expectError(await bob.api.get('/api/url/99999999999/clicks/export'), 404)
    // the field is named once
    expectError(await alice.api.get(`/api/url/${alices}/clicks/export?from=yesterday`), 400, /^from: must be a date like 2030-12-31\.$/)
    expectError(await alice.api.get(`/api/url/${alices}/clicks/export?to=2030-02-31x`), 400, /^to: must be a date like 2030-12-31\.$/)
    // an upside-down range is refused as the statistics refuse it, not answered with an empty file
    expectError(await alice.api.get(`/api/url/${alices}/clicks/export?from=2026-11-30&to=2026-11-01`), 400, /^to must be the same day as from or later\.$/)
  })

  it('an account without links gets the header line only', async () => {
    const u = await t.makeUser({ features: {} })
    expect((await u.api.get('/api/urls/export')).body).toBe('id,alias,shorturl,longurl,title,description,clicks,uniqueClicks,date,domain,campaign,channels,expiry\r\n')
  })
})
