import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BusyError, Limiter } from '../../src/lib/limiter.js'
import { testApp, type TestApp, type TestUser } from '../helpers/app.js'

/* Issue 13 item 1: argon2 work for unauthenticated requests is bounded overall. */

describe('Limiter', () => {
  it('runs at most `concurrency` tasks, queues `queueMax` more, and refuses the rest at once', async () => {
    const l = new Limiter(2, 3)
    let running = 0
    let peak = 0
    const gates: (() => void)[] = []
    const task = () =>
      l.run(async () => {
        peak = Math.max(peak, ++running)
        await new Promise<void>((r) => gates.push(r))
        running--
        return 'done'
      })
    const accepted = Array.from({ length: 5 }, task)
    await expect(task()).rejects.toBeInstanceOf(BusyError)
    expect(gates.length).toBe(2)
    while (gates.length || running) {
      gates.splice(0).forEach((open) => open())
      await new Promise((r) => setImmediate(r))
    }
    expect(await Promise.all(accepted)).toEqual(['done', 'done', 'done', 'done', 'done'])
    expect(peak).toBe(2)
    // a slot freed by the last task is free again
    const again = task()
    await new Promise((r) => setImmediate(r))
    gates.splice(0).forEach((open) => open())
    expect(await again).toBe('done')
  })
})

describe('a burst of sign-ins from many addresses', () => {
  let t: TestApp
  let u: TestUser
  beforeAll(async () => {
    t = await testApp()
    u = await t.makeUser({ password: 'correct horse' })
  })
  afterAll(() => t.close())

  it('is answered 401 or 503 with Retry-After (never a 500), and the server still signs in afterwards', async () => {
    const res = await Promise.all(
      Array.from({ length: 120 }, (_, i) =>
        t.app.inject({
          method: 'POST',
          url: '/login',
          remoteAddress: `10.9.${i >> 8}.${i & 255}`,
          payload: { email: u.user.email, password: `guess ${i}` },
        }),
      ),
    )
    for (const r of res) expect([401, 503]).toContain(r.statusCode)
    for (const r of res.filter((x) => x.statusCode === 503)) expect(r.headers['retry-after']).toBe('5')
    const ok = await t.app.inject({ method: 'POST', url: '/login', remoteAddress: '10.10.0.1', payload: { email: u.user.email, password: 'correct horse' } })
    expect(ok.statusCode).toBe(302)
  })
})
