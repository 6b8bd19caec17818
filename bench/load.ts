/**
 * The bench's load generator for GET bursts: keep-alive connections on plain sockets, each sending
 * its next request once the answer to the last one is read. autocannon (still used for timed runs
 * and POST bodies, lib.ts `cannon`) builds a request anew for every call of a `setupRequest`
 * callback, which cost its core 25-35 µs a request against 14-19 for a fixed path: the random-alias
 * rows measured the load generator as much as the server, and on Postgres it shares its core with
 * the backends (decisions log, session 17). Here a request is one string, whatever its path.
 */
import { connect, type Socket } from 'node:net'
import { performance } from 'node:perf_hooks'

export interface Burst {
  rps: number
  /** answers with the expected status */
  answered: number
  /** answers with another status, and errors (timeouts, resets) */
  other: number
  errors: number
}

/** a request unanswered this long counts as an error, and its connection is replaced */
const TIMEOUT_MS = 30_000

/** Where the first response in `buf` ends (its head and body) and its status, or null while it is incomplete. */
function responseEnd(buf: Buffer): { end: number; status: number } | null {
  const headEnd = buf.indexOf('\r\n\r\n')
  if (headEnd < 0) return null
  const head = buf.toString('latin1', 0, headEnd)
  const status = Number(head.slice(9, 12))
  const length = /\r\ncontent-length: *(\d+)/i.exec(head)
  if (length) {
    const end = headEnd + 4 + Number(length[1])
    return buf.length >= end ? { end, status } : null
  }
  if (/\r\ntransfer-encoding: *chunked/i.test(head)) {
    // the last chunk; searched from the head's own CRLF, so an empty body is found too
    const last = buf.indexOf('\r\n0\r\n\r\n', headEnd + 2)
    return last < 0 ? null : { end: last + 7, status }
  }
  return { end: headEnd + 4, status }
}

/**
 * `amount` GET requests to `path` (or to `path()` for each), over `connections` keep-alive
 * connections; every one answered (or failed) before it resolves.
 */
export async function burst(url: string, amount: number, path: string | (() => string), connections = 50, status = 302): Promise<Burst> {
  const u = new URL(url)
  const port = Number(u.port || 80)
  const next = typeof path === 'string' ? () => path : path
  const tail = ` HTTP/1.1\r\nHost: ${u.host}\r\n\r\n`
  let sent = 0
  let answered = 0
  let other = 0
  let errors = 0
  const t0 = performance.now()

  /** one connection's loop; a connection the server closes or that times out is replaced */
  const run = () =>
    new Promise<void>((resolve) => {
      let sock: Socket
      let buf: Buffer | null = null
      let waiting = false
      let connected = false
      const send = () => {
        if (sent >= amount) {
          sock.destroy()
          resolve()
          return
        }
        sent++
        waiting = true
        sock.write(`GET ${next()}${tail}`, 'latin1')
      }
      const open = () => {
        buf = null
        waiting = false
        connected = false
        sock = connect(port, u.hostname)
        sock.setNoDelay(true)
        sock.setTimeout(TIMEOUT_MS, () => sock.destroy(new Error('timeout')))
        sock.on('connect', () => {
          connected = true
          send()
        })
        sock.on('data', (chunk: Buffer) => {
          let data: Buffer = buf ? Buffer.concat([buf, chunk]) : chunk
          buf = null
          for (let r = responseEnd(data); r; r = responseEnd(data)) {
            if (r.status === status) answered++
            else other++
            waiting = false
            data = data.subarray(r.end)
            send()
          }
          if (data.length > 0) buf = data
        })
        sock.on('error', () => {})
        sock.on('close', () => {
          // a refused connection counts as a failed request, so a server that is down ends the burst
          if (!connected && sent < amount) {
            sent++
            errors++
          } else if (connected && waiting) errors++
          if (sent < amount) open()
          else resolve()
        })
      }
      open()
    })

  await Promise.all(Array.from({ length: Math.max(1, Math.min(connections, amount)) }, run))
  const secs = (performance.now() - t0) / 1000
  return { rps: answered / secs, answered, other: other + errors, errors }
}
