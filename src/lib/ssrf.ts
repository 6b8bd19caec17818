import { lookup as dnsLookup } from 'node:dns/promises'
import http from 'node:http'
import https from 'node:https'
import { isIP, type LookupFunction } from 'node:net'

/**
 * The SSRF-guarded fetch (CHECKLIST "SSRF"): every outbound request the service makes on a user's
 * behalf (QR logos, page titles) goes through `safeFetch`.
 *
 * - The host is resolved once (all addresses); if ANY address is not a public unicast address the
 *   request is refused, so mixed public/private DNS answers are treated as local.
 * - The connection goes to that resolved address (DNS rebinding cannot swap it afterwards), while
 *   the Host header, SNI and certificate check keep the real host name.
 * - Redirects are followed by hand, at most `maxRedirects`, and every hop is checked again.
 * - One deadline covers DNS, connect, headers and body; the body is capped while it streams.
 */

export type SsrfErrorCode =
  | 'bad_url'
  | 'blocked_address'
  | 'dns'
  | 'dns_unavailable'
  | 'timeout'
  | 'too_large'
  | 'bad_type'
  | 'http_status'
  | 'too_many_redirects'
  | 'network'

/** getaddrinfo's and c-ares' codes for a lookup that failed without an answer about the name: the resolver away or slow */
const TEMPORARY_DNS = new Set(['EAI_AGAIN', 'ETIMEOUT', 'ESERVFAIL', 'ECONNREFUSED', 'EREFUSED', 'ENOMEM'])

/** A refusal or failure; `message` is a sentence fragment a person can act on ("the host … is private"). */
export class SsrfError extends Error {
  constructor(
    readonly code: SsrfErrorCode,
    message: string,
    /** the HTTP status answered, for http_status and too_many_redirects */
    readonly status?: number,
  ) {
    super(message)
    this.name = 'SsrfError'
  }
}

export interface SafeFetchOptions {
  /** largest body accepted, in bytes */
  maxBytes: number
  /** media types (lower-case, no parameters) accepted; absent = any */
  contentTypes?: readonly string[]
  /** URL schemes allowed for the first request and every redirect [https, http] */
  protocols?: readonly ('https:' | 'http:')[]
  /** total deadline in ms, DNS to last byte [3000] */
  timeoutMs?: number
  /** redirects followed, each re-checked [3] */
  maxRedirects?: number
  /** ports allowed [80, 443, 8080, 8443]; 'any' for tests */
  ports?: readonly number[] | 'any'
  headers?: Record<string, string>
  /** TESTS ONLY: treat loopback addresses (127/8, ::1) as public, so a local server can be reached */
  allowLoopback?: boolean
  /** ALLOW_PRIVATE_TARGETS: also reach private, loopback, CGNAT and unique-local addresses (intranets) */
  allowPrivate?: boolean
  /** GET [default], POST with `body` (webhook deliveries), or HEAD (link health checks) */
  method?: 'GET' | 'POST' | 'HEAD'
  body?: string | Buffer
  /** resolver override (tests: a DNS answer with mixed addresses); default dns.lookup all */
  resolve?: (host: string) => Promise<{ address: string; family: number }[]>
}

export interface SafeFetchResult {
  /** the final URL, after redirects */
  url: string
  status: number
  /** media type without parameters, lower-case ('' when absent) */
  contentType: string
  body: Buffer
}

const DEFAULT_PORTS = [80, 443, 8080, 8443]

// ---------------------------------------------------------------------------------------------
// Address classification

const V4_BLOCKED: [string, number, string][] = [
  ['0.0.0.0', 8, 'unspecified ("this network")'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (cloud metadata)'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved (IETF protocol assignments)'],
  ['192.0.2.0', 24, 'reserved (documentation)'],
  ['192.88.99.0', 24, 'reserved (6to4 relay)'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved (benchmarking)'],
  ['198.51.100.0', 24, 'reserved (documentation)'],
  ['203.0.113.0', 24, 'reserved (documentation)'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved (including broadcast)'],
]
const v4Ranges: { net: number; mask: number; why: string }[] = V4_BLOCKED.map(([a, bits, why]) => {
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0
  return { net: (v4ToInt(a)! & mask) >>> 0, mask, why }
})

function v4ToInt(a: string): number | null {
  const parts = a.split('.')
  if (parts.length !== 4) return null
  let n = 0
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p)) return null
    const v = Number(p)
    if (v > 255) return null
    n = n * 256 + v
  }
  return n >>> 0
}

/** Why an IPv4 address (dotted quad) is not public, or null when it is public. */
function v4Reason(a: string): string | null {
  const n = v4ToInt(a)
  if (n === null) return 'not a valid address'
  for (const r of v4Ranges) if (((n & r.mask) >>> 0) === r.net) return r.why
  return null
}

/** IPv6 text → 8 groups of 16 bits, or null. Accepts an embedded dotted quad at the end. */
export function v6Groups(input: string): number[] | null {
  let a = input.toLowerCase()
  const zone = a.indexOf('%')
  if (zone >= 0) a = a.slice(0, zone)
  const lastColon = a.lastIndexOf(':')
  if (lastColon < 0) return null
  let tail: number[] = []
  const last = a.slice(lastColon + 1)
  if (last.includes('.')) {
    const v4 = v4ToInt(last)
    if (v4 === null) return null
    tail = [v4 >>> 16, v4 & 0xffff]
    const prefix = a.slice(0, lastColon + 1)
    a = prefix.endsWith('::') ? prefix : a.slice(0, lastColon)
  }
  const want = 8 - tail.length
  const halves = a.split('::')
  if (halves.length > 2) return null
  const head = halves[0] ? halves[0].split(':') : []
  const rest = halves.length === 2 && halves[1] ? halves[1].split(':') : []
  if ([...head, ...rest].some((x) => !/^[0-9a-f]{1,4}$/.test(x))) return null
  if (halves.length === 1 ? head.length !== want : head.length + rest.length > want - 1) return null
  const zeros = new Array<number>(want - head.length - rest.length).fill(0)
  return [...head.map((x) => parseInt(x, 16)), ...zeros, ...rest.map((x) => parseInt(x, 16)), ...tail]
}

export const v4FromGroups = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`

/** Why an IPv6 address is not public, or null when it is a public unicast address. */
function v6Reason(a: string): string | null {
  const g = v6Groups(a)
  if (!g) return 'not a valid address'
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0)
  if (zeroUpTo(8)) return 'unspecified'
  if (zeroUpTo(7) && g[7] === 1) return 'loopback'
  // ::ffff:a.b.c.d (IPv4-mapped) and ::a.b.c.d (IPv4-compatible): judged as the IPv4 address
  if (zeroUpTo(5) && g[5] === 0xffff) {
    const why = v4Reason(v4FromGroups(g[6], g[7]))
    return why ? `IPv4-mapped ${why}` : null
  }
  if (zeroUpTo(6)) return 'reserved (IPv4-compatible)'
  // 64:ff9b::/96 NAT64 carries an IPv4 address: public only if that one is
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) {
    const why = v4Reason(v4FromGroups(g[6], g[7]))
    return why ? `NAT64 ${why}` : null
  }
  // 2002::/16 6to4 carries an IPv4 address in bits 16..48
  if (g[0] === 0x2002) {
    const why = v4Reason(v4FromGroups(g[1], g[2]))
    return why ? `6to4 ${why}` : null
  }
  if ((g[0] & 0xfe00) === 0xfc00) return 'private (unique local fc00::/7)'
  if ((g[0] & 0xffc0) === 0xfe80) return 'link-local'
  if ((g[0] & 0xffc0) === 0xfec0) return 'site-local'
  if ((g[0] & 0xff00) === 0xff00) return 'multicast'
  // only global unicast 2000::/3 is public, minus its special blocks
  if ((g[0] & 0xe000) !== 0x2000) return 'reserved'
  if (g[0] === 0x2001 && g[1] < 0x200) return 'reserved (IETF protocol assignments, Teredo)'
  if (g[0] === 0x2001 && g[1] === 0xdb8) return 'reserved (documentation)'
  if ((g[0] & 0xfff0) === 0x3ff0 && g[0] <= 0x3fff) return 'reserved (documentation)'
  return null
}

/**
 * Why an IP address (v4 or v6 text, brackets allowed) must not be contacted, or null when it is a
 * public unicast address.
 */
/** A blocked address said as a sentence fragment: "points at an IPv4-mapped loopback address, which is not allowed". */
export const pointsAtBlocked = (why: string) => `points at ${/^[aeiou]/i.test(why) ? 'an' : 'a'} ${why} address, which is not allowed`

export function blockedReason(address: string, opts: { allowLoopback?: boolean; allowPrivate?: boolean } = {}): string | null {
  const a = address.replace(/^\[|\]$/g, '')
  const family = isIP(a)
  const why = family === 4 ? v4Reason(a) : family === 6 ? v6Reason(a) : 'not an IP address'
  if (why && (opts.allowLoopback || opts.allowPrivate) && /loopback$/.test(why)) return null
  // the operator's intranet switch still keeps link-local (cloud metadata), multicast and reserved out
  if (why && opts.allowPrivate && /^(?:IPv4-mapped )?(?:private|carrier-grade NAT)/.test(why)) return null
  return why
}

/**
 * The host of a URL as it will be contacted: the WHATWG parser already turns decimal, octal and hex
 * IPv4 forms into dotted quads; here brackets and a trailing dot are dropped and case is lowered.
 */
export function normaliseHost(hostname: string): string {
  return hostname.replace(/^\[|\]$/g, '').replace(/\.+$/, '').toLowerCase()
}

// ---------------------------------------------------------------------------------------------
// Resolution and fetch

interface Target {
  url: URL
  host: string
  address: string
  family: 4 | 6
}

async function resolveTarget(raw: string | URL, o: SafeFetchOptions): Promise<Target> {
  let url: URL
  try {
    url = typeof raw === 'string' ? new URL(raw) : raw
  } catch {
    throw new SsrfError('bad_url', 'is not a valid URL')
  }
  const protocols = o.protocols ?? ['https:', 'http:']
  if (!protocols.includes(url.protocol as 'https:')) {
    throw new SsrfError('bad_url', `must use ${protocols.map((p) => p.slice(0, -1)).join(' or ')}`)
  }
  if (url.username || url.password) throw new SsrfError('bad_url', 'must not contain a user name or password')
  const host = normaliseHost(url.hostname)
  if (!host) throw new SsrfError('bad_url', 'must name a host')
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80
  const ports = o.ports ?? DEFAULT_PORTS
  if (ports !== 'any' && !ports.includes(port)) throw new SsrfError('bad_url', `must use a standard port (${ports.join(', ')})`)

  let addresses: { address: string; family: number }[]
  if (isIP(host)) {
    addresses = [{ address: host, family: isIP(host) }]
  } else {
    try {
      addresses = o.resolve ? await o.resolve(host) : await dnsLookup(host, { all: true, verbatim: true })
    } catch (err) {
      if (TEMPORARY_DNS.has((err as { code?: string }).code ?? '')) throw new SsrfError('dns_unavailable', `names a host that could not be looked up just now (${host})`)
      throw new SsrfError('dns', `names a host that does not resolve (${host})`)
    }
    if (addresses.length === 0) throw new SsrfError('dns', `names a host that does not resolve (${host})`)
  }
  for (const a of addresses) {
    const why = blockedReason(a.address, o)
    if (why) throw new SsrfError('blocked_address', pointsAtBlocked(why))
  }
  const first = addresses[0]
  return { url, host, address: first.address, family: first.family === 6 ? 6 : 4 }
}

/** A lookup that always answers the address already checked (the socket never resolves again). */
function pinnedLookup(t: Target): LookupFunction {
  return ((_host: string, opts: { all?: boolean }, cb: (...args: unknown[]) => void) => {
    if (opts?.all) cb(null, [{ address: t.address, family: t.family }])
    else cb(null, t.address, t.family)
  }) as unknown as LookupFunction
}

interface Hop {
  status: number
  location?: string
  contentType: string
  body?: Buffer
}

function requestOnce(t: Target, o: SafeFetchOptions, signal: AbortSignal, wantBody: (status: number, contentType: string, length: number | null) => void): Promise<Hop> {
  return new Promise<Hop>((resolve, reject) => {
    const mod = t.url.protocol === 'https:' ? https : http
    const req = mod.request(
      {
        protocol: t.url.protocol,
        // an IP literal is connected to as is; a name goes through the pinned lookup
        hostname: isIP(t.host) ? t.address : t.host,
        servername: isIP(t.host) ? undefined : t.host,
        port: t.url.port || undefined,
        path: `${t.url.pathname}${t.url.search}`,
        method: o.method ?? 'GET',
        lookup: pinnedLookup(t),
        agent: false,
        signal,
        headers: {
          'user-agent': 'Kurz/1.0 (+link service fetcher)',
          accept: '*/*',
          ...o.headers,
          // no compression: the size cap is on the bytes we keep, and decoders are an attack surface
          'accept-encoding': 'identity',
          host: t.url.host,
          ...(o.body !== undefined ? { 'content-length': String(Buffer.byteLength(o.body)) } : {}),
        },
      },
      (res) => {
        const status = res.statusCode ?? 0
        const contentType = String(res.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase()
        if (status >= 300 && status < 400 && res.headers.location) {
          res.resume()
          return resolve({ status, location: String(res.headers.location), contentType })
        }
        const lengthHeader = res.headers['content-length']
        const length = lengthHeader !== undefined && /^\d+$/.test(lengthHeader) ? Number(lengthHeader) : null
        try {
          wantBody(status, contentType, length)
        } catch (err) {
          reject(err)
          return res.destroy()
        }
        const chunks: Buffer[] = []
        let size = 0
        res.on('data', (chunk: Buffer) => {
          size += chunk.length
          if (size > o.maxBytes) {
            // reject before destroying: destroy() emits 'aborted' and 'error', whose rejections then lose
            reject(new SsrfError('too_large', `answered with more than ${formatBytes(o.maxBytes)}`))
            res.destroy()
            return
          }
          chunks.push(chunk)
        })
        res.on('end', () => resolve({ status, contentType, body: Buffer.concat(chunks) }))
        res.on('error', (err) => reject(err))
        res.on('aborted', () => reject(new SsrfError('network', 'closed the connection early')))
      },
    )
    req.on('error', (err) => reject(err))
    req.end(o.body)
  })
}

function formatBytes(n: number): string {
  return n % 1024 === 0 && n >= 1024 ? `${n / 1024} KiB` : `${n} bytes`
}

/**
 * GET a URL on a public host, with the guards described at the top of this file. Throws SsrfError
 * for every refusal and failure (wrong scheme, private address, timeout, too large, wrong type,
 * non-2xx status, too many redirects).
 */
export async function safeFetch(input: string, o: SafeFetchOptions): Promise<SafeFetchResult> {
  const timeoutMs = o.timeoutMs ?? 3000
  const maxRedirects = o.maxRedirects ?? 3
  const controller = new AbortController()
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    controller.abort()
  }, timeoutMs)
  const deadline = new Promise<never>((_, reject) => {
    controller.signal.addEventListener('abort', () => reject(new SsrfError('timeout', `did not answer within ${timeoutMs / 1000} s`)), { once: true })
  })
  deadline.catch(() => {})
  try {
    let current: string | URL = input
    for (let hop = 0; ; hop++) {
      const target: Target = await Promise.race([resolveTarget(current, o), deadline])
      const res: Hop = await Promise.race([
        requestOnce(target, o, controller.signal, (status, contentType, length) => {
          if (status < 200 || status >= 300) throw new SsrfError('http_status', `answered with HTTP status ${status}`, status)
          if (o.contentTypes && !o.contentTypes.includes(contentType)) {
            throw new SsrfError('bad_type', `answered with content type ${contentType ? `"${contentType.slice(0, 100)}"` : '(none)'}, which is not accepted`)
          }
          if (length !== null && length > o.maxBytes) throw new SsrfError('too_large', `answered with more than ${formatBytes(o.maxBytes)}`)
        }),
        deadline,
      ])
      if (res.location !== undefined) {
        if (hop >= maxRedirects) {
          throw new SsrfError('too_many_redirects', maxRedirects ? `redirected more than ${maxRedirects} times` : `answered with a redirect (${res.status}), which is not followed`, res.status)
        }
        try {
          current = new URL(res.location, target.url)
        } catch {
          throw new SsrfError('bad_url', 'redirected to an invalid URL')
        }
        continue
      }
      return { url: target.url.toString(), status: res.status, contentType: res.contentType, body: res.body ?? Buffer.alloc(0) }
    }
  } catch (err) {
    if (timedOut) throw new SsrfError('timeout', `did not answer within ${timeoutMs / 1000} s`)
    if (err instanceof SsrfError) throw err
    const code = (err as { code?: string })?.code
    throw new SsrfError('network', `could not be reached${code ? ` (${code})` : ''}`)
  } finally {
    clearTimeout(timer)
    controller.abort()
  }
}
