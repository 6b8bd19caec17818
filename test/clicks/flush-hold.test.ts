import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ClickRecorder, type Hit } from '../../src/clicks/recorder.js'
import type { Visitor } from '../../src/visit/visitor.js'
import { appWith, type TestApp, type TestUser } from '../helpers/app.js'
import { addLink } from '../helpers/fixtures.js'
import { clickRows as rows, expectRedirect, visit } from '../helpers/visits.js'
import { eventually } from '../helpers/wait.js'
import { UA } from '../redirect/user-agents.js'

const visitor = (i: number): Visitor => ({ ip: `10.7.${i >> 8}.${i & 255}`, userAgent: UA.mac, referrer: '', acceptLanguage: 'en', language: 'en', device: 'Mac', isBot: false, isCrawler: false })

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** On PGlite a click batch holds the one connection a cache miss needs: timed batches wait for waiting visits. */
describe('click batches held for waiting visits', () => {
  let t: TestApp
  let pro: TestUser

  beforeAll(async () => { [t, pro] = await appWith({ plan: 'pro' }) })
  afterAll(() => t.close())

  const recorder = (waiting: () => boolean, maxHoldMs = 60_000) =>
    new ClickRecorder({ db: t.app.db, visitorKey: t.app.keys.visitor, log: t.app.log, flushIntervalMs: 10, batchSize: 5, visitsWaiting: waiting, maxHoldMs })

  it('writes nothing on its timer while visits wait, and everything once they stop', async () => {
    const id = await addLink(pro, { url: 'https://example.com/held', custom: 'held1' })
    const hit = (i: number): Hit => ({ linkId: id, userId: pro.user.id, source: 'link', visitor: visitor(i) })
    let waiting = true
    const r = recorder(() => waiting)
    // twelve hits: more than two full batches, each of which would be due at once
    for (let i = 0; i < 12; i++) r.record(hit(i))
    await sleep(300)
    expect(r.stats()).toMatchObject({ recorded: 12, written: 0, buffered: 12 })
    expect(await rows(t, id)).toBe(0)
    waiting = false
    await eventually(() => r.stats().written === 12, 'the held hits written once no visit waits')
    expect(await rows(t, id)).toBe(12)
    await r.close()
  })

  it('holds a hit at most maxHoldMs, and flush() (shutdown, tests) never waits', async () => {
    const id = await addLink(pro, { url: 'https://example.com/overdue', custom: 'held2' })
    const hit = (i: number): Hit => ({ linkId: id, userId: pro.user.id, source: 'link', visitor: visitor(i) })
    const always = recorder(() => true, 200)
    always.record(hit(1))
    await eventually(() => always.stats().written === 1, 'an overdue hit written although visits still wait')
    await always.close()

    const forced = recorder(() => true)
    forced.record(hit(2))
    forced.record(hit(3))
    await forced.flush()
    expect(forced.stats()).toMatchObject({ written: 2, buffered: 0 })
    await forced.close()
    expect(await rows(t, id)).toBe(3)
  })

  it('the link cache says when a visit waits for a link to be read', async () => {
    await addLink(pro, { url: 'https://example.com/miss', custom: 'held3' })
    expect(t.app.linkCache.waiting()).toBe(false)
    const load = t.app.linkCache.byAlias(null, 'held3')
    expect(load).toBeInstanceOf(Promise)
    expect(t.app.linkCache.waiting()).toBe(true)
    expect((await load)?.url).toBe('https://example.com/miss')
    expect(t.app.linkCache.waiting()).toBe(false)
    // cached now: a visit reads nothing, and nothing is said to wait
    expectRedirect(await visit(t, '/held3'), 302, 'https://example.com/miss')
    expect(t.app.linkCache.waiting()).toBe(false)
  })
})
