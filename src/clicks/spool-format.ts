import type { BufferedHit } from './hit.js'

/**
 * The click spool's line: one JSON array a visit (`Line`), newline-terminated. `SpoolLines` writes
 * them, `fromLine` reads one back, `seqOf` reads only its sequence.
 */

const SOURCES = ['link', 'rotator', 'qr'] as const

type Line = [seq: number, at: number, linkId: number, qrId: number, userId: number, source: number, rotation: number, ip: string, ua: string, referrer: string, language: string, bot: 0 | 1]

/** a string JSON writes as it is, between quotes: no quote, backslash, control character or surrogate */
const VERBATIM = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/
const jsonText = (s: string) => (VERBATIM.test(s) ? s : JSON.stringify(s).slice(1, -1))

/** bytes a turn's lines start with; the buffer grows for a bigger turn and shrinks back after it */
const INITIAL = 64 * 1024
const COMMA = 0x2c
const QUOTE = 0x22

/**
 * The lines of an event-loop turn, encoded straight into one buffer: the same bytes as
 * `JSON.stringify(line)`, without the strings a template or JSON.stringify makes on every visit
 * (about 1 KB of garbage a visit, over a quarter of what the visit path allocates beyond a bare route).
 */
export class SpoolLines {
  private buf = Buffer.allocUnsafe(INITIAL)
  private len = 0

  /** the queued bytes (a view: valid until the next add or clear) */
  bytes(): Buffer {
    return this.buf.subarray(0, this.len)
  }

  clear(): void {
    this.len = 0
    if (this.buf.length > 16 * INITIAL) this.buf = Buffer.allocUnsafe(INITIAL)
  }

  add(h: BufferedHit, seq: number): void {
    const v = h.visitor
    const ip = jsonText(v.ip)
    const ua = jsonText(v.userAgent)
    const referrer = jsonText(v.referrer)
    const language = jsonText(v.language ?? '')
    // seven numbers of at most 17 characters, the punctuation, and at most 3 bytes a UTF-16 unit
    this.reserve(7 * 17 + 32 + 3 * (ip.length + ua.length + referrer.length + language.length))
    this.byte(0x5b)
    this.int(seq)
    this.byte(COMMA)
    this.int(h.at)
    this.byte(COMMA)
    this.int(h.linkId ?? 0)
    this.byte(COMMA)
    this.int(h.qrId ?? 0)
    this.byte(COMMA)
    this.int(h.userId)
    this.byte(COMMA)
    this.int(SOURCES.indexOf(h.source))
    this.byte(COMMA)
    this.int(h.rotation ?? -1)
    this.byte(COMMA)
    this.str(ip)
    this.byte(COMMA)
    this.str(ua)
    this.byte(COMMA)
    this.str(referrer)
    this.byte(COMMA)
    this.str(language)
    this.byte(COMMA)
    this.byte(v.isBot ? 0x31 : 0x30)
    this.byte(0x5d)
    this.byte(0x0a)
  }

  private reserve(bytes: number) {
    if (this.len + bytes <= this.buf.length) return
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + bytes))
    this.buf.copy(bigger, 0, 0, this.len)
    this.buf = bigger
  }

  private byte(b: number) {
    this.buf[this.len++] = b
  }

  /** a safe integer's decimal digits, as JSON writes it */
  private int(n: number) {
    if (n < 0) {
      this.byte(0x2d)
      n = -n
    }
    if (n < 0x80000000) return this.digits(n, 0)
    // an epoch millisecond or a sequence: in two parts that each fit the 32-bit arithmetic of `digits`
    const high = Math.floor(n / 1e9)
    this.digits(high, 0)
    this.digits(n - high * 1e9, 9)
  }

  /** the digits of `n` (below 2^31), at least `width` of them (leading zeros) */
  private digits(n: number, width: number) {
    let count = 1
    for (let x = n; x >= 10; x = (x / 10) | 0) count++
    if (count < width) count = width
    let at = this.len + count
    this.len = at
    for (let i = 0; i < count; i++) {
      const q = (n / 10) | 0
      this.buf[--at] = 0x30 + n - q * 10
      n = q
    }
  }

  /** text already escaped for JSON, between quotes */
  private str(text: string) {
    this.byte(QUOTE)
    if (text.length > 0) this.len += this.buf.write(text, this.len, 'utf8')
    this.byte(QUOTE)
  }
}

/**
 * A line's sequence without parsing the rest (`[seq,...]`); null where the line cannot be a whole
 * record (torn by a crash). Lines a replay or a refill passes over are only looked at this far.
 */
export function seqOf(text: string): number | null {
  if (text.charCodeAt(0) !== 0x5b || text.charCodeAt(text.length - 1) !== 0x5d) return null
  const seq = Number(text.slice(1, text.indexOf(',')))
  return Number.isSafeInteger(seq) ? seq : null
}

/** The hit a whole line records; null for a line torn by a crash (its visit was never answered). */
export function fromLine(text: string): BufferedHit | null {
  let l: Line
  try {
    l = JSON.parse(text) as Line
  } catch {
    return null
  }
  if (!Array.isArray(l) || l.length !== 12 || !Number.isSafeInteger(l[0])) return null
  const [seq, at, linkId, qrId, userId, source, rotation, ip, userAgent, referrer, language, bot] = l
  const isBot = bot === 1
  return {
    seq,
    at,
    linkId: linkId || undefined,
    qrId: qrId || undefined,
    userId,
    source: SOURCES[source] ?? 'link',
    rotation: rotation >= 0 ? rotation : undefined,
    visitor: { ip, userAgent, referrer, acceptLanguage: '', language: language || null, device: null, isBot, isCrawler: false },
    human: !isBot && !!linkId,
  }
}
