import { describe, expect, it } from 'vitest'
import { LiveClicks } from '../../src/clicks/live-clicks.js'

describe('LiveClicks: the live human click count of a link', () => {
  it('counts buffered clicks at once, and stops counting them when they leave the buffer', async () => {
    const live = new LiveClicks()
    live.buffered(1)
    live.buffered(1)
    live.buffered(2)
    expect(await live.count(1, async () => 10)).toBe(12)
    live.left([1]) // one of the two was written: the stored counter now has it
    expect(await live.count(1, async () => 11)).toBe(12)
    live.clear()
    expect(await live.count(2, async () => 0)).toBe(0)
  })

  it('reads the stored count only once no batch is being written, so a batch counts exactly once', async () => {
    const live = new LiveClicks()
    let stored = 5
    live.buffered(1)
    live.batchStarted()
    const reads: number[] = []
    const counting = live.count(1, async () => {
      reads.push(stored)
      return stored
    })
    await Promise.resolve()
    expect(reads).toEqual([]) // waiting for the batch
    stored = 6 // the batch commits: the click is now stored and leaves the buffer
    live.left([1])
    live.batchCommitted()
    live.batchEnded()
    expect(await counting).toBe(6)
    expect(reads).toEqual([6])
  })

  it('reads again when a batch committed while it was reading', async () => {
    const live = new LiveClicks()
    live.buffered(1)
    let stored = 5
    let first = true
    const count = await live.count(1, async () => {
      const seen = stored
      if (first) {
        // a whole batch is written during this read, which saw the old counter
        first = false
        live.batchStarted()
        stored = 6
        live.left([1])
        live.batchCommitted()
        live.batchEnded()
      }
      return seen
    })
    expect(count).toBe(6)
  })
})
