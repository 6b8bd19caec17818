import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import pino from 'pino'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app.js'
import type { DbHandle } from '../../src/db/client.js'
import { runMigrations } from '../../src/db/migrate.js'
import { seedPlans } from '../../src/resources/admin/plans.js'
import { links, plans, users } from '../../src/db/schema/index.js'
import { ClickRecorder, type Hit } from '../../src/clicks/recorder.js'
import { ClickSpool } from '../../src/clicks/spool.js'
import type { BufferedHit } from '../../src/clicks/hit.js'
import { testConfig, testDatabase, type TestApp } from '../helpers/app.js'
import { insertLink } from '../helpers/fixtures.js'
import { clickRows, counters, expectRedirect, visit } from '../helpers/visits.js'

/* The click spool in one process: replay exactly once, and clicks kept on disk while the database is away. */

const spoolFiles = (dir: string) => readdirSync(join(dir, 'spool')).filter((f) => f.endsWith('.spool'))
/** lines on disk in a DATA_DIR's spool segments */
const spoolLines = (dir: string) => spoolFiles(dir).reduce((n, f) => n + readFileSync(join(dir, 'spool', f), 'utf8').split('\n').filter(Boolean).length, 0)

/** A 64 KiB tmpfs to fill up, where this machine lets the tests mount one (root in a container); else null. */
function smallDisk(): string | null {
  const dir = mkdtempSync(join(tmpdir(), 'kurz-spool-full-'))
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { stdio: 'ignore' })
    return dir
  } catch {
    rmSync(dir, { recursive: true, force: true })
    return null
  }
}

describe('click spool', () => {
  let handle: DbHandle
  let drop: () => Promise<void>
  let down = false
  const dirs: string[] = []
  let userId: number
  /** a 64 KiB disk for the refused write, null where none can be mounted */
  const disk = smallDisk()

  const tempDir = () => {
    const d = mkdtempSync(join(tmpdir(), 'kurz-spool-'))
    dirs.push(d)
    return d
  }
  const start = async (dir: string): Promise<TestApp> => {
    const app: FastifyInstance = await buildApp(testConfig({ DATA_DIR: dir }), { db: handle, spool: true })
    await app.ready()
    return { app } as TestApp
  }

  beforeAll(async () => {
    const database = await testDatabase()
    drop = database.drop
    const real = database.handle
    // the database "away": every batch fails as a refused connection would
    const db = new Proxy(real.db, {
      get(target, prop, receiver) {
        // a batch is one execute(), or a transaction when a webhook wants click events
        if ((prop === 'transaction' || prop === 'execute') && down) return () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432'))
        return Reflect.get(target, prop, receiver)
      },
    }) as DbHandle['db']
    handle = { ...real, db, writer: db, ping: async () => (down ? false : real.ping()) }
    await runMigrations(real)
    await seedPlans(real.db)
    const [plan] = await real.db.select().from(plans).where(eq(plans.name, 'Pro'))
    const [user] = await real.db.insert(users).values({ email: 'spool@example.com', username: 'spool', passwordHash: 'x', planId: plan.id }).returning()
    userId = user.id
  })
  afterAll(async () => {
    await drop()
    if (disk) execFileSync('umount', [disk], { stdio: 'ignore' })
    for (const d of [...dirs, ...(disk ? [disk] : [])]) rmSync(d, { recursive: true, force: true })
  })

  it('replays a segment whose batch committed just before a crash without writing it twice', async () => {
    const dir = tempDir()
    let t = await start(dir)
    const link = await insertLink(t, userId, { alias: 'spool1', url: 'https://example.com/spool' })
    for (let i = 0; i < 30; i++) expectRedirect(await visit(t, '/spool1', { remoteAddress: `203.0.113.${i}` }), 302, 'https://example.com/spool')
    // the spool as a crash between the commit and the segment's deletion would leave it
    const files = spoolFiles(dir)
    expect(files.length).toBe(1)
    const saved = files.map((f) => [f, readFileSync(join(dir, 'spool', f))] as const)
    expect(saved[0][1].toString().trim().split('\n')).toHaveLength(30)
    expect(await clickRows(t, link.id)).toBe(30)
    expect(spoolFiles(dir)).toEqual([]) // committed: deleted
    await t.app.close()
    for (const [f, body] of saved) writeFileSync(join(dir, 'spool', f), body)

    t = await start(dir)
    await t.app.clicks.flush()
    expect(await counters(t, link.id)).toMatchObject({ clicks: 30, uniqueClicks: 30 })
    expect(await clickRows(t, link.id)).toBe(30)
    expect(spoolFiles(dir)).toEqual([])
    for (let i = 0; i < 5; i++) expectRedirect(await visit(t, '/spool1', { remoteAddress: `198.51.100.${i}` }), 302, 'https://example.com/spool')
    expect(await clickRows(t, link.id)).toBe(35)
    await t.app.close()
  })

  const log = pino({ level: 'silent' })
  const hitOf = (linkId: number, i: number): Hit => ({
    linkId,
    userId,
    source: 'link',
    visitor: { ip: `192.0.2.${i}`, userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/125.0', referrer: '', acceptLanguage: '', language: null, device: null, isBot: false, isCrawler: false },
  })
  const linkFor = async (alias: string) => {
    const [row] = await handle.db.insert(links).values({ userId, alias, url: `https://example.com/${alias}` }).returning()
    return row
  }

  it('writes each line as JSON.stringify would, whatever the visitor sent, and reads every string back unchanged', () => {
    const dir = tempDir()
    const spool = new ClickSpool(dir)
    const odd = ['', 'plain', 'say "hi"', 'a "quoted" \\ path', 'tab\there', 'line\nbreak', '\u0000\u001f', 'Käfer 🐞', 'lone \ud800 half', '\udfff', '</script>', `${'ü'.repeat(40_000)} longer than the line buffer`]
    // sequences that carry over a run of nines, and times that repeat and change
    spool.advance(1_900_000_000_999_998)
    const sent = odd.map((s, i) => {
      const hit = hitOf(1 + i, i)
      hit.visitor = { ...hit.visitor, userAgent: s, referrer: odd[odd.length - 1 - i], language: i % 2 ? s : null, isBot: i === 3 }
      return { hit, at: 1_788_000_000_000 + (i >> 1), seq: spool.append({ ...hit, at: 1_788_000_000_000 + (i >> 1), human: i !== 3, rotation: i === 5 ? 2 : undefined }) }
    })
    spool.write()
    const [file] = spoolFiles(dir)
    const lines = readFileSync(join(dir, 'spool', file), 'utf8').split('\n').filter(Boolean)
    expect(lines).toEqual(
      sent.map(({ hit, at, seq }, i) => {
        const v = hit.visitor
        return JSON.stringify([seq, at, hit.linkId, 0, userId, 0, i === 5 ? 2 : -1, v.ip, v.userAgent, v.referrer, v.language ?? '', v.isBot ? 1 : 0])
      }),
    )
    expect(sent.map((s) => s.seq)).toContain(1_900_000_001_000_000)
    spool.close()
    const again = new ClickSpool(dir)
    const { hits } = again.replay(100)
    again.close()
    expect(hits.map((h) => [h.seq, h.at, h.visitor.userAgent, h.visitor.referrer, h.visitor.language, h.visitor.isBot])).toEqual(
      sent.map(({ hit, at, seq }) => [seq, at, hit.visitor.userAgent, hit.visitor.referrer, hit.visitor.language || null, hit.visitor.isBot]),
    )
  })

  it('replays at most what memory holds and reads the rest back from disk in order, over several segments and a torn line', () => {
    const dir = tempDir()
    const first = new ClickSpool(dir)
    // more than two segments' worth (20,000 records each), written in turns of 1,000
    const n = 45_000
    const seqs: number[] = []
    for (let i = 0; i < n; i++) {
      // multi-byte characters in every line: the reader's chunks split some of them
      const hit = hitOf(1 + (i % 7), i % 250)
      hit.visitor.userAgent = `Mozilla/5.0 (X11; Linux) Käfer/${i} 🐞`
      seqs.push(first.append({ ...hit, at: 1_000 + i, human: true }))
      if (i % 1_000 === 999) first.write()
    }
    first.close()
    expect(spoolFiles(dir)).toHaveLength(3)
    // the crash tore the last write: a line cut short, which no replay may count or parse
    const last = spoolFiles(dir).sort((a, b) => Number(a.match(/-(\d+)\.spool$/)![1]) - Number(b.match(/-(\d+)\.spool$/)![1]))[2]
    writeFileSync(join(dir, 'spool', last), `${readFileSync(join(dir, 'spool', last), 'utf8')}[${seqs[n - 1] + 1},1,2,0,`)

    const second = new ClickSpool(dir)
    const { hits, total } = second.replay(1_000)
    expect(total).toBe(n)
    expect(hits.map((h) => h.seq)).toEqual(seqs.slice(0, 1_000))
    expect(hits[999]).toMatchObject({ linkId: 1 + (999 % 7), at: 1_999, source: 'link', human: true })
    // the rest, oldest first, as the recorder's refill asks for it: a few thousand at a time, each
    // read going on where the last stopped; one from an earlier point starts that segment afresh
    const rest: BufferedHit[] = []
    for (let got = second.read(hits[999].seq!, 7_000); got.length > 0; got = second.read(got[got.length - 1].seq!, 7_000)) rest.push(...got)
    expect(rest.map((h) => h.seq)).toEqual(seqs.slice(1_000))
    expect(rest.map((h) => h.visitor.userAgent)).toEqual(seqs.slice(1_000).map((_, i) => `Mozilla/5.0 (X11; Linux) Käfer/${i + 1_000} 🐞`))
    expect(second.read(seqs[29_999], 3).map((h) => h.seq)).toEqual(seqs.slice(30_000, 30_003))
    // new records follow every replayed one, and committing the last deletes every segment
    expect(second.append({ ...hitOf(1, 1), at: 1, human: true })).toBeGreaterThan(seqs[n - 1])
    second.committed(seqs[n - 1])
    expect(spoolFiles(dir)).toEqual([])
    second.close()
  })

  it('writes the lines of an event-loop turn in one write, and runs the answers that wait for them after it, in order', async () => {
    const dir = tempDir()
    const link = await linkFor('turn1')
    const spool = new ClickSpool(dir)
    const recorder = new ClickRecorder({ db: handle.db, visitorKey: Buffer.alloc(32, 7), log, ping: handle.ping, spool })
    expect(recorder.spoolWaiting()).toBe(false)
    for (let i = 0; i < 3; i++) recorder.record(hitOf(link.id, i))
    // queued, not yet on disk: an answer sent now would not survive kill -9
    expect(recorder.spoolWaiting()).toBe(true)
    expect(spoolLines(dir)).toBe(0)
    const seen: string[] = []
    await new Promise<void>((done) => {
      recorder.afterSpool(() => seen.push(`first saw ${spoolLines(dir)} lines`))
      recorder.afterSpool(() => {
        seen.push(`second saw ${spoolLines(dir)} lines`)
        done()
      })
    })
    expect(seen).toEqual(['first saw 3 lines', 'second saw 3 lines'])
    expect(spool.stats()).toMatchObject({ appended: 3, failed: 0, writes: 1 })
    expect(recorder.spoolWaiting()).toBe(false)
    // the next turn's visits take the next write
    recorder.record(hitOf(link.id, 3))
    await new Promise<void>((done) => recorder.afterSpool(done))
    expect(spool.stats()).toMatchObject({ appended: 4, writes: 2 })
    expect(recorder.spoolStats()).toMatchObject({ spooled: 4, unspooled: 0 })
    await recorder.close()
    expect(recorder.stats()).toMatchObject({ written: 4, dropped: 0 })
    expect(spoolFiles(dir)).toEqual([])
  })

  it.skipIf(!disk)('answers the visits of a turn whose spool write the disk cut short, keeps their clicks in memory, and starts a new segment', async () => {
    const link = await linkFor('full1')
    const spool = new ClickSpool(disk!)
    const recorder = new ClickRecorder({ db: handle.db, visitorKey: Buffer.alloc(32, 7), log, ping: handle.ping, spool })
    /** records `n` hits in one turn and waits for their answers */
    const turn = async (from: number, n: number) => {
      for (let i = from; i < from + n; i++) recorder.record(hitOf(link.id, i))
      let answered = 0
      await new Promise<void>((done) => {
        for (let i = 0; i < n; i++) recorder.afterSpool(() => ++answered === n && done())
      })
      return answered
    }
    expect(await turn(0, 1)).toBe(1)
    // the rest of the disk taken: the segment's one page has room for about 30 more lines, not 60
    try {
      writeFileSync(join(disk!, 'filler'), Buffer.alloc(64 * 1024))
    } catch {
      /* filled up to the byte it refused */
    }
    expect(await turn(1, 60)).toBe(60)
    expect(spool.stats()).toMatchObject({ appended: 1, failed: 60 })
    expect(recorder.spoolStats()).toMatchObject({ spooled: 1, unspooled: 60 })
    rmSync(join(disk!, 'filler'))
    expect(await turn(61, 3)).toBe(3)
    // the torn write stays in its own segment: the next turn's lines are whole, in a new file
    const texts = spoolFiles(disk!)
      .sort((a, b) => Number(a.match(/-(\d+)\.spool$/)![1]) - Number(b.match(/-(\d+)\.spool$/)![1]))
      .map((f) => readFileSync(join(disk!, 'spool', f), 'utf8'))
    expect(texts).toHaveLength(2)
    expect(texts[0].length).toBeGreaterThan(4000)
    const lines = texts[1].split('\n').filter(Boolean)
    expect(lines.map((l) => (JSON.parse(l) as unknown[])[7])).toEqual(['192.0.2.61', '192.0.2.62', '192.0.2.63'])
    await recorder.close()
    expect(recorder.stats()).toMatchObject({ recorded: 64, written: 64, dropped: 0 })
  })

  it.skipIf(!disk)('drops what neither a full memory buffer nor a refusing disk can hold, counted, and goes back to memory after', async () => {
    const link = await linkFor('full2')
    const spool = new ClickSpool(disk!)
    const recorder = new ClickRecorder({ db: handle.db, visitorKey: Buffer.alloc(32, 7), log, ping: handle.ping, maxBuffer: 5, spool })
    down = true
    try {
      writeFileSync(join(disk!, 'filler'), Buffer.alloc(64 * 1024))
    } catch {
      /* filled up to the byte it refused */
    }
    for (let i = 0; i < 8; i++) recorder.record(hitOf(link.id, i))
    let answered = 0
    await new Promise<void>((done) => {
      for (let i = 0; i < 8; i++) recorder.afterSpool(() => ++answered === 8 && done())
    })
    // every visit answered; the three beyond memory had only the disk, which refused them
    expect(answered).toBe(8)
    expect(recorder.stats()).toMatchObject({ recorded: 5, dropped: 3, buffered: 5 })
    expect(recorder.spoolStats()).toMatchObject({ unspooled: 8, backlog: 0 })
    rmSync(join(disk!, 'filler'))
    down = false
    await recorder.flush()
    // nothing waits on disk: the next hit goes to memory at once
    recorder.record(hitOf(link.id, 8))
    expect(recorder.stats()).toMatchObject({ recorded: 6, written: 5, buffered: 1 })
    await recorder.close()
    expect(recorder.stats()).toMatchObject({ recorded: 6, written: 6, dropped: 3 })
  })

  it('keeps clicks on disk beyond the memory buffer while the database is away, and writes each once when it is back', async () => {
    const dir = tempDir()
    const t = await start(dir)
    const link = await insertLink(t, userId, { alias: 'spool2', url: 'https://example.com/spool2' })
    await t.app.close()
    const log = pino({ level: 'silent' })
    const hit = (i: number): Hit => ({
      linkId: link.id,
      userId,
      source: 'link',
      visitor: { ip: `192.0.2.${i}`, userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/125.0', referrer: '', acceptLanguage: '', language: null, device: null, isBot: false, isCrawler: false },
    })
    const recorder = (spool: ClickSpool) => new ClickRecorder({ db: handle.db, visitorKey: Buffer.alloc(32, 7), log, ping: handle.ping, maxBuffer: 5, spool })

    down = true
    const firstSpool = new ClickSpool(dir)
    const first = recorder(firstSpool)
    for (let i = 0; i < 12; i++) first.record(hit(i))
    // the seven beyond memory are taken once the turn's write has put them on disk
    expect(first.stats()).toMatchObject({ recorded: 5, dropped: 0, buffered: 5 })
    await new Promise<void>((done) => first.afterSpool(done))
    expect(first.stats()).toMatchObject({ recorded: 12, dropped: 0, buffered: 5 })
    expect(first.spoolStats()).toEqual({ on: true, spooled: 12, unspooled: 0, backlog: 7 })
    // one write for the turn's twelve lines, those bound for disk only included
    expect(firstSpool.stats()).toMatchObject({ appended: 12, writes: 1 })
    await expect(first.flush()).rejects.toThrow()
    // the process stops with the database still away: nothing is dropped, the spool keeps all 12
    await first.close(50)
    expect(first.stats().dropped).toBe(0)

    down = false
    const second = recorder(new ClickSpool(dir))
    expect(await second.replay()).toBe(12)
    // memory takes what it holds; the other 7 are read back from disk as the buffer drains
    expect(second.stats().buffered).toBe(5)
    expect(second.spoolStats().backlog).toBe(7)
    for (let i = 12; i < 20; i++) second.record(hit(i))
    await second.close()
    expect(second.stats()).toMatchObject({ written: 20, dropped: 0, buffered: 0 })
    expect(second.spoolStats().backlog).toBe(0)
    const [row] = await handle.db.select({ clicks: links.clicks }).from(links).where(eq(links.id, link.id))
    expect(row.clicks).toBe(20)
    expect(spoolFiles(dir)).toEqual([])
  })
})
