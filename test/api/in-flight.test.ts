import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect, type AddressInfo, type Socket } from 'node:net'
import { LIMIT, QUEUE } from '../../src/http/in-flight.js'
import { testApp, type TestApp, type TestUser } from '../helpers/app.js'

/*
 * One API key (or dashboard session) has at most LIMIT requests handled at once; its others wait
 * their turn, up to QUEUE, then 429; another key is not held up. Over real sockets: a POST whose
 * body is still arriving holds its place, as a slow heavy request does.
 */
describe('requests handled at once, per key', () => {
  let t: TestApp
  let port: number
  let alice: TestUser
  let bob: TestUser
  const held: Socket[] = []
  beforeAll(async () => {
    t = await testApp({ RATE_LIMIT_MAX: '1000' })
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    port = (t.app.server.address() as AddressInfo).port
    alice = await t.makeUser()
    bob = await t.makeUser()
  })
  afterAll(async () => {
    for (const s of held) s.destroy()
    await t.close()
  })

  const BODY = JSON.stringify({ url: 'https://example.com/slow' })
  /** A link create whose body has not all arrived: it is being handled until the rest comes. */
  const slowCreate = (key: string) =>
    new Promise<{ socket: Socket; answer: Promise<string> }>((opened) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(`POST /api/url/add HTTP/1.1\r\nHost: kurz.test\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${BODY.length}\r\nConnection: close\r\n\r\n${BODY.slice(0, 5)}`)
        opened({ socket, answer })
      })
      let text = ''
      const answer = new Promise<string>((done) => {
        socket.on('data', (c) => (text += c.toString()))
        socket.on('close', () => done(text.split(' ')[1] ?? 'no answer'))
        socket.on('error', () => {})
      })
    })
  const list = (key: string) => fetch(`http://127.0.0.1:${port}/api/urls`, { headers: { authorization: `Bearer ${key}`, host: 'kurz.test' } })
  const settled = (p: Promise<unknown>, ms: number) => Promise.race([p.then(() => true), new Promise((r) => setTimeout(() => r(false), ms))])

  it('queues a key’s requests past the limit until one ends, answers 429 past the queue, and never holds up another key', async () => {
    const slow = await Promise.all(Array.from({ length: LIMIT }, () => slowCreate(alice.key)))
    held.push(...slow.map((s) => s.socket))
    // their handlers wait for the rest of the body; wait until all have passed authentication
    await new Promise((r) => setTimeout(r, 300))

    const waiting = list(alice.key)
    expect(await settled(waiting, 500)).toBe(false)
    // another key is answered at once
    expect((await list(bob.key)).status).toBe(200)

    // the queue is QUEUE long: one more past it is refused at once
    const queued = Array.from({ length: QUEUE - 1 }, () => list(alice.key))
    const refused = await list(alice.key)
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toBe('1')
    expect((await refused.json()).message).toBe(`Too many requests at once: ${LIMIT} are handled at a time and ${QUEUE} more may wait. Wait for answers before sending more.`)

    // one slow request finishes: the queue moves, in order, and everything waiting is answered
    slow[0].socket.write(BODY.slice(5))
    expect(await slow[0].answer).toBe('200')
    expect((await waiting).status).toBe(200)
    // the other slow ones leave without finishing: their places are given back too
    for (const s of slow.slice(1)) s.socket.destroy()
    expect((await Promise.all(queued)).map((r) => r.status)).toEqual(Array(QUEUE - 1).fill(200))
    // every place was given back: LIMIT - 1 slow requests leave room for one more
    const again = await Promise.all(Array.from({ length: LIMIT - 1 }, () => slowCreate(alice.key)))
    held.push(...again.map((s) => s.socket))
    await new Promise((r) => setTimeout(r, 300))
    expect(await settled(list(alice.key), 2_000)).toBe(true)
  })
  it('a request whose client leaves after sending all of it, queued or running, gives its place back', async () => {
    const slow = await Promise.all(Array.from({ length: LIMIT }, () => slowCreate(bob.key)))
    held.push(...slow.map((s) => s.socket))
    await new Promise((r) => setTimeout(r, 300))
    // a whole request, queued behind them; its client leaves
    const gone = connect(port, '127.0.0.1', () => gone.write(`GET /api/urls HTTP/1.1\r\nHost: kurz.test\r\nAuthorization: Bearer ${bob.key}\r\n\r\n`))
    gone.on('error', () => {})
    await new Promise((r) => setTimeout(r, 200))
    gone.destroy()
    // the slow ones finish
    for (const s of slow) s.socket.write(BODY.slice(5))
    expect(await Promise.all(slow.map((s) => s.answer))).toEqual(Array(LIMIT).fill('200'))
    // LIMIT - 1 held again leave room for one: nothing was kept by the request whose client left
    const again = await Promise.all(Array.from({ length: LIMIT - 1 }, () => slowCreate(bob.key)))
    held.push(...again.map((s) => s.socket))
    await new Promise((r) => setTimeout(r, 300))
    expect(await settled(list(bob.key), 2_000)).toBe(true)
  })
  it('clients that leave while their requests are being authenticated take no place', async () => {
    const carol = await t.makeUser()
    // each request whole, its connection closed at once: most are gone before the key is checked
    await Promise.all(
      Array.from({ length: 100 }, () => new Promise<void>((done) => {
        const s = connect(port, '127.0.0.1', () => {
          s.write(`GET /api/urls HTTP/1.1\r\nHost: kurz.test\r\nAuthorization: Bearer ${carol.key}\r\n\r\n`)
          s.destroy()
          done()
        })
        s.on('error', () => {})
      })),
    )
    await new Promise((r) => setTimeout(r, 500))
    const slow = await Promise.all(Array.from({ length: LIMIT - 1 }, () => slowCreate(carol.key)))
    held.push(...slow.map((s) => s.socket))
    await new Promise((r) => setTimeout(r, 300))
    expect(await settled(list(carol.key), 2_000)).toBe(true)
  })
  it('an import whose client leaves at once keeps no place: the account’s next import is taken', async () => {
    const dan = await t.makeUser({ plan: 'pro' })
    const body = 'url,alias\nhttps://example.com/gone,gone-1\n'
    await Promise.all(
      Array.from({ length: 50 }, () => new Promise<void>((done) => {
        const s = connect(port, '127.0.0.1', () => {
          s.write(`POST /api/urls/import HTTP/1.1\r\nHost: kurz.test\r\nAuthorization: Bearer ${dan.key}\r\nContent-Type: text/csv\r\nContent-Length: ${body.length}\r\n\r\n${body}`)
          s.destroy()
          done()
        })
        s.on('error', () => {})
      })),
    )
    await new Promise((r) => setTimeout(r, 1_000))
    const res = await fetch(`http://127.0.0.1:${port}/api/urls/import?format=csv`, {
      method: 'POST',
      headers: { authorization: `Bearer ${dan.key}`, host: 'kurz.test', 'content-type': 'text/csv' },
      body: 'url,alias\nhttps://example.com/kept,kept-1\n',
    })
    expect(res.status, await res.clone().text()).toBe(200)
  })
})
