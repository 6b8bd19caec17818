import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { blockedReason, normaliseHost, safeFetch, SsrfError, type SafeFetchOptions } from '../../src/lib/ssrf.js'
import { closeServer, listenLocally } from '../helpers/local-server.js'
import { rejectionOf } from '../helpers/rejection.js'

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex')

const refusal = (p: Promise<unknown>) => rejectionOf(p, SsrfError, 'expected an SsrfError, the fetch succeeded')

describe('blockedReason: the CHECKLIST host table, as addresses', () => {
  it.each([
    '127.0.0.1',
    '127.255.255.254',
    '::1',
    '[::1]',
    '10.0.0.1',
    '10.255.255.255',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.0.1',
    '192.168.255.255',
    'fc00::1',
    'fd12:3456:789a::1',
    '169.254.169.254',
    'fe80::',
    'fe80::1%eth0',
    '0.0.0.0',
    '::',
    '240.0.0.1',
    '255.255.255.255',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '0:0:0:0:0:ffff:7f00:1',
    '::ffff:169.254.169.254',
    '::ffff:10.0.0.1',
    '::127.0.0.1',
    '100.64.0.1',
    '224.0.0.1',
    'ff02::1',
    'fec0::1',
    '64:ff9b::127.0.0.1',
    '64:ff9b::a9fe:a9fe',
    '2002:7f00:1::1',
    '2001:db8::1',
    '2001::1',
    '192.0.2.1',
    '198.18.0.1',
    '::2',
  ])('refuses %s', (address) => {
    expect(blockedReason(address)).toEqual(expect.any(String))
  })

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '64:ff9b::8.8.8.8', '2002:808:808::1', '::ffff:8.8.8.8'])(
    'accepts the public address %s',
    (address) => {
      expect(blockedReason(address)).toBeNull()
    },
  )

  it('names why an address is refused', () => {
    expect(blockedReason('169.254.169.254')).toBe('link-local (cloud metadata)')
    expect(blockedReason('::ffff:127.0.0.1')).toBe('IPv4-mapped loopback')
    expect(blockedReason('10.1.2.3')).toBe('private')
    expect(blockedReason('fc00::1')).toBe('private (unique local fc00::/7)')
  })

  it('allowLoopback (tests only) lets loopback through and nothing else', () => {
    expect(blockedReason('127.0.0.1', { allowLoopback: true })).toBeNull()
    expect(blockedReason('::1', { allowLoopback: true })).toBeNull()
    expect(blockedReason('10.0.0.1', { allowLoopback: true })).toBe('private')
    expect(blockedReason('169.254.169.254', { allowLoopback: true })).toBe('link-local (cloud metadata)')
  })

  it('normaliseHost drops brackets and trailing dots and lowers case', () => {
    expect(normaliseHost('[::1]')).toBe('::1')
    expect(normaliseHost('LocalHost.')).toBe('localhost')
  })
})

describe('safeFetch refuses local hosts in every spelling (nothing is contacted)', () => {
  const opts: SafeFetchOptions = { maxBytes: 1024, ports: 'any' }
  it.each([
    'http://127.0.0.1/',
    'http://127.255.255.254/',
    'http://[::1]/',
    'http://10.0.0.1/',
    'http://172.16.0.1/',
    'http://192.168.1.1/',
    'http://[fc00::1]/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[fe80::]/',
    'http://0.0.0.0/',
    'http://[::]/',
    'http://240.0.0.1/',
    'http://255.255.255.255/',
    'http://[::ffff:127.0.0.1]/',
    'http://[0:0:0:0:0:ffff:7f00:1]/',
    'http://2130706433/', // decimal
    'http://017700000001/', // octal
    'http://0x7f000001/', // hex
    'http://0x7f.0.0.1/',
    'http://0177.0.0.1/',
    'http://127.1/',
    'http://127.0.0.1./', // trailing dot
    'http://localhost/',
    'http://localhost./',
    'http://LOCALHOST:8080/',
    'http://[::ffff:a9fe:a9fe]/', // mapped metadata
    'https://2852039166/', // 169.254.169.254 as decimal
  ])('%s → blocked_address', async (url) => {
    const err = await refusal(safeFetch(url, opts))
    expect(err.code).toBe('blocked_address')
    expect(err.message).toMatch(/address, which is not allowed$/)
  })

  it.each(['http://', 'http:///', 'not a url', 'http://user:pass@example.com/', 'ftp://example.com/x', 'file:///etc/passwd', 'javascript:alert(1)'])(
    '%s → bad_url',
    async (url) => {
      expect((await refusal(safeFetch(url, opts))).code).toBe('bad_url')
    },
  )

  it('treats a DNS answer that mixes public and private addresses as local', async () => {
    const err = await refusal(
      safeFetch('http://mixed.example/', {
        ...opts,
        resolve: async () => [
          { address: '93.184.216.34', family: 4 },
          { address: '10.0.0.7', family: 4 },
        ],
      }),
    )
    expect(err.code).toBe('blocked_address')
  })

  it('refuses a scheme the caller does not allow and non-standard ports by default', async () => {
    expect((await refusal(safeFetch('http://93.184.216.34/', { maxBytes: 10, protocols: ['https:'] }))).message).toBe('must use https')
    expect((await refusal(safeFetch('https://93.184.216.34:22/', { maxBytes: 10 }))).message).toBe('must use a standard port (80, 443, 8080, 8443)')
  })

  it('reports a host that does not resolve', async () => {
    const err = await refusal(safeFetch('http://does-not-exist.invalid/', opts))
    expect(err.code).toBe('dns')
  })

  it('tells a resolver that failed (no answer about the name) from a name that does not exist', async () => {
    const failing = (code: string) => async () => {
      throw Object.assign(new Error(`getaddrinfo ${code} x.example`), { code })
    }
    for (const code of ['EAI_AGAIN', 'ETIMEOUT', 'ESERVFAIL']) {
      const err = await refusal(safeFetch('http://x.example/', { ...opts, resolve: failing(code) }))
      expect(err).toMatchObject({ code: 'dns_unavailable', message: 'names a host that could not be looked up just now (x.example)' })
    }
    expect((await refusal(safeFetch('http://x.example/', { ...opts, resolve: failing('ENOTFOUND') }))).code).toBe('dns')
  })
})

describe('safeFetch against a local server', () => {
  let server: http.Server
  let base: string
  let hits = 0
  const big = Buffer.alloc(4096, 1)

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      hits++
      const url = new URL(req.url ?? '/', 'http://x')
      switch (url.pathname) {
        case '/logo.png':
          res.writeHead(200, { 'content-type': 'image/png; charset=binary' })
          return res.end(PNG)
        case '/host':
          res.writeHead(200, { 'content-type': 'text/plain' })
          return res.end(String(req.headers.host))
        case '/to-private':
          res.writeHead(302, { location: 'http://10.0.0.1/logo.png' })
          return res.end()
        case '/to-metadata':
          res.writeHead(301, { location: 'http://[::ffff:a9fe:a9fe]/latest/meta-data/' })
          return res.end()
        case '/to-hex-metadata':
          res.writeHead(302, { location: 'http://0xa9.0xfe.0xa9.0xfe/latest/meta-data/' })
          return res.end()
        case '/chain': {
          const n = Number(url.searchParams.get('n'))
          res.writeHead(302, { location: n > 0 ? `/chain?n=${n - 1}` : '/logo.png' })
          return res.end()
        }
        case '/big-declared':
          res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(big.length) })
          return res.end(big)
        case '/big-chunked':
          res.writeHead(200, { 'content-type': 'image/png' })
          res.write(big.subarray(0, 1000))
          res.write(big.subarray(1000))
          return res.end()
        case '/slow-body':
          res.writeHead(200, { 'content-type': 'image/png' })
          res.write(PNG.subarray(0, 4))
          return // never ends
        case '/silent':
          return // never answers
        case '/html':
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          return res.end('<html><title>x</title></html>')
        case '/missing':
          res.writeHead(404, { 'content-type': 'image/png' })
          return res.end()
        default:
          res.writeHead(500)
          return res.end()
      }
    })
    base = await listenLocally(server)
  })
  afterAll(() => closeServer(server))

  const local: SafeFetchOptions = { maxBytes: 2048, ports: 'any', allowLoopback: true, contentTypes: ['image/png', 'image/jpeg'] }

  it('without allowLoopback, the local server is refused before any request', async () => {
    const before = hits
    expect((await refusal(safeFetch(`${base}/logo.png`, { maxBytes: 2048, ports: 'any' }))).code).toBe('blocked_address')
    expect(hits).toBe(before)
  })

  it('fetches an allowed body and reports its type', async () => {
    const res = await safeFetch(`${base}/logo.png`, local)
    expect(res).toEqual({ url: `${base}/logo.png`, status: 200, contentType: 'image/png', body: PNG })
  })

  it('connects to the address it resolved, keeping the Host header of the name (DNS rebinding safe)', async () => {
    const port = (server.address() as AddressInfo).port
    let calls = 0
    const res = await safeFetch(`http://rebind.example:${port}/host`, {
      ...local,
      contentTypes: ['text/plain'],
      resolve: async () => {
        calls++
        return [{ address: '127.0.0.1', family: 4 }]
      },
    })
    expect(calls).toBe(1)
    expect(res.body.toString()).toBe(`rebind.example:${port}`)
  })

  it.each(['/to-private', '/to-metadata'])('aborts a redirect %s to a local address', async (path) => {
    const err = await refusal(safeFetch(`${base}${path}`, local))
    expect(err.code).toBe('blocked_address')
  })

  it('re-checks every hop: a redirect to the metadata address spelled in hex is refused', async () => {
    const err = await refusal(safeFetch(`${base}/to-hex-metadata`, local))
    expect(err.code).toBe('blocked_address')
    expect(err.message).toBe('points at a link-local (cloud metadata) address, which is not allowed')
  })

  it('follows up to 3 redirects and refuses the 4th', async () => {
    expect((await safeFetch(`${base}/chain?n=2`, local)).body).toEqual(PNG)
    const err = await refusal(safeFetch(`${base}/chain?n=3`, local))
    expect(err.code).toBe('too_many_redirects')
    expect(err.message).toBe('redirected more than 3 times')
  })

  it.each(['/big-declared', '/big-chunked'])('aborts an oversize body (%s)', async (path) => {
    const err = await refusal(safeFetch(`${base}${path}`, local))
    expect(err.code).toBe('too_large')
    expect(err.message).toBe('answered with more than 2 KiB')
  })

  it.each(['/slow-body', '/silent'])('aborts a server that is too slow (%s)', async (path) => {
    const err = await refusal(safeFetch(`${base}${path}`, { ...local, timeoutMs: 300 }))
    expect(err.code).toBe('timeout')
  })

  it('refuses a content type the caller does not accept', async () => {
    const err = await refusal(safeFetch(`${base}/html`, local))
    expect(err.code).toBe('bad_type')
    expect(err.message).toBe('answered with content type "text/html", which is not accepted')
  })

  it('refuses a non-2xx status', async () => {
    const err = await refusal(safeFetch(`${base}/missing`, local))
    expect(err.code).toBe('http_status')
    expect(err.message).toBe('answered with HTTP status 404')
  })
})
