import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect, type AddressInfo, type Socket } from 'node:net'
import { appWith, expectError, type TestApp, type TestUser } from '../helpers/app.js'

/**
 * An import holds its whole file in memory while it runs, so an account runs one at a time: a
 * second, while the first is still being sent or written, is refused before its body is read.
 * The first import goes over a real socket so that it can be held half sent.
 */
describe('POST /api/urls/import, one at a time per account', () => {
  let t: TestApp
  let ada: TestUser
  let bob: TestUser
  let port: number
  beforeAll(async () => {
    ;[t, ada, bob] = await appWith({ plan: 'pro' }, { plan: 'pro' })
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    port = (t.app.server.address() as AddressInfo).port
  })
  afterAll(() => t.close())

  const csv = (prefix: string, n: number) => `url,alias\n${Array.from({ length: n }, (_, i) => `https://example.com/${prefix}/${i},${prefix}-${i}`).join('\n')}\n`

  /** An import whose body is sent up to `part` bytes and then waits; `finish()` sends the rest and reads the answer. */
  async function halfSent(user: TestUser, body: string, part: number): Promise<{ socket: Socket; finish(): Promise<{ status: number; body: any }> }> {
    const socket = connect(port, '127.0.0.1')
    await new Promise((r) => socket.once('connect', r))
    const head = `POST /api/urls/import HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${user.key}\r\nContent-Type: text/csv\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`
    socket.write(head + body.slice(0, part))
    let text = ''
    socket.on('data', (c) => (text += c.toString()))
    const closed = new Promise<void>((r) => socket.on('close', () => r()))
    // its headers reach the route before any probe does (a probe first would take the place itself)
    await new Promise((r) => setTimeout(r, 300))
    return {
      socket,
      async finish() {
        socket.write(body.slice(part))
        await closed
        const [headers, payload] = text.split('\r\n\r\n', 2)
        return { status: Number(headers.split(' ')[1]), body: JSON.parse(payload) }
      },
    }
  }

  const importNow = (user: TestUser, body: string) => user.api.post('/api/urls/import', body, { 'content-type': 'text/csv' })
  /** Polls a few times, slowly: every probe spends the key's budget of 30 requests a minute. */
  async function eventually(check: () => Promise<boolean>, what: string) {
    for (let i = 0; i < 8; i++) {
      if (await check()) return
      await new Promise((r) => setTimeout(r, 150))
    }
    throw new Error(`never happened: ${what}`)
  }
  /** Whether the account's place is taken: an empty file is a 400 when it is free, and writes nothing either way. */
  const taken = async (user: TestUser) => (await importNow(user, '')).statusCode === 409

  it("refuses an account's second import while its first is sent, before reading it; another account's goes on; once the first is answered the next is taken", async () => {
    const first = await halfSent(ada, csv('first', 50), 100)
    // the first has claimed its place once its headers are in 
    await eventually(() => taken(ada), 'a second import refused')

    const second = await importNow(ada, csv('second', 3))
    expectError(second, 409, /An import is already running for this account: wait for it to finish/)
    const bobs = await importNow(bob, csv('bob', 2))
    expect(bobs.statusCode).toBe(200)
    expect(bobs.json().imported).toBe(2)

    const done = await first.finish()
    expect(done.status).toBe(200)
    expect(done.body.imported).toBe(50)
    // nothing of the refused ones was written
    for (const alias of ['second-0']) expect((await ada.api.get(`/api/urls?q=${alias}`)).json().data.urls).toEqual([])

    const after = await importNow(ada, csv('second', 3))
    expect(after.statusCode).toBe(200)
    expect(after.json().imported).toBe(3)
  })

  it('a refused or abandoned import gives its place back', async () => {
    // a body that is not CSV or JSON: answered 415 by the route, and the next import is taken
    const wrong = await ada.api.post('/api/urls/import', 'x', { 'content-type': 'text/plain' })
    expect(wrong.statusCode).toBe(415)
    expect((await importNow(ada, csv('after-415', 1))).statusCode).toBe(200)

    // a client that goes away half way through sending its file
    const left = await halfSent(ada, csv('left', 50), 100)
    await eventually(() => taken(ada), 'the half-sent import holds its place')
    left.socket.destroy()
    await eventually(async () => !(await taken(ada)), 'the place given back after the client left')
  })
})
