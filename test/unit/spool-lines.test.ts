import { describe, expect, it } from 'vitest'
import type { BufferedHit } from '../../src/clicks/hit.js'
import { SpoolLines } from '../../src/clicks/spool-format.js'

/** The spool writes numbers digit by digit into its buffer; each must read as JSON.stringify writes it. */
describe('spool line numbers', () => {
  const edges = [0, 1, 9, 10, 99, 100, 2 ** 31 - 1, 2 ** 31, 999_999_999, 1_000_000_000, 1_000_000_007, 2_000_000_000_000, 1_788_000_000_009, 9_007_199_254_740_991]

  it('writes every edge of the 32-bit and nine-digit split as JSON does', () => {
    const lines = new SpoolLines()
    const expected: string[] = []
    for (const [i, n] of edges.entries()) {
      const m = edges[edges.length - 1 - i]
      const hit: BufferedHit = {
        linkId: n || undefined,
        qrId: m || undefined,
        userId: n,
        source: 'link',
        rotation: i % 2 ? n : undefined,
        at: m,
        human: true,
        visitor: { ip: '192.0.2.1', userAgent: '', referrer: '', acceptLanguage: '', language: null, device: null, isBot: false, isCrawler: false },
      }
      lines.add(hit, n)
      expected.push(JSON.stringify([n, m, n, m, n, 0, i % 2 ? n : -1, '192.0.2.1', '', '', '', 0]))
    }
    expect(lines.bytes().toString('utf8').split('\n').filter(Boolean)).toEqual(expected)
  })
})
