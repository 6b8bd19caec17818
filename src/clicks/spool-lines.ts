import { closeSync, openSync, readSync } from 'node:fs'

/** bytes read at a time: about 2,000 spool lines */
const CHUNK = 256 * 1024
const NEWLINE = 0x0a

/**
 * The lines of a spool segment from byte `from` on, each with the offset just past it, read a
 * chunk at a time: a refill that needs a few thousand records of a 20,000-record segment reads
 * about that much, and can start where the last one stopped. A last line with no newline (torn
 * by a crash) is given too; the caller's parse decides whether it is whole.
 */
export function* linesFrom(file: string, from = 0): Generator<[text: string, end: number]> {
  const fd = openSync(file, 'r')
  try {
    const buf = Buffer.allocUnsafe(CHUNK)
    let pos = from
    let carry: Buffer | null = null
    for (;;) {
      const n = readSync(fd, buf, 0, CHUNK, pos)
      if (n === 0) break
      const chunk: Buffer = carry ? Buffer.concat([carry, buf.subarray(0, n)]) : buf.subarray(0, n)
      const base = pos - (carry ? carry.length : 0)
      pos += n
      let start = 0
      for (let nl = chunk.indexOf(NEWLINE, start); nl >= 0; nl = chunk.indexOf(NEWLINE, start)) {
        if (nl > start) yield [chunk.toString('utf8', start, nl), base + nl + 1]
        start = nl + 1
      }
      // the next read reuses buf: a partial line is copied out of it
      carry = start < chunk.length ? Buffer.from(chunk.subarray(start)) : null
    }
    if (carry) yield [carry.toString('utf8'), pos]
  } finally {
    closeSync(fd)
  }
}
