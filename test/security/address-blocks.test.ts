import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { LightMyRequestResponse } from 'fastify'
import { testApp, type TestApp, type TestUser } from '../helpers/app.js'
import { addLink, created } from '../helpers/fixtures.js'
import { visit } from '../helpers/visits.js'
import { freshAddress, sameBlock } from '../helpers/addresses.js'
import { KEY_GUESSES } from '../../src/http/auth.js'
import { REPORTS_PER_HOUR } from '../../src/resources/reports/public.js'
import { OVERLAY_SUBMISSIONS_PER_HOUR } from '../../src/resources/pages/public.js'
import { QR_RENDERS_PER_MINUTE } from '../../src/resources/qr/public.js'

/*
 * Session 37: every throttle counted a client by its exact address, so an IPv6 client, which gets a
 * whole /64 from its provider, took a new address for each attempt and was never throttled: unlimited
 * guesses at a link's password, a poll stuffed with votes, the report form's shared budget used up
 * alone. Each throttle now counts an IPv6 client by its /64 (lib/address-block.ts), as the sign-in
 * ceiling already did. Each test spends a budget from as many addresses of one /64, then checks
 * that one more address of that /64 is refused and that another /64 is not.
 */

/** `n` attempts, each from another address of `block`'s /64, each answered `status`. */
async function spend(n: number, block: string, send: (from: string) => Promise<LightMyRequestResponse>, status: number) {
  for (let i = 0; i < n; i++) {
    const res = await send(sameBlock(block, i + 2))
    expect(res.statusCode, `attempt ${i + 1}`).toBe(status)
  }
}

describe('throttles count an IPv6 client by its /64', () => {
  let t: TestApp
  let owner: TestUser
  beforeAll(async () => {
    t = await testApp()
    owner = await t.makeUser({ plan: 'pro', password: 'correct horse' })
    await addLink(owner, { url: 'https://example.com/locked', custom: 'blk-locked', password: 'open sesame' })
    await addLink(owner, { url: 'https://example.com/open', custom: 'blk-open' })
  })
  afterAll(() => t.close())

  it('link password: 5 wrong guesses from five addresses of one /64, then a sixth address of it is a 429; another /64 is still asked', async () => {
    const block = freshAddress()
    const guess = (from: string, password = 'wrong') => visit(t, '/blk-locked', { form: { password }, remoteAddress: from })
    await spend(5, block, guess, 401)
    const held = await guess(sameBlock(block, 0xff), 'open sesame')
    expect(held.statusCode).toBe(429)
    expect(held.headers['retry-after']).toBe('900')
    expect((await guess(freshAddress())).statusCode).toBe(401)
    expect((await guess(freshAddress(), 'open sesame')).statusCode).toBe(302)
  })

  it('sign-in: 5 wrong passwords for one email from one /64, then the right one from a new address of it is a 429', async () => {
    const block = freshAddress()
    const signIn = (from: string, password: string) =>
      t.app.inject({
        method: 'POST',
        url: '/login',
        remoteAddress: from,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ email: owner.user.email, password }).toString(),
      })
    await spend(5, block, (from) => signIn(from, 'wrong'), 401)
    expect((await signIn(sameBlock(block, 0xff), 'correct horse')).statusCode).toBe(429)
    expect((await signIn(freshAddress(), 'correct horse')).statusCode).toBe(302)
  })

  it(`API keys: ${KEY_GUESSES} wrong keys from one /64, then a new address of it is a 429; another /64 still gets the 401`, async () => {
    const block = freshAddress()
    const get = (from: string) => t.app.inject({ method: 'GET', url: '/api/account', remoteAddress: from, headers: { authorization: 'Bearer not-a-key-at-all' } })
    await spend(KEY_GUESSES, block, get, 401)
    const held = await get(sameBlock(block, 0xffff))
    expect(held.statusCode).toBe(429)
    expect(held.json()).toEqual({ error: 1, message: 'Too many wrong API keys from this address. Try again in 10 minutes.' })
    expect((await get(freshAddress())).statusCode).toBe(401)
  })

  it(`report form: ${REPORTS_PER_HOUR} reports from one /64, then a new address of it is a 429 and nothing more is stored`, async () => {
    const block = freshAddress()
    const report = (from: string) => visit(t, '/blk-open/report', { form: { reason: 'spam' }, remoteAddress: from })
    await spend(REPORTS_PER_HOUR, block, report, 200)
    const admin = await t.makeUser({ admin: true })
    const stored = () => admin.api.get('/api/reports').then((r) => r.json().data.result as number)
    const before = await stored()
    expect((await report(sameBlock(block, 0xff))).statusCode).toBe(429)
    expect(await stored()).toBe(before)
    expect((await report(freshAddress())).statusCode).toBe(200)
  })

  it(`overlay answers: ${OVERLAY_SUBMISSIONS_PER_HOUR} votes from one /64, then a new address of it is a 429 and the poll counts ${OVERLAY_SUBMISSIONS_PER_HOUR}`, async () => {
    const id = (await created(owner, '/api/overlay/add', { name: 'Poll', type: 'poll', options: ['a', 'b'] })).id
    const block = freshAddress()
    const vote = (from: string) => visit(t, `/_/overlay/${id}`, { form: { option: '0' }, remoteAddress: from })
    await spend(OVERLAY_SUBMISSIONS_PER_HOUR, block, vote, 200)
    expect((await vote(sameBlock(block, 0xff))).statusCode).toBe(429)
    expect((await owner.api.get(`/api/overlay/${id}/responses`)).json().data.result).toBe(OVERLAY_SUBMISSIONS_PER_HOUR)
    expect((await vote(freshAddress())).statusCode).toBe(200)
  })

  it(`QR images: ${QR_RENDERS_PER_MINUTE} new renders from one /64, then a new address of it is a 429; another /64 is still drawn`, async () => {
    // the render cache lives as long as the process: colours of this run's own
    const base = Math.floor(Math.random() * 0xff0000)
    let n = 0
    const image = (from: string) =>
      visit(t, `/blk-open/qr?size=64&foreground=%23${(base + n++).toString(16).padStart(6, '0')}`, { remoteAddress: from })
    const block = freshAddress()
    await spend(QR_RENDERS_PER_MINUTE, block, image, 200)
    const held = await image(sameBlock(block, 0xffff))
    expect(held.statusCode).toBe(429)
    expect(held.headers['retry-after']).toBe('60')
    expect((await image(freshAddress())).statusCode).toBe(200)
  })

  it('an IPv4 client is counted by its own address, and an IPv4 address written as IPv6 is that address', async () => {
    const guess = (from: string) => visit(t, '/blk-locked', { form: { password: 'wrong' }, remoteAddress: from })
    for (let i = 0; i < 5; i++) expect((await guess('198.51.100.77')).statusCode).toBe(401)
    expect((await guess('::ffff:198.51.100.77')).statusCode).toBe(429)
    // the neighbouring address is another client
    expect((await guess('198.51.100.78')).statusCode).toBe(401)
  })
})
