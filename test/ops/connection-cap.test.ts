import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect, type AddressInfo, type Socket } from 'node:net'
import { connectionCap, openFileLimit } from '../../src/http/connections.js'
import { loadConfig } from '../../src/config.js'
import { testApp, type TestApp } from '../helpers/app.js'
import { eventually } from '../helpers/wait.js'

/**
 * Clients holding connections open (headers sent a line at a time, idle keep-alives) must not take
 * every file descriptor: the click spool and the database need theirs. Over real sockets.
 */
describe('the cap on open connections', () => {
  let t: TestApp
  let port: number
  const held: Socket[] = []
  beforeAll(async () => {
    t = await testApp({ MAX_CONNECTIONS: '3' })
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    port = (t.app.server.address() as AddressInfo).port
  })
  afterAll(async () => {
    for (const s of held) s.destroy()
    await t.close()
  })

  /** A connection that sends half a request and waits, as a slow client does. */
  const slowClient = () =>
    new Promise<Socket>((opened, fail) => {
      const s = connect(port, '127.0.0.1', () => {
        s.write('GET /healthz HTTP/1.1\r\nHost: x\r\n')
        opened(s)
      })
      s.on('error', fail)
    })

  /** A whole request on a fresh connection: its status, or how the connection ended without one. */
  const request = () =>
    new Promise<string>((done) => {
      const s = connect(port, '127.0.0.1', () => s.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'))
      let text = ''
      s.on('data', (c) => (text += c.toString()))
      s.on('error', (err) => done((err as NodeJS.ErrnoException).code ?? 'error'))
      s.on('close', () => done(text ? text.split(' ')[1] : 'closed without an answer'))
    })

  const metric = async (name: string) => {
    const res = await t.app.inject({ method: 'GET', url: '/metrics' })
    return Number(new RegExp(`^${name} (\\d+)`, 'm').exec(res.body)?.[1])
  }

  it('serves up to the cap, closes connections past it, counts them, and serves again once one closes', async () => {
    expect(await request()).toBe('200')
    for (let i = 0; i < 3; i++) held.push(await slowClient())
    await eventually(async () => (await new Promise<number>((n) => t.app.server.getConnections((_e, c) => n(c)))) === 3, 'three connections open')

    expect(await request()).toMatch(/closed without an answer|ECONNRESET/)
    expect(await metric('kurz_connections_refused_total')).toBe(1)
    expect(await metric('kurz_connections_max')).toBe(3)

    // the held connections still work: one finishes its request and is answered
    const answer = new Promise<string>((done) => held[0].once('data', (c) => done(c.toString().split(' ')[1])))
    held[0].write('Connection: close\r\n\r\n')
    expect(await answer).toBe('200')
    await eventually(async () => (await request()) === '200', 'a new connection answered once one closed')
  })

  it('at the cap, idle keep-alive connections are closed to make room; one in the middle of a request is not', async () => {
    for (const s of held.splice(0)) s.destroy()
    await eventually(async () => (await new Promise<number>((n) => t.app.server.getConnections((_e, c) => n(c)))) === 0, 'no connection open')
    await new Promise((r) => setTimeout(r, 1100)) // past the last pass's 1 s
    const slow = await slowClient()
    held.push(slow)
    // two clients keep their connections after a whole request (HTTP/1.1 keep-alive)
    const idle = await Promise.all(
      [0, 1].map(
        () =>
          new Promise<Socket>((ready, fail) => {
            const s = connect(port, '127.0.0.1', () => s.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'))
            s.once('data', () => ready(s))
            s.on('error', fail)
            held.push(s)
          }),
      ),
    )
    const closed = idle.map((s) => new Promise<void>((r) => s.once('close', () => r())))
    const refused = await metric('kurz_connections_refused_total')

    // a fourth is refused, and the two idle ones are closed; the next one is served
    expect(await request()).toMatch(/closed without an answer|ECONNRESET/)
    await Promise.all(closed)
    expect(await metric('kurz_connections_refused_total')).toBe(refused + 1)
    expect(await request()).toBe('200')
    // the slow client's request was left alone: it is still answered when it ends
    const answer = new Promise<string>((done) => slow.once('data', (c) => done(c.toString().split(' ')[1])))
    slow.write('Connection: close\r\n\r\n')
    expect(await answer).toBe('200')
  })
})

describe('what the cap is by default', () => {
  const limits = (soft: string) => `Limit                     Soft Limit           Hard Limit           Units\nMax open files            ${soft}                20000                files\n`

  it('reads the soft open-file limit, and none where it cannot be read', () => {
    expect(openFileLimit(() => limits('20000'))).toBe(20000)
    expect(openFileLimit(() => limits('unlimited'))).toBeNull()
    expect(
      openFileLimit(() => {
        throw new Error('ENOENT')
      }),
    ).toBeNull()
    // this machine's own, as the server reads it
    if (process.platform === 'linux') expect(openFileLimit()).toBeGreaterThan(0)
  })

  it('keeps 1,024 descriptors, or a quarter of a small limit, for Kurz itself; MAX_CONNECTIONS overrides it', () => {
    expect(connectionCap(undefined, 20000)).toBe(18976)
    expect(connectionCap(undefined, 1024)).toBe(768)
    expect(connectionCap(undefined, null)).toBeNull()
    expect(connectionCap(500, 20000)).toBe(500)
  })

  it('MAX_CONNECTIONS must be a whole number from 1', () => {
    expect(loadConfig({ MAX_CONNECTIONS: '250' }).maxConnections).toBe(250)
    expect(loadConfig({}).maxConnections).toBeUndefined()
    for (const bad of ['0', '-5', '2.5', 'many']) expect(() => loadConfig({ MAX_CONNECTIONS: bad })).toThrow(/MAX_CONNECTIONS must be a whole number of connections from 1 up/)
  })
})
