import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { webhookDeliveries, webhooks } from '../../src/db/schema/index.js'
import { expectError, testApp, testDatabase, TS, type TestApp, type TestUser } from '../helpers/app.js'
import { addLink, countRows } from '../helpers/fixtures.js'
import { visit } from '../helpers/visits.js'
import { deliverUntil, FAST, hookApp, Receiver, verifySignature } from './webhooks-helpers.js'

const HUMAN = { 'user-agent': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36', 'accept-language': 'de-DE,de;q=0.9', referer: 'https://news.example.org/item?id=1' }
const BOT = { 'user-agent': 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' }

async function addHook(u: TestUser, url: string, events: string[]) {
  const res = await u.api.post('/api/webhook/add', { url, events, description: 'test' })
  expect(res.statusCode).toBe(200)
  // the webhook object itself, as GET /api/webhook/:id shows it
  expect(res.json()).toEqual({ error: 0, id: expect.any(Number), url, events: [...new Set(events)], description: 'test', secret: expect.stringMatching(/^\S{32,}$/), enabled: true, disabledReason: null, clickEventsSkipped: 0, clickEventsSkippedAt: null, date: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/) })
  return res.json() as { error: 0; id: number; secret: string }
}

async function aliasOf(u: TestUser, id: number): Promise<string> {
  return (await u.api.get(`/api/url/${id}?full=1`)).json().details.alias
}

describe('webhooks: routes', () => {
  let db: Awaited<ReturnType<typeof testDatabase>>
  let t: TestApp
  let alice: TestUser
  let bob: TestUser
  beforeAll(async () => {
    db = await testDatabase()
    t = await hookApp(db.handle)
    alice = await t.makeUser()
    bob = await t.makeUser()
  })
  afterAll(async () => {
    await t.close()
    await db.drop()
  })

  it('adds, lists, shows, updates and deletes a webhook', async () => {
    const { id, secret } = await addHook(alice, 'https://hooks.example.com/kurz', ['link.created', 'link.clicked', 'link.created'])
    expect(secret).toMatch(/^whsec_[\w-]{32}$/)
    const one = await alice.api.get(`/api/webhook/${id}`)
    expect(one.json()).toEqual({
      error: 0,
      data: { id, url: 'https://hooks.example.com/kurz', events: ['link.created', 'link.clicked'], description: 'test', secret, enabled: true, disabledReason: null, clickEventsSkipped: 0, clickEventsSkippedAt: null, date: expect.stringMatching(TS) },
    })
    const list = await alice.api.get('/api/webhooks')
    expect(list.json()).toEqual({ error: '0', data: { result: 1, perpage: 15, currentpage: 1, nextpage: 1, maxpage: 1, webhooks: [one.json().data] } })

    const upd = await alice.api.put(`/api/webhook/${id}/update`, { events: ['qr.scanned'], enabled: false, rotateSecret: true, description: '' })
    expect(upd.json()).toEqual({ error: 0, message: 'Webhook has been updated successfully.' })
    const after = (await alice.api.get(`/api/webhook/${id}`)).json().data
    expect(after).toMatchObject({ events: ['qr.scanned'], enabled: false, description: '' })
    expect(after.secret).not.toBe(secret)

    expect((await alice.api.del(`/api/webhook/${id}/delete`)).json()).toEqual({ error: 0, message: 'Webhook has been deleted successfully.' })
    expectError(await alice.api.get(`/api/webhook/${id}`), 404, /Webhook not found/)
  })

  it("another account's webhook and deliveries are 404, and stay unchanged", async () => {
    const { id } = await addHook(alice, 'https://hooks.example.com/a', ['link.created'])
    expectError(await bob.api.get(`/api/webhook/${id}`), 404)
    expectError(await bob.api.put(`/api/webhook/${id}/update`, { url: 'https://evil.example.com/' }), 404)
    expectError(await bob.api.del(`/api/webhook/${id}/delete`), 404)
    expectError(await bob.api.get(`/api/webhook/${id}/deliveries`), 404)
    expectError(await bob.api.post(`/api/webhook/${id}/deliveries/1/retry`), 404)
    expect((await bob.api.get('/api/webhooks')).json().data.result).toBe(0)
    expect((await alice.api.get(`/api/webhook/${id}`)).json().data.url).toBe('https://hooks.example.com/a')
    expectError(await alice.api.post(`/api/webhook/${id}/deliveries/999999/retry`), 404, /Delivery not found/)
  })

  it.each([
    ['no url', { events: ['link.created'] }, /url/],
    ['a javascript: url', { url: 'javascript:alert(1)', events: ['link.created'] }, /^url/],
    ['an ftp url', { url: 'ftp://files.example.com/', events: ['link.created'] }, /^url/],
    ['not a URL', { url: 'hooks example', events: ['link.created'] }, /^url/],
    ['credentials in the url', { url: 'https://user:pw@hooks.example.com/', events: ['link.created'] }, /^url/],
    // the field is named once, by the shared formatter
    ['an unknown event', { url: 'https://hooks.example.com/', events: ['link.created', 'link.exploded'] }, /^events: "link\.exploded" is not an event; use link\.created, /],
    ['no events', { url: 'https://hooks.example.com/', events: [] }, /^events: must name at least one event\.$/],
    ['events as a string', { url: 'https://hooks.example.com/', events: 'link.created' }, /^events: must be a list of event names: /],
    ['a number as url', { url: 42, events: ['link.created'] }, /^url: must be a string\.$/],
  ])('refuses %s with a 400 naming the field, writing nothing', async (_name, body, message) => {
    const before = await countRows(t, webhooks)
    expectError(await alice.api.post('/api/webhook/add', body), 400, message)
    expect(await countRows(t, webhooks)).toBe(before)
  })

  it('refuses an update with an unknown event or a bad url', async () => {
    const { id } = await addHook(alice, 'https://hooks.example.com/b', ['link.created'])
    expectError(await alice.api.put(`/api/webhook/${id}/update`, { events: ['nope'] }), 400, /^events: "nope" is not an event;/)
    expectError(await alice.api.put(`/api/webhook/${id}/update`, { url: 'data:text/html,hi' }), 400, /^url/)
  })
})

describe('webhooks: private receivers need ALLOW_PRIVATE_TARGETS', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await testApp()
  })
  afterAll(() => t.close())

  it.each(['http://127.0.0.1:8080/hook', 'http://localhost/hook', 'http://10.1.2.3/hook', 'http://[::1]/hook', 'http://169.254.169.254/latest', 'http://0x7f000001/'])(
    'refuses %s with a 400 naming url',
    async (url) => {
      const u = await t.makeUser()
      expectError(await u.api.post('/api/webhook/add', { url, events: ['link.created'] }), 400, /^url points at an? .* address, which is not allowed/)
    },
  )

  it('says each refusal as a sentence: "an" before a vowel, the field and the scheme apart', async () => {
    const u = await t.makeUser()
    expectError(await u.api.post('/api/webhook/add', { url: 'http://[::ffff:7f00:1]/', events: ['link.created'] }), 400, /^url points at an IPv4-mapped loopback address, which is not allowed\.$/)
    expectError(await u.api.post('/api/webhook/add', { url: 'http://0.0.0.0/', events: ['link.created'] }), 400, /^url points at an unspecified .*address, which is not allowed\.$/)
    expectError(await u.api.post('/api/webhook/add', { url: 'javascript:alert(1)', events: ['link.created'] }), 400, /^url is refused: the javascript: scheme is not allowed\.$/)
  })
})

describe('webhooks: deliveries', () => {
  let db: Awaited<ReturnType<typeof testDatabase>>
  let t: TestApp
  let rx: Receiver
  beforeAll(async () => {
    db = await testDatabase()
    t = await hookApp(db.handle)
    rx = await new Receiver().start()
  })
  afterAll(async () => {
    await t.close()
    await rx.close()
    await db.drop()
  })

  it('a human click arrives once, signed, with country, device, browser, OS, referrer host and language but no IP; a bot sends nothing', async () => {
    const u = await t.makeUser()
    const { secret } = await addHook(u, rx.url, ['link.clicked'])
    const linkId = await addLink(u, { url: 'https://example.com/page' })
    const alias = await aliasOf(u, linkId)
    await visit(t, `/${alias}`, { headers: BOT, remoteAddress: '81.2.69.142' })
    await visit(t, `/${alias}`, { headers: HUMAN, remoteAddress: '81.2.69.142' })
    await deliverUntil(t, () => rx.of('link.clicked').length >= 1)
    await t.app.webhooks.drain()
    const mine = rx.of('link.clicked').filter((r) => r.body.data.link.id === linkId)
    expect(mine).toHaveLength(1)
    const [r] = mine
    expect(r.headers['content-type']).toBe('application/json')
    expect(r.headers['kurz-event']).toBe('link.clicked')
    expect(r.headers['kurz-delivery']).toBe(String(r.body.id))
    expect(verifySignature(secret, String(r.headers['kurz-signature']), r.raw)).toBe(true)
    expect(verifySignature('whsec_wrong', String(r.headers['kurz-signature']), r.raw)).toBe(false)
    expect(r.body).toEqual({
      id: expect.any(Number),
      event: 'link.clicked',
      date: expect.stringMatching(TS),
      data: {
        link: { id: linkId, alias, shorturl: `http://kurz.test/${alias}` },
        click: { date: expect.stringMatching(TS), country: 'GB', device: null, browser: 'Chrome', os: 'Windows', referrer: 'news.example.org', language: 'de', },
      },
    })
    expect(r.raw).not.toContain('81.2.69.142')
    expect(r.raw).not.toMatch(/Mozilla|visitor/i)
    const deliveries = (await u.api.get(`/api/webhook/${(await u.api.get('/api/webhooks')).json().data.webhooks[0].id}/deliveries`)).json()
    expect(deliveries.data.deliveries).toEqual([
      { id: r.body.id, event: 'link.clicked', status: 'delivered', attempts: 1, responseStatus: 200, error: null, date: expect.stringMatching(TS), nextAttempt: null },
    ])
  })

  it('link.created, link.updated, link.deleted and qr.created each arrive once, with the link as a list shows it', async () => {
    const u = await t.makeUser()
    await addHook(u, rx.url, ['link.created', 'link.updated', 'link.deleted', 'qr.created'])
    const linkId = await addLink(u, { url: 'https://example.com/a', custom: 'hooked-alias', title: 'First' })
    expect((await u.api.put(`/api/url/${linkId}/update`, { url: 'https://example.com/b' })).statusCode).toBe(200)
    expect((await u.api.del(`/api/url/${linkId}/delete`)).statusCode).toBe(200)
    const qr = await u.api.post('/api/qr/add', { type: 'text', data: 'hello', name: 'Hello QR' })
    expect(qr.statusCode).toBe(200)
    const mine = (r: { body: { data: Record<string, any> } }) => r.body.data.id === linkId || r.body.data.id === qr.json().id
    await deliverUntil(t, () => rx.got.filter(mine).length >= 4)
    await t.app.webhooks.drain()
    const got = rx.got.filter(mine).sort((x, y) => x.body.id - y.body.id).map((r) => [r.body.event, r.body.data])
    expect(got).toEqual([
      ['link.created', { id: linkId, alias: 'hooked-alias', shorturl: 'http://kurz.test/hooked-alias', longurl: 'https://example.com/a', title: 'First', description: '', date: expect.stringMatching(TS) }],
      ['link.updated', { id: linkId, alias: 'hooked-alias', shorturl: 'http://kurz.test/hooked-alias', longurl: 'https://example.com/b', title: 'First', description: '', date: expect.stringMatching(TS) }],
      ['link.deleted', { id: linkId, alias: 'hooked-alias', shorturl: 'http://kurz.test/hooked-alias', longurl: 'https://example.com/b' }],
      ['qr.created', { id: qr.json().id, link: qr.json().link, scans: 0, name: 'Hello QR', date: expect.stringMatching(TS), type: 'text' }],
    ])
  })

  it('a create refused by the link rules sends nothing', async () => {
    const u = await t.makeUser()
    await addHook(u, rx.url, ['link.created'])
    const before = await countRows(t, webhookDeliveries)
    expectError(await u.api.post('/api/url/add', { url: 'javascript:alert(1)' }), 400)
    expect(await countRows(t, webhookDeliveries)).toBe(before)
  })

  it('a receiver answering 500 gets retries, then the delivery; the attempts are kept', async () => {
    const u = await t.makeUser()
    const { id } = await addHook(u, rx.url, ['link.clicked'])
    const linkId = await addLink(u, { url: 'https://example.com/retry' })
    let refusals = 0
    rx.answer = (r) => (r.body.data.link?.id === linkId && refusals++ < 2 ? 500 : 200)
    await visit(t, `/${await aliasOf(u, linkId)}`, { headers: HUMAN })
    await deliverUntil(t, () => rx.got.some((r) => r.body.data.link?.id === linkId))
    rx.answer = () => 200
    expect(rx.got.filter((r) => r.body.data.link?.id === linkId)).toHaveLength(1)
    const [d] = (await u.api.get(`/api/webhook/${id}/deliveries`)).json().data.deliveries
    expect(d).toMatchObject({ status: 'delivered', attempts: 3, responseStatus: 200, error: null })
  })

  it('after every retry fails the delivery is failed, and a manual retry sends it once more', async () => {
    const u = await t.makeUser()
    const { id } = await addHook(u, rx.url, ['link.clicked'])
    const linkId = await addLink(u, { url: 'https://example.com/fails' })
    rx.answer = (r) => (r.body.data.link?.id === linkId ? 503 : 200)
    await visit(t, `/${await aliasOf(u, linkId)}`, { headers: HUMAN })
    const failed = async () => (await u.api.get(`/api/webhook/${id}/deliveries`)).json().data.deliveries[0]
    for (let i = 0; i < 200 && (await failed())?.status !== 'failed'; i++) await deliverUntil(t, () => true)
    const d = await failed()
    expect(d).toMatchObject({ status: 'failed', attempts: FAST.backoffMs!.length + 1, responseStatus: 503, nextAttempt: null })
    expect(d.error).toMatch(/answered with HTTP status 503/)

    rx.answer = () => 200
    expect((await u.api.post(`/api/webhook/${id}/deliveries/${d.id}/retry`)).json()).toEqual({ error: 0, message: 'The delivery will be attempted again now.' })
    await deliverUntil(t, () => rx.got.some((r) => r.body.id === d.id))
    expect(await failed()).toMatchObject({ id: d.id, status: 'delivered', attempts: FAST.backoffMs!.length + 2 })
  })

  it('a retry on a disabled webhook is refused and changes nothing; enabled again, a delivered one is sent again and stays delivered if that fails', async () => {
    const u = await t.makeUser()
    const { id } = await addHook(u, rx.url, ['link.created'])
    const linkId = await addLink(u, { url: 'https://example.com/resend' })
    const mine = () => rx.got.filter((r) => r.body.event === 'link.created' && r.body.data.id === linkId)
    await deliverUntil(t, () => mine().length === 1)
    const deliveries = async () => (await u.api.get(`/api/webhook/${id}/deliveries`)).json().data.deliveries
    const [d] = await deliveries()
    expect(d).toMatchObject({ status: 'delivered', attempts: 1, responseStatus: 200, error: null, nextAttempt: null })

    expect((await u.api.put(`/api/webhook/${id}/update`, { enabled: false })).statusCode).toBe(200)
    const [row] = await t.app.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, d.id))
    expectError(await u.api.post(`/api/webhook/${id}/deliveries/${d.id}/retry`), 409, new RegExp(`^This webhook is disabled: enable it \\(PUT /api/webhook/${id}/update with enabled: true\\), then retry the delivery\\.$`))
    // a delivery that is not this webhook's is not found, disabled or not: the 409's advice could never work for it
    expectError(await u.api.post(`/api/webhook/${id}/deliveries/999999/retry`), 404, /^Delivery not found\.$/)
    await deliverUntil(t, () => true)
    expect(await deliveries()).toEqual([d])
    expect((await t.app.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, d.id)))[0]).toEqual(row)
    expect(mine()).toHaveLength(1)

    // enabled again: a delivered delivery may be sent once more; a failed resend does not undo the earlier success
    expect((await u.api.put(`/api/webhook/${id}/update`, { enabled: true })).statusCode).toBe(200)
    rx.answer = (r) => (r.body.id === d.id ? 503 : 200)
    expect((await u.api.post(`/api/webhook/${id}/deliveries/${d.id}/retry`)).json()).toEqual({ error: 0, message: 'The delivery will be attempted again now.' })
    for (let i = 0; i < 100 && (await deliveries())[0].attempts < 2; i++) await deliverUntil(t, () => true)
    expect((await deliveries())[0]).toMatchObject({ id: d.id, status: 'delivered', attempts: 2, responseStatus: 503, nextAttempt: null, error: expect.stringMatching(/503/) })
    rx.answer = () => 200
    expect((await u.api.post(`/api/webhook/${id}/deliveries/${d.id}/retry`)).statusCode).toBe(200)
    await deliverUntil(t, () => mine().length === 2)
    expect((await deliveries())[0]).toMatchObject({ id: d.id, status: 'delivered', attempts: 3, responseStatus: 200, error: null })
  })

  it('a redirect from the receiver is a failure, never followed', async () => {
    const u = await t.makeUser()
    const { id } = await addHook(u, `${rx.url}?redirect`, ['link.clicked'])
    const linkId = await addLink(u, { url: 'https://example.com/redirected' })
    rx.answer = (r) => (r.body.data.link?.id === linkId ? 302 : 200)
    await visit(t, `/${await aliasOf(u, linkId)}`, { headers: HUMAN })
    const first = async () => (await u.api.get(`/api/webhook/${id}/deliveries`)).json().data.deliveries[0]
    for (let i = 0; i < 100 && !((await first())?.attempts >= 1); i++) await deliverUntil(t, () => true)
    rx.answer = () => 200
    expect(await first()).toMatchObject({ responseStatus: 302, error: expect.stringMatching(/redirect \(302\), which is not followed/) })
  })
})

describe('webhooks: restarts, several instances, disabling', () => {
  let db: Awaited<ReturnType<typeof testDatabase>>
  let rx: Receiver
  beforeAll(async () => {
    db = await testDatabase()
    rx = await new Receiver().start()
  })
  afterAll(async () => {
    await rx.close()
    await db.drop()
  })

  it('a restart in between loses no pending delivery', async () => {
    // a retry an hour away: the first instance stops with the delivery still pending
    const first = await hookApp(db.handle, { ...FAST, backoffMs: [3_600_000] })
    const u = await first.makeUser()
    const { id } = await addHook(u, rx.url, ['link.clicked'])
    const linkId = await addLink(u, { url: 'https://example.com/restart' })
    rx.answer = () => 500
    await visit(first, `/${await aliasOf(u, linkId)}`, { headers: HUMAN })
    await first.app.clicks.flush()
    await first.app.webhooks.drain()
    await first.close()
    const [pending] = await db.handle.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, id))
    rx.answer = () => 200
    expect(pending).toMatchObject({ status: 'pending', attempts: 1 })
    // the hour passes while no instance runs
    await db.handle.db.update(webhookDeliveries).set({ nextAttemptAt: new Date() }).where(eq(webhookDeliveries.id, pending.id))

    const second = await hookApp(db.handle)
    try {
      await deliverUntil(second, () => rx.got.some((r) => r.body.id === pending.id))
      expect(rx.got.filter((r) => r.body.id === pending.id)).toHaveLength(1)
    } finally {
      await second.close()
    }
  })

  it('two instances on one database never deliver the same event twice', async () => {
    const url = process.env.TEST_DATABASE_URL ? (db as { url?: string }).url : undefined
    // on Postgres each instance gets its own pool; PGlite has one connection, which both share
    const { createDb } = await import('../../src/db/client.js')
    const otherHandle = url ? await createDb({ kind: 'pg', url }) : db.handle
    const a = await hookApp(db.handle, { ...FAST, concurrency: 4 })
    const b = await hookApp(otherHandle, { ...FAST, concurrency: 4 })
    try {
      const u = await a.makeUser()
      await addHook(u, rx.url, ['link.clicked'])
      const linkId = await addLink(u, { url: 'https://example.com/many' })
      const alias = await aliasOf(u, linkId)
      for (let i = 0; i < 60; i++) await visit(a, `/${alias}`, { headers: HUMAN, remoteAddress: `81.2.69.${i}` })
      await a.app.clicks.flush()
      await Promise.all([a.app.webhooks.drain(), b.app.webhooks.drain(), a.app.webhooks.drain(), b.app.webhooks.drain()])
      await deliverUntil(a, () => rx.got.filter((r) => r.body.data.link?.id === linkId).length >= 60)
      const ids = rx.got.filter((r) => r.body.data.link?.id === linkId).map((r) => r.body.id)
      expect(ids).toHaveLength(60)
      expect(new Set(ids).size).toBe(60)
    } finally {
      await a.close()
      await b.close()
      if (otherHandle !== db.handle) await otherHandle.close()
    }
  })

  it('a webhook failing for the whole disabling period is switched off, says why, and sends nothing more', async () => {
    const t = await hookApp(db.handle, { ...FAST, backoffMs: [5, 5, 5, 5, 5, 5], disableAfterMs: 1 })
    try {
      const u = await t.makeUser()
      const { id } = await addHook(u, rx.url, ['link.clicked'])
      const linkId = await addLink(u, { url: 'https://example.com/dead' })
      rx.answer = (r) => (r.body.data.link?.id === linkId ? 500 : 200)
      await visit(t, `/${await aliasOf(u, linkId)}`, { headers: HUMAN })
      const hook = async () => (await u.api.get(`/api/webhook/${id}`)).json().data
      for (let i = 0; i < 200 && (await hook()).enabled; i++) await deliverUntil(t, () => true)
      const w = await hook()
      expect(w.enabled).toBe(false)
      expect(w.disabledReason).toMatch(/^Disabled on .* every delivery failed .* in a row/)
      const [d] = (await u.api.get(`/api/webhook/${id}/deliveries`)).json().data.deliveries
      expect(d.status).toBe('failed')

      const before = await countRows(t, webhookDeliveries)
      await visit(t, `/${await aliasOf(u, linkId)}`, { headers: HUMAN, remoteAddress: '81.2.69.200' })
      await t.app.clicks.flush()
      expect(await countRows(t, webhookDeliveries)).toBe(before)

      await u.api.put(`/api/webhook/${id}/update`, { enabled: true })
      expect(await hook()).toMatchObject({ enabled: true, disabledReason: null })
    } finally {
      rx.answer = () => 200
      await t.close()
    }
  })
})
