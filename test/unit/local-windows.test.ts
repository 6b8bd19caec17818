import { afterEach, describe, expect, it, vi } from 'vitest'
import { LocalWindows } from '../../src/lib/local-windows.js'

describe('LocalWindows', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('counts per key within a window, then starts a key afresh once its window ends', () => {
    vi.useFakeTimers({ now: 1_000_000 })
    const w = new LocalWindows()
    expect(w.count('a')).toBe(0)
    expect(w.add('a', 1_000)).toEqual({ n: 1, ttl: 1_000 })
    vi.advanceTimersByTime(400)
    expect(w.add('a', 1_000)).toEqual({ n: 2, ttl: 600 })
    expect(w.add('b', 1_000).n).toBe(1)
    expect(w.count('a')).toBe(2)
    vi.advanceTimersByTime(600)
    expect(w.count('a')).toBe(0)
    expect(w.add('a', 1_000)).toEqual({ n: 1, ttl: 1_000 })
  })

  it('forgets a deleted key, and deletes and reads on a counter that never counted answer nothing', () => {
    const w = new LocalWindows()
    w.delete('a')
    expect(w.count('a')).toBe(0)
    w.add('a', 60_000)
    w.add('a', 60_000)
    w.delete('a')
    expect(w.count('a')).toBe(0)
    expect(w.add('a', 60_000).n).toBe(1)
  })
})
