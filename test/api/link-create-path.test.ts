import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eq, sql } from 'drizzle-orm'
import type pg from 'pg'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app.js'
import { linkAliases, links, webhookDeliveries, webhooks } from '../../src/db/schema/index.js'
import { hotName } from '../../src/db/hot-statements.js'
import { guardedInsert } from '../../src/resources/links/insert.js'
import { appWith, testApp, testConfig, type TestApp, type TestUser } from '../helpers/app.js'
import { addLink, countRows } from '../helpers/fixtures.js'
import { redisUp, TEST_REDIS_URL } from '../helpers/redis.js'
import { eventually } from '../helpers/wait.js'

/*
 * The plain create (issue 14): one INSERT whose guards hold the alias-history, blocklist and
 * webhook checks, and an instance's copy of the webhook subscriptions deciding whether a create
 * needs a transaction. A copy that is behind costs time, never an event.
 */

const redis = await redisUp()

const FORM = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }

const linkCreatedOf = (t: TestApp, linkId: number) =>
  t.app.db
    .select({ data: webhookDeliveries.data })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.event, 'link.created'))
    .then((rows) => rows.filter((r) => JSON.parse(r.data).id === linkId))

/** A webhook written straight into the table: no instance hears of it. */
const hookBehindTheBack = (t: TestApp, userId: number) =>
  t.app.db.insert(webhooks).values({ userId, url: 'https://hooks.example.com/k', events: ['link.created'], secret: 'whsec_test' }).returning({ id: webhooks.id })

describe('a plain create', () => {
  let t: TestApp
  let pro: TestUser

  beforeAll(async () => {
    ;[t, pro] = await appWith({ plan: 'pro' })
  })
  afterAll(() => t?.close())

  it('answers with the link as a read of it answers (the row is not read back)', async () => {
    const body = new URLSearchParams({
      url: 'https://example.com/everything?x=1',
      title: 'A title',
      description: 'Words',
      disabled: '1',
      privacy: '2',
      privacy_password: 'stats-secret',
      password: 'link-secret',
      expiration_url: 'https://expired.example/',
      expiration_date: '2099-12-31',
      expiration_time: '23:45',
      expiration_clicks: '7',
    }).toString()
    const made = await pro.api.post('/api/v1/links', body, FORM)
    expect(made.statusCode, made.body).toBe(201)
    const read = await pro.api.get(`/api/v1/links/${made.json().data.id}`)
    expect(read.json()).toEqual({ ...made.json(), status: 200 })
  })

  it('queues link.created for a webhook its instance has not heard of', async () => {
    expect(t.app.webhookSubscriptions.wants(pro.user.id, 'link.created')).toBe(false)
    await hookBehindTheBack(t, pro.user.id)
    const id = await addLink(pro, { url: 'https://example.com/announced' })
    expect(await linkCreatedOf(t, id)).toHaveLength(1)
    // the refusal told the instance its copy was behind: the next create goes straight to the transaction
    await eventually(() => t.app.webhookSubscriptions.wants(pro.user.id, 'link.created'), 'the copy was reread')
    expect(await linkCreatedOf(t, await addLink(pro, { url: 'https://example.com/announced-too' }))).toHaveLength(1)
  })

  it('never takes a random alias an earlier alias of a link holds', async () => {
    const owner = await addLink(pro, { url: 'https://example.com/owner' })
    await t.app.db.insert(linkAliases).values({ linkId: owner, domainId: null, alias: 'held42' })
    const values = { userId: pro.user.id, url: 'https://example.com/r', customAlias: false }
    const guards = { history: true, blocklist: false, webhook: false }
    const before = await countRows(t, links)
    expect(await guardedInsert(t.app.db, values, 'held42', [], guards)).toBeUndefined()
    expect(await countRows(t, links)).toBe(before)
    // the guard is what refused: without it the same insert goes through
    expect((await guardedInsert(t.app.db, values, 'held42', [], { ...guards, history: false }))?.alias).toBe('held42')
  })
})

/*
 * The guarded insert is parsed and planned once: a named statement on Postgres (with a fallback for
 * poolers that lose it), a statement the worker prepares once on PGlite, its array of blocked host
 * suffixes sent as an array literal.
 */
describe('the plain create is planned once', () => {
  let t: TestApp
  let pro: TestUser
  let admin: TestUser

  beforeAll(async () => {
    ;[t, pro, admin] = await appWith({ plan: 'pro' }, { admin: true })
  })
  afterAll(() => t?.close())

  const prepared = async (db: TestApp['app']['db']) =>
    (await db.execute<{ name: string; statement: string }>(sql`select name, statement from pg_prepared_statements where statement like '%insert into "links"%'`)).rows

  it.skipIf(!!process.env.TEST_DATABASE_URL)('PGlite: prepared once in the worker, the blocklist guard working through it', async () => {
    expect((await admin.api.post('/api/blocklist/add', { type: 'domain', value: 'blocked-once.example', reason: 'test' })).statusCode).toBe(200)
    await addLink(pro, { url: 'https://example.com/planned-1' })
    await addLink(pro, { url: 'https://example.com/planned-2' })
    expect(await prepared(t.app.db)).toHaveLength(1)
    const before = await countRows(t, links)
    const refused = await pro.api.post('/api/url/add', { url: 'https://www.blocked-once.example/x' })
    expect(refused.statusCode, refused.body).toBe(400)
    expect(await countRows(t, links)).toBe(before)
  })

  it.skipIf(!process.env.TEST_DATABASE_URL)('Postgres: a named statement, and a server connection that lost it (a pooler) still creates', async () => {
    await addLink(pro, { url: 'https://example.com/named-insert-1' })
    const pool = (t.app.db as unknown as { $client: pg.Pool }).$client
    const clients = await Promise.all(Array.from({ length: pool.totalCount }, () => pool.connect()))
    try {
      const found = (
        await Promise.all(clients.map(async (c) => (await c.query(`select name, statement from pg_prepared_statements where name like 'kurz\\_link\\_insert\\_%'`)).rows))
      ).flat() as { name: string; statement: string }[]
      expect(found.length).toBeGreaterThan(0)
      for (const f of found) expect(f.name).toBe(hotName('kurz_link_insert', f.statement))
      // every connection loses it, as behind a pooler in transaction mode
      for (const c of clients) await c.query('deallocate all')
    } finally {
      for (const c of clients) c.release()
    }
    const before = await countRows(t, links)
    await addLink(pro, { url: 'https://example.com/named-insert-2' })
    await addLink(pro, { url: 'https://example.com/named-insert-3' })
    expect(await countRows(t, links)).toBe(before + 2)
  })
})

describe('webhook subscriptions of two instances on one database', () => {
  let a: TestApp
  let b: FastifyInstance
  let pro: TestUser

  const onB = (body: Record<string, unknown>) =>
    b.inject({ method: 'POST', url: '/api/url/add', payload: body, headers: { authorization: `Bearer ${pro.key}` } }).then((r) => r.json().id as number)

  describe('without Redis', () => {
    beforeAll(async () => {
      a = await testApp()
      b = await buildApp(testConfig(), { db: a.handle })
      await b.ready()
      pro = await a.makeUser({ plan: 'pro' })
    })
    afterAll(async () => {
      await b?.close()
      await a?.close()
    })

    it('a webhook added on one is not known to the other, whose creates still queue its events', async () => {
      expect((await pro.api.post('/api/webhook/add', { url: 'https://hooks.example.com/a', events: ['link.created'] })).statusCode).toBe(200)
      expect(a.app.webhookSubscriptions.wants(pro.user.id, 'link.created')).toBe(true)
      expect(b.webhookSubscriptions.wants(pro.user.id, 'link.created')).toBe(false)
      expect(await linkCreatedOf(a, await onB({ url: 'https://example.com/on-b' }))).toHaveLength(1)
    })
  })

  describe.skipIf(!redis)('with Redis', () => {
    beforeAll(async () => {
      a = await testApp({ REDIS_URL: TEST_REDIS_URL })
      b = await buildApp(testConfig({ REDIS_URL: TEST_REDIS_URL }), { db: a.handle })
      await b.ready()
      pro = await a.makeUser({ plan: 'pro' })
    })
    afterAll(async () => {
      await b?.close()
      await a?.close()
    })

    it('a webhook added, switched off and deleted on one reaches the other', async () => {
      const wantsOnB = () => b.webhookSubscriptions.wants(pro.user.id, 'link.created')
      expect(wantsOnB()).toBe(false)
      const { id } = (await pro.api.post('/api/webhook/add', { url: 'https://hooks.example.com/b', events: ['link.created'] })).json()
      await eventually(wantsOnB, 'the new webhook reached the other instance')
      expect(b.webhookSubscriptions.wantsAny('link.created')).toBe(true)
      expect(await linkCreatedOf(a, await onB({ url: 'https://example.com/on-b-redis' }))).toHaveLength(1)

      expect((await pro.api.put(`/api/webhook/${id}/update`, { enabled: false })).statusCode).toBe(200)
      await eventually(() => !wantsOnB(), 'switching it off reached the other instance')
      expect((await pro.api.put(`/api/webhook/${id}/update`, { enabled: true })).statusCode).toBe(200)
      await eventually(wantsOnB, 'switching it on reached the other instance')

      expect((await pro.api.del(`/api/webhook/${id}/delete`)).statusCode).toBe(200)
      await eventually(() => !wantsOnB() && !b.webhookSubscriptions.wantsAny('link.created'), 'the deletion reached the other instance')
      expect(await linkCreatedOf(a, await onB({ url: 'https://example.com/after-delete' }))).toHaveLength(0)
    })
  })
})
