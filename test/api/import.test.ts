import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { links } from '../../src/db/schema/index.js'
import { appWith, expectError, type TestApp, type TestUser } from '../helpers/app.js'
import { addLink, countRows, makeDomain } from '../helpers/fixtures.js'

const fixture = (name: string) => readFileSync(resolve(import.meta.dirname, '../fixtures/import', name), 'utf8')

function post(u: TestUser, format: string | null, body: string, type = format?.endsWith('json') ? 'application/json' : 'text/csv') {
  return u.api.post(`/api/urls/import${format ? `?format=${format.replace(/-json$/, '')}` : ''}`, body, { 'content-type': type })
}

/** The links of a user, keyed by alias, with what the import kept. */
async function linksOf(t: TestApp, userId: number) {
  const rows = await t.app.db.select().from(links).where(eq(links.userId, userId))
  return Object.fromEntries(rows.map((l) => [l.alias, { url: l.url, title: l.title, description: l.description, clicks: l.clicks, date: l.createdAt.toISOString(), domainId: l.domainId }]))
}

describe('POST /api/urls/import', () => {
  let t: TestApp
  let alice: TestUser
  beforeAll(async () => {
    ;[t, alice] = await appWith({})
  })
  afterAll(() => t.close())

  it('imports a plain CSV (Kurz export columns or url/alias/title) with aliases, clicks and dates', async () => {
    const u = await t.makeUser()
    const res = await post(u, 'csv', fixture('generic.csv'))
    expect(res.json()).toEqual({ error: 0, imported: 3, skipped: 0, errors: [] })
    const got = await linksOf(t, u.user.id)
    expect(got['docs-home']).toMatchObject({ url: 'https://example.com/docs', title: 'Documentation', description: 'The manual, all of it', clicks: 42, date: '2024-03-01T10:00:00.000Z' })
    expect(got['pricing-page']).toMatchObject({ title: 'Pricing "2024"', clicks: 0 })
    const generated = Object.entries(got).find(([alias]) => !['docs-home', 'pricing-page'].includes(alias))!
    expect(generated[1]).toMatchObject({ url: 'https://example.com/blog?utm_source=kurz&x=1', clicks: 7, date: '2024-03-02T08:30:00.000Z' })
    // an imported link is an ordinary link: the list shows it with its kept clicks
    const list = (await u.api.get('/api/urls?limit=10')).json().data.urls
    expect(list.find((l: { alias: string }) => l.alias === 'docs-home')).toMatchObject({ clicks: 42, date: '2024-03-01 10:00:00' })
  })

  it.each([
    ['bitly', 'bitly.csv', { '3xYzAbC': { url: 'https://shop.example.com/spring?utm_campaign=sale', title: 'Spring sale', clicks: 1532, date: '2023-11-05T14:02:11.000Z' }, holidays: { url: 'https://cards.example.com/2023', title: 'Holiday card', clicks: 87 } }],
    ['bitly-json', 'bitly.json', { '3qWeRty': { url: 'https://news.example.com/story/1', title: 'Story one', date: '2024-01-15T12:00:00.000Z' }, 'launch-day': { url: 'https://news.example.com/launch', title: 'Launch' } }],
    ['yourls', 'yourls.csv', { ozh: { url: 'http://ozh.org/', title: "Ozh's blog", clicks: 311, date: '2009-09-21T08:01:29.000Z' }, 'yourls-site': { url: 'https://yourls.org/', clicks: 95 } }],
    ['yourls-json', 'yourls.json', { github: { url: 'https://github.com/YOURLS/YOURLS', title: 'YOURLS on GitHub', clicks: 58, date: '2015-06-01T12:00:00.000Z' }, wiki: { clicks: 3 } }],
    ['shlink', 'shlink.csv', { promo22: { url: 'https://store.example.com/promo?ref=shlink', title: 'Promo 2022', clicks: 240, date: '2022-04-10T10:20:30.000Z' }, handbook: { url: 'https://docs.example.com/', clicks: 0 } }],
    ['shlink-json', 'shlink.json', { 'api-ref': { url: 'https://docs.example.com/api', title: 'API reference', clicks: 12, date: '2023-01-02T03:04:05.000Z' } }],
    ['kutt-json', 'kutt.json', { talk: { url: 'https://slides.example.com/talk', description: 'Conference talk slides', clicks: 77, date: '2021-09-14T16:20:00.000Z' }, repo: { url: 'https://git.example.com/repo', clicks: 5 } }],
  ])('imports %s (%s) keeping aliases, titles, clicks and dates', async (format, file, expected) => {
    const u = await t.makeUser()
    const res = await post(u, format, fixture(file))
    expect(res.json()).toEqual({ error: 0, imported: Object.keys(expected).length, skipped: 0, errors: [] })
    const got = await linksOf(t, u.user.id)
    for (const [alias, want] of Object.entries(expected)) expect(got[alias]).toMatchObject(want)
  })

  it('puts a link on a branded domain the account owns when the source names that host', async () => {
    const u = await t.makeUser()
    const domain = await makeDomain(t, u.user.id, 'https://go.brand.example')
    const csv = 'Title,Link,Custom Link,Destination URL\nBranded,https://bit.ly/4aaaaaa,https://go.brand.example/branded-one,https://example.com/1\nElsewhere,https://bit.ly/4bbbbbb,https://go.other.example/branded-two,https://example.com/2\n'
    expect((await post(u, 'bitly', csv)).json()).toEqual({ error: 0, imported: 2, skipped: 0, errors: [] })
    const got = await linksOf(t, u.user.id)
    expect(got['branded-one'].domainId).toBe(domain.id)
    // a host the account does not own: the link keeps its alias on the default domain
    expect(got['branded-two'].domainId).toBeNull()
  })

  it('hostile rows: bad URLs and over-long titles are reported with their line, taken aliases skipped, the rest imported as text', async () => {
    const u = await t.makeUser()
    await addLink(u, { url: 'https://example.com/existing', custom: 'already-mine' })
    const long = 'x'.repeat(10_000)
    const csv = `${fixture('hostile.csv')}https://example.com/long,long-title,${long},\nhttps://example.com/mine,already-mine,Again,\n`
    const before = await countRows(t, links)
    const res = await post(u, 'csv', csv)
    const body = res.json()
    expect(body).toMatchObject({ error: 0, imported: 4, skipped: 2 })
    expect(body.errors).toEqual([
      { line: 2, message: expect.stringMatching(/^url: the javascript: scheme is not allowed/) },
      { line: 7, message: expect.stringMatching(/^custom: "taken-alias" is already taken.*Skipped\.$/) },
      { line: 8, message: expect.stringMatching(/^url: /) },
      { line: 10, message: 'title: must be at most 255 characters.' },
      { line: 11, message: expect.stringMatching(/^custom: "already-mine" is already taken.*Skipped\.$/) },
    ])
    expect(await countRows(t, links)).toBe(before + 4)
    const got = await linksOf(t, u.user.id)
    expect(got['formula-cell']).toMatchObject({ title: '=HYPERLINK("http://evil.example","Click")', description: '@SUM(A1:A2)' })
    expect(got['quoted-cell']).toMatchObject({ title: 'She said "hi"', description: 'line one\nline two, with a comma' })
    expect(got['taken-alias']).toMatchObject({ url: 'https://example.com/taken', title: 'First' })
    expect(got['already-mine']).toMatchObject({ url: 'https://example.com/existing' })
    expect(got['evil-js']).toBeUndefined()
  })

  it('a list of bare URLs without a header imports too', async () => {
    const u = await t.makeUser()
    const res = await post(u, null, 'https://example.com/one\r\nhttps://example.com/two,two-alias\r\n')
    expect(res.json()).toEqual({ error: 0, imported: 2, skipped: 0, errors: [] })
  })

  it('refuses an unknown format, a wrong content type, an empty or foreign file, and a file over 20 MiB', async () => {
    expectError(await alice.api.post('/api/urls/import?format=tinyurl', 'url\nhttps://example.com/', { 'content-type': 'text/csv' }), 400, /^format: must be one of csv, bitly, yourls, shlink, kutt/)
    // the route names the types it takes, not the application/json of every other route
    expectError(
      await alice.api.post('/api/urls/import', 'url=https://example.com', { 'content-type': 'application/x-www-form-urlencoded' }),
      415,
      /^Unsupported Content-Type "application\/x-www-form-urlencoded": send the file as text\/csv or application\/json\.$/,
    )
    expectError(await alice.api.post('/api/urls/import', '<links/>', { 'content-type': 'application/xml' }), 415, /^Unsupported Content-Type "application\/xml": send the file as text\/csv or application\/json\.$/)
    expectError(await alice.api.post('/api/urls/import', '"https://example.com/"', { 'content-type': 'text/plain' }), 415, /^Unsupported Content-Type "text\/plain": send the file as text\/csv or application\/json\.$/)
    // a CSV file sent as text/plain: the wrong type, not bad JSON
    expectError(await alice.api.post('/api/urls/import', 'url\nhttps://example.com/plain\n', { 'content-type': 'text/plain' }), 415, /^Unsupported Content-Type "text\/plain": send the file as text\/csv or application\/json\.$/)
    expectError(await alice.api.post('/api/urls/import', '{not json', { 'content-type': 'application/json' }), 400, /^Request body is not valid JSON\.$/)
    expectError(await alice.api.post('/api/urls/import', '', { 'content-type': 'text/csv' }), 400, /empty/)
    const foreign = await alice.api.post('/api/urls/import?format=kutt', '{"hello":"world"}', { 'content-type': 'application/json' })
    expect(foreign.json()).toEqual({ error: 0, imported: 0, skipped: 0, errors: [{ line: 1, message: 'This JSON is not a kutt export: expected a list of links.' }] })
    // a JSON string is not CSV text, even when it holds some
    const quoted = await alice.api.post('/api/urls/import', JSON.stringify('url\nhttps://example.com/quoted\n'), { 'content-type': 'application/json' })
    expect(quoted.json()).toEqual({ error: 0, imported: 0, skipped: 0, errors: [{ line: 1, message: 'This JSON is a string, not a list of links: send CSV text as text/csv.' }] })
    // a file of another format, a header with nothing below it, an empty list: said once, nothing written
    const none = async (format: string, body: string, message: string) => {
      const res = await post(alice, format, body)
      expect(res.json()).toEqual({ error: 0, imported: 0, skipped: 0, errors: [{ line: 1, message }] })
    }
    await none('shlink', 'Destination URL,Title\nhttps://example.com/a,A\n', 'This is not a shlink export: its header line has no longurl column.')
    await none('kutt', '\u0089PNG\r\n\u001a\n\u0000\u0000garbage,more\n', 'This is not a kutt export: its header line has no target column.')
    await none('csv', 'url,alias\n', 'The file has a header line but no links below it.')
    await none('bitly-json', '[]', 'The file holds no links.')
    const huge = `url\n${'https://example.com/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n'.repeat(420_000)}`
    // the limit named is this route's, not the 1 MiB of every other body
    expectError(await alice.api.post('/api/urls/import', huge, { 'content-type': 'text/csv' }), 413, /^Request body is too large: the limit for an import is 20 MiB; /)
    expectError(await alice.api.post('/api/urls/import?format=kutt', `[${'"x",'.repeat(5_300_000)}"x"]`, { 'content-type': 'application/json' }), 413, /20 MiB/)
    // every other route keeps its own
    expectError(await alice.api.post('/api/url/add', { url: 'https://example.com/', title: 'x'.repeat(1_100_000) }), 413, /the limit is 1 MiB\.$/)
  })

  it('lists the refused rows by line, whichever rule refused them', async () => {
    const u = await t.makeUser()
    const kutt = [
      { target: 'https://example.com/k1', address: 'kutt-first' },
      { target: 'javascript:alert(1)', address: 'kutt-second' },
      'not a link',
      { target: 'https://example.com/k4', address: 'kutt-fourth' },
      42,
    ]
    const res = await post(u, 'kutt-json', JSON.stringify(kutt))
    expect(res.json()).toEqual({
      error: 0,
      imported: 2,
      skipped: 0,
      errors: [
        { line: 2, message: expect.stringMatching(/^url: the javascript: scheme is not allowed/) },
        { line: 3, message: 'This entry is not a link object.' },
        { line: 5, message: 'This entry is not a link object.' },
      ],
    })
  })

  it('a file over 1 MiB but under 20 MiB is taken', { timeout: 120_000 }, async () => {
    const u = await t.makeUser({ maxLinks: 0 })
    const rows = Array.from({ length: 600 }, (_, i) => `https://example.com/page/${i}?${'q'.repeat(1_800)},bulk-${i}`).join('\n')
    const body = `url,alias\n${rows}\n`
    expect(body.length).toBeGreaterThan(1024 * 1024)
    const res = await post(u, 'csv', body)
    expect(res.json()).toEqual({ error: 0, imported: 600, skipped: 0, errors: [] })
  })
})
