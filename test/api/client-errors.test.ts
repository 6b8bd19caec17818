import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect } from 'node:net'
import type { AddressInfo } from 'node:net'
import { testApp, type TestApp, type TestUser } from '../helpers/app.js'

/**
 * What Node's HTTP parser refuses never reaches a route, so these go over a real socket: the
 * answer must still be the contract's envelope ({error: 1, message}), with `status` on v1.
 */
describe('requests the HTTP parser refuses', () => {
  let t: TestApp
  let u: TestUser
  let port: number
  beforeAll(async () => {
    t = await testApp()
    u = await t.makeUser()
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    port = (t.app.server.address() as AddressInfo).port
  })
  afterAll(() => t.close())

  /** Sends raw bytes and reads the whole answer (the server closes the connection after it). */
  const raw = (request: Buffer | string) =>
    new Promise<{ status: number; headers: string; body: any }>((done, fail) => {
      const socket = connect(port, '127.0.0.1', () => socket.end(request))
      const chunks: Buffer[] = []
      socket.on('data', (c) => chunks.push(c))
      socket.on('error', fail)
      socket.on('close', () => {
        const text = Buffer.concat(chunks).toString('utf8')
        const [head, body] = text.split('\r\n\r\n', 2)
        done({ status: Number(head.split(' ')[1]), headers: head, body: JSON.parse(body) })
      })
    })
  const auth = () => `Authorization: Bearer ${u.key}\r\n`

  it('a raw byte outside ASCII in the query is a 400 envelope that says to percent-encode', async () => {
    const res = await raw(Buffer.concat([Buffer.from('GET /api/urls?q='), Buffer.from('ü'), Buffer.from(` HTTP/1.1\r\nHost: x\r\n${auth()}\r\n`)]))
    expect(res.status).toBe(400)
    expect(res.headers).toMatch(/content-type: application\/json/i)
    expect(res.body).toEqual({ error: 1, message: expect.stringMatching(/percent-encode/) })
  })

  it('a control character in a header value is a 400 envelope naming the header', async () => {
    const res = await raw(`GET /api/urls HTTP/1.1\r\nHost: x\r\n${auth()}X-Bad: a\u0001b\r\n\r\n`)
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ error: 1, message: expect.stringMatching(/header/) })
  })

  it('a Content-Length that is not a number is a 400 envelope; on v1 it carries its status', async () => {
    const mgmt = await raw(`POST /api/url/add HTTP/1.1\r\nHost: x\r\n${auth()}Content-Length: abc\r\n\r\n`)
    expect(mgmt.status).toBe(400)
    expect(mgmt.body).toEqual({ error: 1, message: expect.stringMatching(/Content-Length/) })
    const v1 = await raw(`POST /api/v1/links HTTP/1.1\r\nHost: x\r\n${auth()}Content-Length: abc\r\n\r\n`)
    expect(v1.body).toEqual({ error: 1, status: 400, message: expect.stringMatching(/Content-Length/) })
  })

  it('headers over the size limit are a 431 envelope', async () => {
    const res = await raw(`GET /api/account HTTP/1.1\r\nHost: x\r\n${auth()}Cookie: ${'a=b; '.repeat(4000)}\r\n\r\n`)
    expect(res.status).toBe(431)
    expect(res.body).toEqual({ error: 1, message: expect.stringMatching(/headers are too large/) })
  })

  it('a well-formed request on the same server is still served', async () => {
    const res = await t.api(u.key).get('/api/account')
    expect(res.statusCode).toBe(200)
  })
})
