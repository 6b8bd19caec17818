import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eq, sql } from 'drizzle-orm'
import pg from 'pg'
import { writeClickBatch, type BatchHook } from '../../src/clicks/batch.js'
import { foldTotals } from '../../src/clicks/totals.js'
import { batchArgs } from '../../src/clicks/batch-payload.js'
import { enrich } from '../../src/clicks/enrich.js'
import type { BufferedHit } from '../../src/clicks/hit.js'
import type { Db } from '../../src/db/client.js'
import { links, qrCodes } from '../../src/db/schema/index.js'
import type { Visitor } from '../../src/visit/visitor.js'
import { appWith, type TestApp, type TestUser } from '../helpers/app.js'
import { addLink } from '../helpers/fixtures.js'
import { visit } from '../helpers/visits.js'
import { eventually } from '../helpers/wait.js'
import { UA } from '../redirect/user-agents.js'

/*
 * write_click_batch() (migrations 0007 and 0010) and the rows a deleted link or QR code leaves:
 * the click tables have no foreign keys, so the delete triggers must remove them on every path.
 */

const KEY = Buffer.alloc(32, 3)
const visitor = (ip: string, ua = UA.windows, referrer = ''): Visitor => ({ ip, userAgent: ua, referrer, acceptLanguage: 'fr', language: 'fr', device: null, isBot: /bot/i.test(ua), isCrawler: false })
const hit = (linkId: number | undefined, userId: number, v: Visitor, at: string, o: Partial<BufferedHit> = {}): BufferedHit => ({
  linkId,
  userId,
  source: 'link',
  visitor: v,
  at: Date.parse(at),
  human: !v.isBot,
  ...o,
})

const SUBJECT_TABLES = ['click_rollups', 'click_profiles', 'click_totals', 'click_visitors', 'click_hourly', 'click_visitor_hours'] as const

/** Every click-table row of a link ('l') or QR code ('q'). */
async function rowsOf(db: Db, kind: 'l' | 'q', id: number): Promise<Record<string, number>> {
  const col = sql.raw(kind === 'l' ? 'link_id' : 'qr_id')
  const out: Record<string, number> = {}
  const [c] = (await db.execute<{ n: number }>(sql`select count(*)::int as n from clicks where ${col} = ${id}`)).rows
  out.clicks = c.n
  for (const table of SUBJECT_TABLES) {
    const [r] = (await db.execute<{ n: number }>(sql`select count(*)::int as n from ${sql.identifier(table)} where subject = ${`${kind}${id}`}`)).rows
    out[table] = r.n
  }
  return out
}
const none = { clicks: 0, click_rollups: 0, click_profiles: 0, click_totals: 0, click_visitors: 0, click_hourly: 0, click_visitor_hours: 0 }
const some = { clicks: expect.any(Number), ...Object.fromEntries(SUBJECT_TABLES.map((t) => [t, expect.any(Number)])) }

async function qrCode(u: TestUser): Promise<{ id: number; alias: string }> {
  const res = await u.api.post('/api/qr/add', { type: 'link', data: 'https://example.com/poster' })
  expect(res.statusCode, res.body).toBe(200)
  const json = res.json()
  return { id: json.id, alias: String(json.link).split('/').pop()! }
}

describe('click batches and deletes', () => {
  let t: TestApp
  let admin: TestUser
  let owner: TestUser

  beforeAll(async () => { [t, admin, owner] = await appWith({ admin: true }, { plan: 'pro' }) })
  afterAll(() => t.close())

  it('writes rows, rollups, totals, uniques, hourly buckets and counters from one call', async () => {
    const link = await addLink(owner, { url: 'https://example.com/mix', custom: 'mix1' })
    const qr = await qrCode(owner)
    const a = visitor('81.2.69.142', UA.windows, 'https://t.co/x')
    const b = visitor('81.2.69.143', UA.mac)
    const bot = visitor('66.249.66.1', UA.googlebot)
    const batch = [
      hit(link, owner.user.id, a, '2026-03-10T10:05:00Z', { rotation: 0 }),
      hit(link, owner.user.id, a, '2026-03-10T10:20:00Z', { rotation: 1 }),
      hit(link, owner.user.id, a, '2026-03-10T11:01:00Z', { rotation: 2 }),
      hit(link, owner.user.id, b, '2026-03-10T11:02:00Z'),
      hit(link, owner.user.id, bot, '2026-03-10T11:03:00Z'),
      hit(link, owner.user.id, a, '2026-03-10T10:30:00Z', { qrId: qr.id, source: 'qr' }),
    ]
    expect(await writeClickBatch(t.app.db, KEY, batch)).toBe(6)
    // a again: within 10:00 (no new visitor for the day or the hour), then the next day (new for both)
    expect(await writeClickBatch(t.app.db, KEY, [hit(link, owner.user.id, a, '2026-03-10T10:59:00Z'), hit(link, owner.user.id, a, '2026-03-11T00:10:00Z')])).toBe(2)

    const [l] = await t.app.db.select().from(links).where(eq(links.id, link))
    expect({ clicks: l.clicks, unique: l.uniqueClicks, bots: l.botClicks, rotation: l.lastRotation }).toEqual({ clicks: 7, unique: 3, bots: 1, rotation: 2 })
    const [q] = await t.app.db.select().from(qrCodes).where(eq(qrCodes.id, qr.id))
    expect({ scans: q.scans, unique: q.uniqueScans, bots: q.botScans }).toEqual({ scans: 1, unique: 1, bots: 0 })

    // a click goes to its profile row: a's five human clicks of the 10th are one row (one new visitor)
    const profiles = (await t.app.db.execute<{ day: string; bot: boolean; referrer: string; social: string; browser: string; count: number; uniques: number }>(
      sql`select day::text as day, bot, referrer, social, browser, count, uniques from click_profiles where subject = ${`l${link}`} order by 1, 2, 3`,
    )).rows
    expect(profiles).toEqual([
      { day: '2026-03-10', bot: false, referrer: '', social: '', browser: 'Safari', count: 1, uniques: 1 },
      { day: '2026-03-10', bot: false, referrer: 't.co', social: 'twitter', browser: 'Edge', count: 5, uniques: 1 },
      { day: '2026-03-10', bot: true, referrer: '', social: '', browser: '', count: 1, uniques: 0 },
      { day: '2026-03-11', bot: false, referrer: 't.co', social: 'twitter', browser: 'Edge', count: 1, uniques: 1 },
    ])
    // these days are long folded: the fold's next run adds them to the rollups and the totals, once
    expect(await foldTotals(t.app.db)).toBeDefined()
    expect(await rowsOf(t.app.db, 'l', link)).toMatchObject({ click_profiles: 0 })

    const rollups = (await t.app.db.execute<{ day: string; dimension: string; label: string; count: number }>(
      sql`select day::text as day, dimension, label, count from click_rollups where subject = ${`l${link}`} and dimension in ('total', 'unique', 'bot', 'referrer', 'social') order by 1, 2, 3`,
    )).rows
    expect(rollups).toEqual([
      { day: '2026-03-10', dimension: 'bot', label: '', count: 1 },
      { day: '2026-03-10', dimension: 'referrer', label: '', count: 1 },
      { day: '2026-03-10', dimension: 'referrer', label: 't.co', count: 5 },
      { day: '2026-03-10', dimension: 'social', label: 'twitter', count: 5 },
      { day: '2026-03-10', dimension: 'total', label: '', count: 6 },
      { day: '2026-03-10', dimension: 'unique', label: '', count: 2 },
      { day: '2026-03-11', dimension: 'referrer', label: 't.co', count: 1 },
      { day: '2026-03-11', dimension: 'social', label: 'twitter', count: 1 },
      { day: '2026-03-11', dimension: 'total', label: '', count: 1 },
      { day: '2026-03-11', dimension: 'unique', label: '', count: 1 },
    ])
    const totals = (await t.app.db.execute<{ dimension: string; label: string; count: number }>(
      sql`select dimension, label, count from click_totals where subject = ${`l${link}`} and dimension in ('total', 'unique', 'bot', 'browser') order by 1, 2`,
    )).rows
    expect(totals).toEqual([
      { dimension: 'bot', label: '', count: 1 },
      { dimension: 'browser', label: 'Edge', count: 6 },
      { dimension: 'browser', label: 'Safari', count: 1 },
      { dimension: 'total', label: '', count: 7 },
      { dimension: 'unique', label: '', count: 3 },
    ])
    const hourly = (await t.app.db.execute<{ hour: string; clicks: number; unique_clicks: number; bot_clicks: number }>(
      sql`select to_char(hour at time zone 'UTC', 'MM-DD HH24') as hour, clicks, unique_clicks, bot_clicks from click_hourly where subject = ${`l${link}`} order by 1`,
    )).rows
    expect(hourly).toEqual([
      { hour: '03-10 10', clicks: 4, unique_clicks: 1, bot_clicks: 0 },
      { hour: '03-10 11', clicks: 2, unique_clicks: 2, bot_clicks: 1 },
      { hour: '03-11 00', clicks: 1, unique_clicks: 1, bot_clicks: 0 },
    ])
    expect(await rowsOf(t.app.db, 'l', link)).toMatchObject({ clicks: 8, click_visitors: 3, click_visitor_hours: 4 })
    expect(await rowsOf(t.app.db, 'q', qr.id)).toMatchObject({ clicks: 1, click_visitors: 1, click_hourly: 1 })
  })

  it('deleting a link through the API deletes its click, rollup, totals, visitor and hourly rows, and no one else’s', async () => {
    const gone = await addLink(owner, { url: 'https://example.com/gone', custom: 'gone2' })
    const kept = await addLink(owner, { url: 'https://example.com/kept', custom: 'kept2' })
    for (const alias of ['gone2', 'kept2', 'gone2']) await visit(t, `/${alias}`, { headers: { 'user-agent': UA.mac } })
    await t.app.clicks.flush()
    expect(await rowsOf(t.app.db, 'l', gone)).toEqual(some)
    const before = await rowsOf(t.app.db, 'l', kept)
    expect((await owner.api.del(`/api/url/${gone}/delete`)).statusCode).toBe(200)
    expect(await rowsOf(t.app.db, 'l', gone)).toEqual(none)
    expect(await rowsOf(t.app.db, 'l', kept)).toEqual(before)
  })

  it('deleting a QR code deletes its scan rows', async () => {
    const qr = await qrCode(owner)
    await visit(t, `/q/${qr.alias}`)
    await t.app.clicks.flush()
    expect(await rowsOf(t.app.db, 'q', qr.id)).toEqual(some)
    expect((await owner.api.del(`/api/qr/${qr.id}/delete`)).statusCode).toBe(200)
    expect(await rowsOf(t.app.db, 'q', qr.id)).toEqual(none)
  })

  it('deleting a user deletes the rows of every link and QR code they owned (the cascade fires the triggers)', async () => {
    const doomed = await t.makeUser({ plan: 'pro' })
    const ids = [await addLink(doomed, { url: 'https://example.com/d1', custom: 'doomed1' }), await addLink(doomed, { url: 'https://example.com/d2', custom: 'doomed2' })]
    const qr = await qrCode(doomed)
    for (const path of ['/doomed1', '/doomed2', `/q/${qr.alias}`]) await visit(t, path)
    await t.app.clicks.flush()
    for (const id of ids) expect(await rowsOf(t.app.db, 'l', id)).toEqual(some)
    expect((await admin.api.del(`/api/user/${doomed.user.id}/delete`)).statusCode).toBe(200)
    for (const id of ids) expect(await rowsOf(t.app.db, 'l', id)).toEqual(none)
    expect(await rowsOf(t.app.db, 'q', qr.id)).toEqual(none)
  })

  it('a batch with hits of a deleted link stores the others; the hook gets only those, in a transaction', async () => {
    const gone = await addLink(owner, { url: 'https://example.com/g3', custom: 'gone3' })
    const kept = await addLink(owner, { url: 'https://example.com/k3', custom: 'kept3' })
    expect((await owner.api.del(`/api/url/${gone}/delete`)).statusCode).toBe(200)
    const at = new Date().toISOString()
    const batch = [hit(kept, owner.user.id, visitor('192.0.2.1'), at), hit(gone, owner.user.id, visitor('192.0.2.2'), at), hit(kept, owner.user.id, visitor('192.0.2.3'), at)]
    const seen: number[][] = []
    let transactions = 0
    const db = new Proxy(t.app.db, {
      get(target, prop, receiver) {
        if (prop === 'transaction') transactions++
        return Reflect.get(target, prop, receiver)
      },
    }) as Db
    const hook: BatchHook = { active: () => true, write: async (_tx, hits) => void seen.push(hits.map((h) => h.linkId!)) }
    expect(await writeClickBatch(db, KEY, batch, hook)).toBe(2)
    expect({ seen, transactions }).toEqual({ seen: [[kept, kept]], transactions: 1 })
    expect(await rowsOf(t.app.db, 'l', kept)).toMatchObject({ clicks: 2 })
    expect(await rowsOf(t.app.db, 'l', gone)).toEqual(none)

    // no webhook wants clicks: the batch is its one statement, no transaction around it
    const idle: BatchHook = { active: () => false, write: async () => void seen.push([]) }
    expect(await writeClickBatch(db, KEY, [hit(kept, owner.user.id, visitor('192.0.2.4'), at)], idle)).toBe(1)
    expect({ seen: seen.length, transactions }).toEqual({ seen: 1, transactions: 1 })
    expect(await rowsOf(t.app.db, 'l', kept)).toMatchObject({ clicks: 3 })
  })

  // Migration 0013: with no index on `clicks` and room on its page, a batch's counter update of a
  // link stays on the page (HOT) and writes no index entry. An index on a counter would undo that.
  it('updates a clicked link’s counters in place, writing no index entry (a heap-only update)', async () => {
    const link = await addLink(owner, { url: 'https://example.com/hot', custom: 'hot1' })
    const updates: { upd: number; hot: number }[] = []
    const hook: BatchHook = {
      active: () => true,
      write: async (tx) => {
        const stats = await tx.execute<{ upd: number; hot: number }>(
          sql`select n_tup_upd::int as upd, n_tup_hot_upd::int as hot from pg_stat_xact_user_tables where relname = 'links'`,
        )
        updates.push(stats.rows[0])
      },
    }
    const at = new Date().toISOString()
    for (const ip of ['192.0.2.31', '192.0.2.32']) expect(await writeClickBatch(t.app.db, KEY, [hit(link, owner.user.id, visitor(ip), at)], hook)).toBe(1)
    // the transaction's own counts (PGlite may add the earlier transaction's, not yet flushed)
    expect(updates.map((u) => u.upd > 0 && u.hot === u.upd)).toEqual([true, true])
    expect((await t.app.db.select({ clicks: links.clicks, uniques: links.uniqueClicks }).from(links).where(eq(links.id, link)))[0]).toEqual({ clicks: 2, uniques: 2 })
  })

  // Migration 0010 added the array signature; an instance of the previous release, still running
  // during a rolling upgrade, calls the JSON one, which must write the same rows.
  it('the JSON signature of the previous release writes what the array one writes', async () => {
    const [viaArrays, viaJson] = [await addLink(owner, { url: 'https://example.com/sig', custom: 'sig-arrays' }), await addLink(owner, { url: 'https://example.com/sig', custom: 'sig-json' })]
    const v = visitor('203.0.113.9', UA.mac, 'https://news.example.org/a')
    const hits = (id: number) => ['2026-04-02T09:00:00Z', '2026-04-02T09:40:00Z', '2026-04-02T12:00:00Z'].map((at) => hit(id, owner.user.id, v, at))
    expect(await writeClickBatch(t.app.db, KEY, hits(viaArrays))).toBe(3)
    const old = hits(viaJson)
    for (const h of old) h.enriched = enrich(KEY, h.visitor, h.at)
    const a = batchArgs(old, undefined)
    const rows = old.map((h, n) => ({ l: viaJson, s: 'link', t: h.at, e: 0, g: 0, n }))
    const [r] = (await t.app.db.execute<{ r: unknown }>(sql`select write_click_batch(${a.batch}::jsonb, ${JSON.stringify(rows)}::json, ${a.enriched}::json) as r`)).rows
    expect(r.r).toBeNull()
    expect(await rowsOf(t.app.db, 'l', viaJson)).toEqual(await rowsOf(t.app.db, 'l', viaArrays))
    expect(await rowsOf(t.app.db, 'l', viaJson)).toMatchObject({ clicks: 3, click_hourly: 2 })
    const counts = async (id: number) => (await t.app.db.select({ c: links.clicks, u: links.uniqueClicks }).from(links).where(eq(links.id, id)))[0]
    expect(await counts(viaJson)).toEqual({ c: 3, u: 1 })
    expect(await counts(viaArrays)).toEqual({ c: 3, u: 1 })
  })

  // Two sessions on one Postgres: the delete waits for the batch's FOR KEY SHARE lock, and its
  // trigger then removes what the batch committed. (PGlite has one session: nothing can interleave.)
  it.skipIf(!process.env.TEST_DATABASE_URL)('a delete running beside a batch leaves no rows of the deleted link', async () => {
    const id = await addLink(owner, { url: 'https://example.com/race', custom: 'race1' })
    const url = (t.app.db as unknown as { $client: pg.Pool }).$client.options.connectionString
    const batchSession = new pg.Client({ connectionString: url })
    const deleteSession = new pg.Client({ connectionString: url })
    await batchSession.connect()
    await deleteSession.connect()
    try {
      // the batch's transaction stays open, as a hook's would, while the delete arrives
      await batchSession.query('begin')
      const h = hit(id, owner.user.id, visitor('198.51.100.7'), new Date().toISOString())
      h.enriched = enrich(KEY, h.visitor, h.at)
      const a = batchArgs([h], undefined)
      const [r] = (
        await batchSession.query('select write_click_batch($1::jsonb, $2::integer[], $3::integer[], $4::text[], $5::bigint[], $6::integer[], $7::integer[], $8::integer[], $9::json) as r', [
          a.batch,
          a.link,
          a.qr,
          a.source,
          a.at,
          a.enrichment,
          a.quota,
          a.place,
          a.enriched,
        ])
      ).rows
      expect(r.r).toBeNull()
      const pid = (await deleteSession.query('select pg_backend_pid() as pid')).rows[0].pid
      const deleting = deleteSession.query('delete from links where id = $1', [id])
      await eventually(async () => (await batchSession.query(`select wait_event_type from pg_stat_activity where pid = $1`, [pid])).rows[0]?.wait_event_type === 'Lock', 'the delete waits for the batch')
      await batchSession.query('commit')
      await deleting
      expect(await rowsOf(t.app.db, 'l', id)).toEqual(none)
    } finally {
      await batchSession.end()
      await deleteSession.end()
    }
  })
})
