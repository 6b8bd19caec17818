import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect, type AddressInfo } from 'node:net'
import { appWith, expectError, type TestApp, type TestUser } from '../helpers/app.js'
import { csrfTokenFor } from '../../src/http/session-auth.js'
import { SESSION_COOKIE } from '../../src/accounts/sessions.js'

/**
 * A request refused before its body is read is answered whole and the connection closed, so that
 * the server does not read the rest of the body off the wire. Over real sockets: app.inject has no
 * connection to keep or close.
 */
describe('bodies refused before they are read', () => {
  let t: TestApp
  let pro: TestUser
  let origin: string
  let port: number
  /** bytes the server read from the sockets that closed */
  let bytesRead = 0
  beforeAll(async () => {
    ;[t, pro] = await appWith({ plan: 'pro' })
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    port = (t.app.server.address() as AddressInfo).port
    origin = `http://127.0.0.1:${port}`
    t.app.server.on('connection', (s) => s.on('close', () => (bytesRead += s.bytesRead)))
  })
  afterAll(() => t.close())

  const MiB = 1024 * 1024
  const bigJson = (size: number) => JSON.stringify({ url: 'https://example.com/big', pad: 'x'.repeat(size) })
  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${origin}${path}`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } })
  /** The answer app.inject gets for the same request with a small body: what a client always got. */
  const injected = async (path: string, headers: Record<string, string> = {}, payload = '{}', contentType = 'application/json') => {
    const res = await t.app.inject({ method: 'POST', url: path, payload, headers: { 'content-type': contentType, ...headers } })
    return { status: res.statusCode, body: res.json() }
  }

  it('a 1 MiB body without a key gets the 401 whole, and the connection is closed', async () => {
    const res = await post('/api/url/add', bigJson(MiB - 100))
    expect(res.headers.get('connection')).toBe('close')
    expect({ status: res.status, body: await res.json() }).toEqual(await injected('/api/url/add'))
    expect(res.status).toBe(401)
  })

  it('a wrong key, a session without its CSRF header and an ended session keep their answers', async () => {
    const big = bigJson(MiB - 100)
    const wrongKey = { authorization: 'Bearer wrong-key-0123456789abcdefghijkl' }
    const noCsrf = { cookie: `${SESSION_COOKIE}=no-such-session` }
    const ended = { ...noCsrf, 'x-csrf-token': csrfTokenFor(t.app.keys, 'no-such-session') }
    for (const [headers, status] of [[wrongKey, 401], [noCsrf, 403], [ended, 401]] as const) {
      const res = await post('/api/url/add', big, headers)
      expect(res.headers.get('connection')).toBe('close')
      const answer = { status: res.status, body: await res.json() }
      expect(answer).toEqual(await injected('/api/url/add', headers))
      expect(answer.status).toBe(status)
    }
  })

  it('the v1 interface keeps its own 401 for a big form body without a key', async () => {
    const form = `url=${encodeURIComponent('https://example.com/v1')}&pad=${'x'.repeat(MiB - 100)}`
    const res = await fetch(`${origin}/api/v1/links`, { method: 'POST', body: form, headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    expect(res.headers.get('connection')).toBe('close')
    expect({ status: res.status, body: await res.json() }).toEqual(await injected('/api/v1/links', {}, 'url=x', 'application/x-www-form-urlencoded'))
    expect(res.status).toBe(401)
  })

  it('an unrouted path is answered 404 without reading its body (not parsed: not a 400 for bad JSON)', async () => {
    const res = await post('/api/no-such-route', `{"bad json${'x'.repeat(MiB - 100)}`)
    expect(res.status).toBe(404)
    expect(await res.json()).toEqual({ error: 1, message: 'No route POST /api/no-such-route.' })
  })

  it('a key with a body is answered on a kept connection; a body over the limit is still the 413', async () => {
    const ok = await post('/api/url/add', JSON.stringify({ url: 'https://example.com/kept', custom: 'kept-body' }), { authorization: `Bearer ${pro.key}` })
    expect(ok.status).toBe(200)
    expect(ok.headers.get('connection')).toBe('keep-alive')
    expect((await ok.json()).shorturl).toBe('http://kurz.test/kept-body')
    // just under the limit: read whole (the pad is an unknown field, ignored), and the connection kept
    const near = await post('/api/url/add', bigJson(MiB - 200), { authorization: `Bearer ${pro.key}` })
    expect(near.status).toBe(200)
    expect(near.headers.get('connection')).toBe('keep-alive')
    expect((await near.json()).error).toBe(0)
    const over = await post('/api/url/add', bigJson(2 * MiB), { authorization: `Bearer ${pro.key}` })
    expect(over.status).toBe(413)
    expect(await over.json()).toEqual({ error: 1, message: 'Request body is too large: the limit is 1 MiB.' })
  })

  it('does not wait for the rest of a refused body: the answer comes and the connection ends', async () => {
    const socket = connect(port, '127.0.0.1')
    await new Promise((r) => socket.once('connect', r))
    const before = bytesRead
    let text = ''
    socket.on('data', (c) => (text += c.toString()))
    const ended = new Promise<boolean>((resolve) => {
      socket.on('end', () => resolve(true))
      setTimeout(() => resolve(false), 3_000)
    })
    // 64 KiB of a 1 MiB body, and then nothing more
    socket.write(`POST /api/url/add HTTP/1.1\r\nHost: kurz.test\r\nContent-Type: application/json\r\nContent-Length: ${MiB}\r\n\r\n${'x'.repeat(64 * 1024)}`)
    expect(await ended).toBe(true)
    socket.destroy()
    const [head, payload] = text.split('\r\n\r\n', 2)
    expect(head).toMatch(/^HTTP\/1\.1 401 /)
    expect(head).toMatch(/\r\nconnection: close\r\n/i)
    expect(expectError({ statusCode: 401, json: () => JSON.parse(payload) } as never, 401)).toBeTruthy()
    await new Promise((r) => setTimeout(r, 50))
    expect(bytesRead - before).toBeLessThan(MiB)
  })
})
