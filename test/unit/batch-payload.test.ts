import { describe, expect, it } from 'vitest'
import { enrichBatch } from '../../src/clicks/enrich.js'
import { batchArgs } from '../../src/clicks/batch-payload.js'
import type { BufferedHit } from '../../src/clicks/hit.js'
import type { Visitor } from '../../src/visit/visitor.js'

const KEY = Buffer.alloc(32, 7)
const visitor = (ip: string, userAgent = 'Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0'): Visitor => ({
  ip, userAgent, referrer: '', acceptLanguage: '', language: null, device: null, isBot: false, isCrawler: false,
})
const hit = (linkId: number, userId: number, v: Visitor, iso: string): BufferedHit => ({ linkId, userId, source: 'link', visitor: v, at: Date.parse(iso), human: true })

/** The arguments write_click_batch() gets: quota groups per owner and month, each click's place in its group. */
describe('click batch arguments', () => {
  it('groups clicks by owner and month in order of first appearance, and numbers each group from 0', () => {
    const a = visitor('192.0.2.1')
    const hits = [
      hit(1, 10, a, '2026-03-31T23:59:00Z'),
      hit(2, 20, a, '2026-03-31T23:59:30Z'),
      hit(1, 10, a, '2026-04-01T00:00:10Z'),
      hit(1, 10, { ...a }, '2026-03-31T23:59:50Z'),
      hit(2, 20, visitor('192.0.2.2'), '2026-04-01T00:01:00Z'),
      hit(2, 20, a, '2026-03-31T12:00:00Z'),
    ]
    enrichBatch(KEY, hits)
    const args = batchArgs(hits, undefined)
    expect(JSON.parse(args.batch).quota).toEqual([
      { i: 0, user_id: 10, month: '2026-03', count: 2 },
      { i: 1, user_id: 20, month: '2026-03', count: 2 },
      { i: 2, user_id: 10, month: '2026-04', count: 1 },
      { i: 3, user_id: 20, month: '2026-04', count: 1 },
    ])
    expect(args.quota).toBe('{0,1,2,0,3,1}')
    expect(args.place).toBe('{0,0,0,1,0,1}')
  })

  it('a hit like the one before it (same day and visitor) shares its enrichment; another day or visitor does not', () => {
    const a = visitor('192.0.2.1')
    const hits = [
      hit(1, 10, a, '2026-03-31T10:00:00Z'),
      hit(1, 10, { ...a }, '2026-03-31T11:00:00Z'),
      hit(1, 10, a, '2026-04-01T10:00:00Z'),
      hit(1, 10, { ...a, referrer: 'https://example.org/' }, '2026-04-01T10:00:01Z'),
      hit(1, 10, { ...a, isBot: true }, '2026-04-01T10:00:02Z'),
    ]
    enrichBatch(KEY, hits)
    const [e0, e1, e2, e3, e4] = hits.map((h) => h.enriched!)
    expect(e1).toBe(e0)
    expect(e2).not.toBe(e1)
    expect(e2.day).toBe('2026-04-01')
    expect(e2.visitorHash).not.toBe(e0.visitorHash) // the visitor hash is per day
    expect(e3.referrer).toBe('example.org')
    expect(e4.bot).toBe(true)
    expect(JSON.parse(batchArgs(hits, undefined).enriched)).toHaveLength(4)
  })
})
