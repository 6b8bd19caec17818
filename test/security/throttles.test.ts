import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { LightMyRequestResponse } from 'fastify'
import { buildApp } from '../../src/app.js'
import { testApp, testConfig, type TestApp, type TestUser } from '../helpers/app.js'
import { addLink, addV1Link, created } from '../helpers/fixtures.js'
import { visit } from '../helpers/visits.js'
import { freshAddress } from '../helpers/addresses.js'

/*
 * Issue 13 item 1: a burst of simultaneous guesses must not get past a throttle. Each test sends 60
 * guesses at once from one address with the right answer at position 45: at most the budget (5) is
 * checked, the rest are 429s, and the right answer never gets in. Run without Redis, with Redis,
 * and over two app instances sharing one database and one Redis.
 */

const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'
const BURST = 60
const RIGHT_AT = 45

function burst(send: (i: number) => Promise<LightMyRequestResponse>) {
  return Promise.all(Array.from({ length: BURST }, (_, i) => send(i)))
}

function statuses(list: LightMyRequestResponse[]) {
  const by: Record<number, number> = {}
  for (const r of list) by[r.statusCode] = (by[r.statusCode] ?? 0) + 1
  return by
}

/** 60 guesses, one right: nobody in, at most 5 checked (401), everything else 429. */
function expectHeld(list: LightMyRequestResponse[], inStatus: number) {
  const by = statuses(list)
  expect(by[inStatus] ?? 0, JSON.stringify(by)).toBe(0)
  expect(list.some((r) => r.headers['set-cookie'] && /kurz_(pw|st|session)/.test(String(r.headers['set-cookie'])))).toBe(false)
  expect((by[401] ?? 0) + (by[503] ?? 0)).toBeLessThanOrEqual(5)
  expect(by[429]).toBeGreaterThanOrEqual(BURST - 5)
}

// Redis keeps counters between runs for an hour, and ids restart with each test database: a /64 of
// this run's own keeps runs apart. One of 250 IPv4 addresses did not: a run that drew an hour-old
// run's number got 429 for everything.
const freshIp = freshAddress

function suite(name: string, env: Record<string, string>, twoInstances: boolean) {
  describe(name, () => {
    let t: TestApp
    let second: TestApp['app']
    let pro: TestUser
    /** alternates between the instances when there are two */
    const appFor = (i: number) => (twoInstances && i % 2 ? second : t.app)

    beforeAll(async () => {
      t = await testApp(env)
      second = twoInstances ? await buildApp(testConfig(env), { db: t.handle }) : t.app
      if (twoInstances) await second.ready()
      pro = await t.makeUser({ plan: 'pro', password: 'correct horse' })
      await addLink(pro, { url: 'https://example.com/secret', custom: `pw${name.length}`, password: 'open sesame' })
      await addV1Link(t, pro, { url: 'https://example.com/st', alias: `st${name.length}`, privacy: '2', privacy_password: 'letmein' })
    })
    afterAll(async () => {
      if (twoInstances) await second.close()
      await t.close()
    })

    it('link password: the right one at position 45 of 60 simultaneous guesses never gets in', async () => {
      const ip = freshIp()
      const res = await burst((i) =>
        appFor(i).inject({
          method: 'POST',
          url: `/pw${name.length}`,
          remoteAddress: ip,
          headers: { host: 'kurz.test', 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams({ password: i === RIGHT_AT ? 'open sesame' : `guess ${i}` }).toString(),
        }),
      )
      expectHeld(res, 302)
    })

    it('statistics password: the same', async () => {
      const ip = freshIp()
      const res = await burst((i) =>
        appFor(i).inject({
          method: 'POST',
          url: `/st${name.length}+`,
          remoteAddress: ip,
          headers: { host: 'kurz.test', 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams({ password: i === RIGHT_AT ? 'letmein' : `guess ${i}` }).toString(),
        }),
      )
      expectHeld(res, 200)
    })

    it('/login: the same', async () => {
      const ip = freshIp()
      const res = await burst((i) =>
        appFor(i).inject({
          method: 'POST',
          url: '/login',
          remoteAddress: ip,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams({ email: pro.user.email, password: i === RIGHT_AT ? 'correct horse' : `guess ${i}` }).toString(),
        }),
      )
      expectHeld(res, 302)
    })

    it('overlay form: at most 5 answers stored from 60 simultaneous posts', async () => {
      const id = (await created(pro, '/api/overlay/add', { name: 'Poll', type: 'poll', options: ['a', 'b'] })).id
      const ip = freshIp()
      const res = await burst((i) =>
        appFor(i).inject({
          method: 'POST',
          url: `/_/overlay/${id}`,
          remoteAddress: ip,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams({ option: String(i % 2) }).toString(),
        }),
      )
      const by = statuses(res)
      expect(by[200], JSON.stringify(by)).toBe(5)
      expect(by[429]).toBe(BURST - 5)
      const list = await pro.api.get(`/api/overlay/${id}/responses`)
      expect(list.json().data.result).toBe(5)
    })

    it('a right answer within the budget still opens the link and starts the count afresh', async () => {
      const ip = freshIp()
      for (let i = 0; i < 4; i++) expect((await visit(t, `/pw${name.length}`, { form: { password: 'no' }, remoteAddress: ip })).statusCode).toBe(401)
      expect((await visit(t, `/pw${name.length}`, { form: { password: 'open sesame' }, remoteAddress: ip })).statusCode).toBe(302)
      for (let i = 0; i < 4; i++) expect((await visit(t, `/pw${name.length}`, { form: { password: 'no' }, remoteAddress: ip })).statusCode).toBe(401)
      expect((await visit(t, `/pw${name.length}`, { form: { password: 'open sesame' }, remoteAddress: ip })).statusCode).toBe(302)
    })
  })
}

suite('without Redis', {}, false)
suite('with Redis', { REDIS_URL: REDIS }, false)
suite('two instances sharing Redis', { REDIS_URL: REDIS }, true)
