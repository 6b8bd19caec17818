import { describe, expect, it } from 'vitest'
import { DiskBacklog } from '../../src/clicks/disk-backlog.js'
import type { BufferedHit } from '../../src/clicks/hit.js'
import type { ClickSpool } from '../../src/clicks/spool.js'

const hit = (seq: number): BufferedHit => ({
  seq,
  at: 0,
  linkId: 1,
  userId: 1,
  source: 'link',
  human: true,
  visitor: { ip: '192.0.2.1', userAgent: '', referrer: '', acceptLanguage: '', language: null, device: null, isBot: false, isCrawler: false },
})

/**
 * A spool whose disk takes or refuses writes on demand and holds `disk`; its write tells the
 * backlog, as the recorder's onWritten hook does, and collects what the backlog hands back.
 */
function setUp(disk: BufferedHit[] = []) {
  const state = { refuse: false, reads: [] as number[], handedBack: [] as BufferedHit[] }
  const spool = {
    write() {
      state.handedBack.push(...backlog.written(!state.refuse))
      return !state.refuse
    },
    read(after: number, limit: number) {
      state.reads.push(after)
      return disk.filter((h) => h.seq! > after).slice(0, limit)
    },
  }
  const backlog = new DiskBacklog(spool as unknown as ClickSpool)
  return { backlog, state }
}

describe('DiskBacklog', () => {
  it('counts pending hits once the write takes them, and reads them back after the last one in memory', () => {
    const disk = [hit(10), hit(11), hit(12)]
    const { backlog, state } = setUp(disk)
    expect(backlog.active).toBe(false)
    for (const h of disk) backlog.add(h)
    expect({ active: backlog.active, waiting: backlog.waiting, count: backlog.count }).toEqual({ active: true, waiting: 3, count: 0 })
    // a room of 2: the first two, and the third still waits on disk
    expect(backlog.read(2).map((h) => h.seq)).toEqual([10, 11])
    expect(state.reads).toEqual([9])
    expect({ active: backlog.active, waiting: backlog.waiting, count: backlog.count }).toEqual({ active: true, waiting: 0, count: 1 })
    expect(backlog.read(2).map((h) => h.seq)).toEqual([12])
    expect(state.reads).toEqual([9, 11])
    // all of it in memory again: new hits go to the buffer
    expect({ active: backlog.active, count: backlog.count }).toEqual({ active: false, count: 0 })
    expect(state.handedBack.map((h) => h.seq)).toEqual([10, 11, 12])
  })

  it('hands back the pending hits of a refused write, and with nothing else on disk stops sending hits there', () => {
    const { backlog, state } = setUp()
    backlog.add(hit(20))
    state.refuse = true
    expect(backlog.read(100)).toEqual([])
    // the spool was not read after a sequence that no longer means anything
    expect(state.reads).toEqual([])
    expect(state.handedBack.map((h) => h.seq)).toEqual([20])
    expect({ active: backlog.active, waiting: backlog.waiting, count: backlog.count }).toEqual({ active: false, waiting: 0, count: 0 })
  })

  it('stays behind what is already on disk when a later write is refused', () => {
    const disk = [hit(30), hit(31)]
    const { backlog, state } = setUp(disk)
    for (const h of disk) backlog.add(h)
    expect(backlog.written(true)).toHaveLength(2)
    backlog.add(hit(32))
    state.refuse = true
    expect(backlog.read(1).map((h) => h.seq)).toEqual([30])
    expect(state.handedBack.map((h) => h.seq)).toEqual([32])
    expect({ active: backlog.active, count: backlog.count }).toEqual({ active: true, count: 1 })
  })

  it('takes what a replay left on disk', () => {
    const disk = [hit(41), hit(42)]
    const { backlog } = setUp(disk)
    backlog.leftOnDisk(40, 2)
    expect({ active: backlog.active, count: backlog.count }).toEqual({ active: true, count: 2 })
    expect(backlog.read(10).map((h) => h.seq)).toEqual([41, 42])
    expect({ active: backlog.active, count: backlog.count }).toEqual({ active: false, count: 0 })
  })
})
