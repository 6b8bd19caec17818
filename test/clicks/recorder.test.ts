import { Writable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { and, eq, sql } from 'drizzle-orm'
import { DrizzleQueryError } from 'drizzle-orm/errors'
import pg from 'pg'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app.js'
import type { DbHandle } from '../../src/db/client.js'
import { clickProfileRollups, clickQuota, clickRollups, clicks, clickVisitors, links, plans, qrCodes, users } from '../../src/db/schema/index.js'
import { ClickRecorder, type Hit } from '../../src/clicks/recorder.js'
import { purgeExpiredClicks } from '../../src/clicks/retention.js'
import type { Visitor } from '../../src/visit/visitor.js'
import { appWith, testConfig, testDatabase, type TestApp, type TestUser } from '../helpers/app.js'
import { addLink, insertLink } from '../helpers/fixtures.js'
import { clickRows as rows, counters, expectRedirect, visit } from '../helpers/visits.js'
import { UA } from '../redirect/user-agents.js'
import { eventually } from '../helpers/wait.js'

const human = (ip = '81.2.69.142', ua = UA.mac): Visitor => ({
  ip,
  userAgent: ua,
  referrer: '',
  acceptLanguage: 'en',
  language: 'en',
  device: 'Mac',
  isBot: false,
  isCrawler: false,
})

/** A dimension's counts by label, from the rollups and the profiles not folded yet (migration 0012). */
async function rollup(app: FastifyInstance, linkId: number, dimension: string) {
  const out: Record<string, number> = {}
  for (const r of [clickRollups, clickProfileRollups]) {
    const rows = await app.db
      .select({ label: r.label, n: sql<string>`sum(${r.count})` })
      .from(r)
      .where(and(eq(r.subject, `l${linkId}`), eq(r.dimension, dimension)))
      .groupBy(r.label)
    for (const x of rows) out[x.label] = (out[x.label] ?? 0) + Number(x.n)
  }
  return out
}

/** Resolves once `check` holds; the recorder writes on its own timer (no timed assertion: only a bound). */
describe('click recorder', () => {
  let t: TestApp
  let pro: TestUser

  beforeAll(async () => { [t, pro] = await appWith({ plan: 'pro' }) })
  afterAll(() => t.close())

  it('counts exactly after 300 concurrent visits, uniques by visitor', async () => {
    const id = await addLink(pro, { url: 'https://example.com/busy', custom: 'busy1' })
    const res = await Promise.all(
      Array.from({ length: 300 }, (_, i) => visit(t, '/busy1', { remoteAddress: `198.51.100.${i % 50}`, headers: { 'user-agent': UA.windows } })),
    )
    expect(res.every((r) => r.statusCode === 302)).toBe(true)
    expect(await counters(t, id)).toEqual({ clicks: 300, uniqueClicks: 50, botClicks: 0, lastRotation: 0 })
    expect(await rows(t, id)).toBe(300)
    expect(await rollup(t.app, id, 'total')).toEqual({ '': 300 })
    expect(await rollup(t.app, id, 'unique')).toEqual({ '': 50 })
    expect(await rollup(t.app, id, 'browser')).toEqual({ Edge: 300 })
  })

  it('writes on its own every 250 ms or 500 clicks, without anyone calling flush', async () => {
    const id = await addLink(pro, { url: 'https://example.com/auto', custom: 'auto1' })
    const before = t.app.clicks.stats().written
    for (let i = 0; i < 1234; i++) t.app.clicks.record({ linkId: id, userId: pro.user.id, source: 'link', visitor: human(`10.1.${i >> 8}.${i & 255}`) })
    await eventually(() => t.app.clicks.stats().written >= before + 1234, 'the buffer drained', 400)
    expect(t.app.clicks.stats().buffered).toBe(0)
    expect(await counters(t, id)).toEqual({ clicks: 1234, uniqueClicks: 1234, botClicks: 0, lastRotation: 0 })
    expect(await rows(t, id)).toBe(1234)
  })

  it('takes full batches while behind, and caps a batch’s links once caught up', async () => {
    const ids = [
      await addLink(pro, { url: 'https://example.com/subjects-a', custom: 'subjects1' }),
      await addLink(pro, { url: 'https://example.com/subjects-b', custom: 'subjects2' }),
      await addLink(pro, { url: 'https://example.com/subjects-c', custom: 'subjects3' }),
    ]
    const sizes: number[] = []
    const recorder = new ClickRecorder({
      db: t.app.db,
      visitorKey: t.app.keys.visitor,
      log: t.app.log,
      batchSize: 20,
      batchSubjects: 2,
      // the hook joins every batch, and sees each batch's size
      onBatch: { active: () => true, write: async (_tx, hits) => void sizes.push(hits.length) },
    })
    // 50 hits over three links in turn, then 12 on one link
    for (let i = 0; i < 50; i++) recorder.record({ linkId: ids[i % 3], userId: pro.user.id, source: 'link', visitor: human(`10.9.0.${i}`) })
    await recorder.close()
    // 20 a batch while 20 or more wait, then two links a batch
    expect(sizes).toEqual([20, 20, 2, 2, 2, 2, 2])
    const one = new ClickRecorder({ db: t.app.db, visitorKey: t.app.keys.visitor, log: t.app.log, batchSize: 20, batchSubjects: 2, onBatch: { active: () => true, write: async (_tx, hits) => void sizes.push(hits.length) } })
    for (let i = 0; i < 12; i++) one.record({ linkId: ids[0], userId: pro.user.id, source: 'link', visitor: human(`10.9.1.${i}`) })
    await one.close()
    // one link: the cap leaves the batch whole
    expect(sizes.slice(7)).toEqual([12])
    expect(recorder.stats()).toMatchObject({ recorded: 50, written: 50, buffered: 0 })
    expect((await Promise.all(ids.map((id) => rows(t, id)))).reduce((a, b) => a + b)).toBe(62)
  })

  it('arms no timer per visit while a batch is in flight: the next batch starts when it ends', async () => {
    const id = await addLink(pro, { url: 'https://example.com/behind', custom: 'behind1' })
    let release!: () => void
    const held = new Promise<void>((r) => (release = r))
    const sizes: number[] = []
    const write = async (_tx: unknown, hits: readonly unknown[]) => {
      sizes.push(hits.length)
      if (sizes.length === 1) await held
    }
    const recorder = new ClickRecorder({ db: t.app.db, visitorKey: t.app.keys.visitor, log: t.app.log, batchSize: 20, onBatch: { active: () => true, write } })
    const hit = (i: number): Hit => ({ linkId: id, userId: pro.user.id, source: 'link', visitor: human(`10.8.${i >> 8}.${i & 255}`) })
    for (let i = 0; i < 20; i++) recorder.record(hit(i))
    await eventually(() => sizes.length === 1, 'the first batch started')
    // 500 visits over 50 event-loop turns while that batch is held: each asks for a flush at once
    const timers = vi.spyOn(globalThis, 'setTimeout')
    for (let turn = 0; turn < 50; turn++) {
      for (let i = 0; i < 10; i++) recorder.record(hit(20 + turn * 10 + i))
      await new Promise((r) => setImmediate(r))
    }
    const armed = timers.mock.calls.length
    timers.mockRestore()
    // one timer per visit before (500); none is needed: the running flush schedules the next
    expect(armed).toBeLessThan(5)
    release()
    await eventually(() => recorder.stats().written === 520, 'every hit written')
    expect(sizes).toEqual(Array.from({ length: 26 }, () => 20))
    await recorder.close()
    expect(await rows(t, id)).toBe(520)
  })

  it('records bots apart: a row with the bot flag, botClicks, no click, no unique', async () => {
    const id = await addLink(pro, { url: 'https://example.com/b', custom: 'bot1' })
    await visit(t, '/bot1', { headers: { 'user-agent': UA.googlebot } })
    await visit(t, '/bot1', { headers: { 'user-agent': UA.twitter } })
    expect(await counters(t, id)).toEqual({ clicks: 0, uniqueClicks: 0, botClicks: 2, lastRotation: 0 })
    const bots = await t.app.db.select({ bot: clicks.bot }).from(clicks).where(eq(clicks.linkId, id))
    expect(bots).toEqual([{ bot: true }, { bot: true }])
    expect(await rollup(t.app, id, 'bot')).toEqual({ '': 2 })
    expect(await rollup(t.app, id, 'total')).toEqual({})
  })

  it('drops the hits of a link deleted before its batch was written, and writes the rest', async () => {
    const keep = await addLink(pro, { url: 'https://example.com/keep', custom: 'keep1' })
    const gone = await addLink(pro, { url: 'https://example.com/gone', custom: 'gone1' })
    await visit(t, '/keep1')
    await visit(t, '/gone1')
    await visit(t, '/keep1')
    const discarded = t.app.clicks.stats().discarded
    expect((await pro.api.del(`/api/url/${gone}/delete`)).statusCode).toBe(200)
    await t.app.clicks.flush()
    expect(t.app.clicks.stats().discarded).toBe(discarded + 1)
    expect(await counters(t, keep)).toEqual({ clicks: 2, uniqueClicks: 1, botClicks: 0, lastRotation: 0 })
    expect(await rows(t, gone)).toBe(0)
  })

  it('survives 8 KB of garbage in every header', async () => {
    const id = await addLink(pro, { url: 'https://example.com/g', custom: 'garbage1' })
    const junk = 'ÿ\u00fe\u0001'.repeat(2700)
    expectRedirect(await visit(t, '/garbage1', { headers: { 'user-agent': junk, referer: junk, 'accept-language': junk } }), 302, 'https://example.com/g')
    expect(await counters(t, id)).toEqual({ clicks: 1, uniqueClicks: 1, botClicks: 0, lastRotation: 0 })
  })

  it('keeps counting beyond the plan’s monthly clicks quota but keeps no detail rows (admins unlimited)', async () => {
    const [plan] = await t.app.db
      .insert(plans)
      .values({ name: 'Tiny', maxLinks: 0, maxClicks: 3, retentionDays: 30, features: (await t.app.db.select().from(plans).limit(1))[0].features })
      .returning()
    const tiny = await t.makeUser()
    await t.app.db.update(users).set({ planId: plan.id }).where(eq(users.id, tiny.user.id))
    const id = await addLink(tiny, { url: 'https://example.com/q', custom: 'quota1' })
    for (let i = 0; i < 5; i++) expectRedirect(await visit(t, '/quota1', { remoteAddress: `192.0.2.${i}` }), 302, 'https://example.com/q')
    expect(await counters(t, id)).toEqual({ clicks: 5, uniqueClicks: 5, botClicks: 0, lastRotation: 0 })
    expect(await rows(t, id)).toBe(3)
    expect(await rollup(t.app, id, 'total')).toEqual({ '': 5 })
    const month = new Date().toISOString().slice(0, 7)
    expect(await t.app.db.select({ count: clickQuota.count }).from(clickQuota).where(eq(clickQuota.userId, tiny.user.id))).toEqual([{ count: 3 }])
    expect((await tiny.api.get(`/api/url/${id}`)).json().data.clicks).toBe(5)

    const admin = await t.makeUser({ admin: true })
    await t.app.db.update(users).set({ planId: plan.id }).where(eq(users.id, admin.user.id))
    const aid = await addLink(admin, { url: 'https://example.com/qa', custom: 'quota2' })
    for (let i = 0; i < 5; i++) await visit(t, '/quota2')
    expect(await rows(t, aid)).toBe(5)
    expect(month).toMatch(/^\d{4}-\d{2}$/)
  })

  it('purges detail past the plan retention; counters and rollups stay', async () => {
    const free = await t.makeUser({ plan: 'free' }) // retention 90 days
    const fid = (await insertLink(t, free.user.id, { alias: 'oldfree' })).id
    const pid = (await insertLink(t, pro.user.id, { alias: 'oldpro' })).id // retention 730 days
    const day = 86_400_000
    const at = (days: number) => new Date(Date.now() - days * day)
    const row = (linkId: number, days: number, hash: string) => ({ linkId, source: 'link', createdAt: at(days), visitorHash: hash })
    await t.app.db.insert(clicks).values([row(fid, 100, 'a'), row(fid, 89, 'b'), row(pid, 100, 'c'), row(pid, 800, 'd')])
    // a QR code's scans are kept by its owner's plan too
    const [qr] = await t.app.db.insert(qrCodes).values({ userId: free.user.id, alias: 'oldfreeqr', type: 'text', data: 'hi', target: 'hi', content: 'hi', name: 'QR' }).returning()
    const scan = (days: number, hash: string) => ({ qrId: qr.id, source: 'qr', createdAt: at(days), visitorHash: hash })
    await t.app.db.insert(clicks).values([scan(100, 'q'), scan(10, 'r')])
    const vday = (days: number) => at(days).toISOString().slice(0, 10)
    await t.app.db.insert(clickVisitors).values([
      { subject: `l${fid}`, linkId: fid, day: vday(100), visitorHash: 'a' },
      { subject: `l${fid}`, linkId: fid, day: vday(89), visitorHash: 'b' },
      { subject: `l${pid}`, linkId: pid, day: vday(100), visitorHash: 'c' },
      { subject: `l${pid}`, linkId: pid, day: vday(800), visitorHash: 'd' },
      { subject: `q${qr.id}`, qrId: qr.id, day: vday(100), visitorHash: 'q' },
      { subject: `q${qr.id}`, qrId: qr.id, day: vday(10), visitorHash: 'r' },
    ])
    await t.app.db.insert(clickRollups).values({ subject: `l${fid}`, linkId: fid, day: vday(100), dimension: 'total', label: '', count: 1 })
    await t.app.db.update(links).set({ clicks: 2 }).where(eq(links.id, fid))

    const removed = await purgeExpiredClicks(t.app.db)
    expect(removed.clicks).toBeGreaterThanOrEqual(3)
    expect((await t.app.db.select({ h: clicks.visitorHash }).from(clicks).where(eq(clicks.qrId, qr.id))).map((r) => r.h)).toEqual(['r'])
    expect((await t.app.db.select({ d: clicks.createdAt }).from(clicks).where(eq(clicks.linkId, fid))).map((r) => Math.round((Date.now() - r.d.getTime()) / day))).toEqual([89])
    expect((await t.app.db.select({ d: clicks.createdAt }).from(clicks).where(eq(clicks.linkId, pid))).map((r) => Math.round((Date.now() - r.d.getTime()) / day))).toEqual([100])
    expect((await t.app.db.select({ h: clickVisitors.visitorHash }).from(clickVisitors).where(eq(clickVisitors.linkId, fid))).map((r) => r.h)).toEqual(['b'])
    expect((await t.app.db.select({ h: clickVisitors.visitorHash }).from(clickVisitors).where(eq(clickVisitors.linkId, pid))).map((r) => r.h)).toEqual(['c'])
    expect((await t.app.db.select({ h: clickVisitors.visitorHash }).from(clickVisitors).where(eq(clickVisitors.qrId, qr.id))).map((r) => r.h)).toEqual(['r'])
    expect(await rollup(t.app, fid, 'total')).toEqual({ '': 1 })
    expect(await counters(t, fid)).toEqual({ clicks: 2, uniqueClicks: 0, botClicks: 0, lastRotation: 0 })
  })
})

/**
 * The database goes away while clicks keep coming. On PGlite a wrapper refuses transactions and
 * pings for a while (the recorder is the real one); on Postgres the database really refuses
 * connections (ALLOW_CONNECTIONS false and its sessions terminated).
 */
describe('click recorder while the database is unreachable', () => {
  let app: FastifyInstance
  let handle: DbHandle
  let drop: () => Promise<void>
  let url: string | undefined
  let down = false
  const logs: string[] = []

  async function setDown(value: boolean) {
    down = value
    if (!url) return
    const name = new URL(url).pathname.slice(1)
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL })
    await admin.connect()
    await admin.query(`alter database ${name} allow_connections ${value ? 'false' : 'true'}`)
    if (value) await admin.query(`select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()`, [name])
    await admin.end()
  }

  beforeAll(async () => {
    const database = await testDatabase()
    url = database.url
    drop = database.drop
    const real = database.handle
    const db = url
      ? real.db
      : (new Proxy(real.db, {
          get(target, prop, receiver) {
            // a batch is one execute(), or a transaction when a webhook wants click events
            // as drizzle fails it: the statement and its parameters in the message, the driver's error as the cause
            if ((prop === 'transaction' || prop === 'execute') && down) return () => Promise.reject(new DrizzleQueryError('select write_click_batch($1, $2)', ['203.0.113.250', 'visitor-hash-of-someone'], Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })))
            return Reflect.get(target, prop, receiver)
          },
        }) as DbHandle['db'])
    handle = { ...real, db, writer: url ? real.writer : db, ping: async () => (down ? false : real.ping()) }
    const stream = new Writable({
      write(chunk, _enc, done) {
        logs.push(String(chunk))
        done()
      },
    })
    app = await buildApp(testConfig({ LOG_LEVEL: 'warn' }), { db: handle, logStream: stream })
    await app.ready()
  })
  afterAll(async () => {
    await setDown(false)
    await app.close()
    await drop()
  })

  it('keeps serving cached links, keeps the clicks, and writes each exactly once when the database is back', async () => {
    const t = { app } as TestApp
    const [plan] = await app.db.select().from(plans).where(eq(plans.name, 'Pro'))
    const [user] = await app.db.insert(users).values({ email: 'outage@example.com', username: 'outage', passwordHash: 'x', planId: plan.id }).returning()
    const link = await insertLink(t, user.id, { alias: 'outage1', url: 'https://example.com/outage' })
    expectRedirect(await visit(t, '/outage1'), 302, 'https://example.com/outage') // cached now
    await app.clicks.flush()

    await setDown(true)
    for (let i = 0; i < 20; i++) expectRedirect(await visit(t, '/outage1', { remoteAddress: `203.0.113.${i}` }), 302, 'https://example.com/outage')
    await expect(app.clicks.flush()).rejects.toThrow()
    await expect(app.clicks.flush()).rejects.toThrow()
    const during = app.clicks.stats()
    expect(during.buffered).toBe(20)
    expect(during.failures).toBeGreaterThanOrEqual(2)
    expect(during.dropped).toBe(0)
    expect(logs.join('')).toContain('writing clicks failed; kept in memory and retrying')
    // the warning names the failure, never the batch's statement or what it carries (visitors' data)
    const warning = logs.find((l) => l.includes('writing clicks failed'))!
    expect(warning).toMatch(/"code":"(ECONNREFUSED|55000|57P01)"/) // the driver's code: refused here, closed to connections on Postgres
    expect(warning).not.toMatch(/write_click_batch\(|params|203\.0\.113|visitor-hash/)

    await setDown(false)
    await eventually(() => app.clicks.stats().buffered === 0, 'the retry wrote the buffer', 400)
    await app.clicks.flush()
    expect(await rows(t, link.id)).toBe(21)
    expect(await counters(t, link.id)).toEqual({ clicks: 21, uniqueClicks: 21, botClicks: 0, lastRotation: 0 })
  })

  it('bounds the buffer: what it cannot hold is counted and logged, never silently lost', async () => {
    const [user] = await app.db.select().from(users).where(eq(users.username, 'outage'))
    const [link] = await app.db.select().from(links).where(eq(links.alias, 'outage1'))
    const recorder = new ClickRecorder({ db: handle.db, visitorKey: app.keys.visitor, log: app.log, ping: handle.ping, maxBuffer: 5 })
    await setDown(true)
    const hit: Hit = { linkId: link.id, userId: user.id, source: 'link', visitor: human() }
    for (let i = 0; i < 8; i++) recorder.record(hit)
    expect(recorder.stats()).toEqual({ recorded: 5, written: 0, discarded: 0, dropped: 3, failures: 0, buffered: 5 })
    expect(logs.join('')).toContain('click buffer full while the database is unavailable: clicks dropped')
    await setDown(false)
    await recorder.close()
    expect(recorder.stats()).toEqual({ recorded: 5, written: 5, discarded: 0, dropped: 3, failures: expect.any(Number), buffered: 0 })
  })
})
