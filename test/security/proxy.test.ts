import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import { testApp, testConfig, testDatabase, type TestApp, type TestUser } from '../helpers/app.js'
import { lineSink } from '../helpers/log-lines.js'

/*
 * Issue 13 item 4: with TRUST_PROXY=true a client chose its own address by sending X-Forwarded-For,
 * and a new address per request beat every per-IP throttle. A hop count or a proxy list trusts only
 * what the proxies in front wrote.
 */

const PROXY = '10.0.0.5'
const CLIENT = '198.51.100.7'

/** Six wrong sign-ins from CLIENT through the proxy, each forging a new leftmost X-Forwarded-For entry. */
async function forgedSignIns(t: TestApp, u: TestUser, via: string) {
  const statuses: number[] = []
  for (let i = 0; i < 6; i++) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/login',
      remoteAddress: via,
      // what the client sent, then what the proxy appended: the address it saw
      headers: { 'x-forwarded-for': `203.0.113.${i + 1}, ${CLIENT}` },
      payload: { email: u.user.email, password: `guess ${i}` },
    })
    statuses.push(res.statusCode)
  }
  return statuses
}

describe.each([
  ['a hop count', '1'],
  ['the proxy address', PROXY],
  ['the proxy network', '10.0.0.0/8'],
])('TRUST_PROXY as %s', (_name, value) => {
  let t: TestApp
  let u: TestUser
  beforeAll(async () => {
    t = await testApp({ TRUST_PROXY: value })
    u = await t.makeUser({ password: 'correct horse' })
  })
  afterAll(() => t.close())

  it('a forged X-Forwarded-For entry does not give the client a new address: the 6th guess is a 429', async () => {
    expect(await forgedSignIns(t, u, PROXY)).toEqual([401, 401, 401, 401, 401, 429])
  })
})

describe('TRUST_PROXY as a proxy list', () => {
  let t: TestApp
  let u: TestUser
  beforeAll(async () => {
    t = await testApp({ TRUST_PROXY: PROXY })
    u = await t.makeUser({ password: 'correct horse' })
  })
  afterAll(() => t.close())

  it('a client that is not the proxy cannot set its address at all', async () => {
    const statuses: number[] = []
    for (let i = 0; i < 6; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/login',
        remoteAddress: '192.0.2.200',
        headers: { 'x-forwarded-for': `203.0.113.${i + 1}` },
        payload: { email: u.user.email, password: `guess ${i}` },
      })
      statuses.push(res.statusCode)
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429])
  })
})

describe('TRUST_PROXY configuration', () => {
  it.each([
    ['1', 1],
    ['2', 2],
    ['10.0.0.0/8, 127.0.0.1', '10.0.0.0/8,127.0.0.1'],
    ['true', true],
    ['false', false],
  ])('TRUST_PROXY=%s', (value, expected) => {
    expect(loadConfig({ TRUST_PROXY: value }).trustProxy).toEqual(expected)
  })

  it('TRUST_PROXY=true logs a warning at start that recommends a hop count or the proxy addresses; a hop count does not', async () => {
    for (const [value, warned] of [['true', 1], ['1', 0]] as const) {
      const database = await testDatabase()
      const lines: string[] = []
      const logStream = lineSink(lines)
      const app = await buildApp(testConfig({ TRUST_PROXY: value, LOG_LEVEL: 'warn' }), { db: database.handle, logStream })
      await app.close()
      await database.drop()
      const warnings = lines.map((l) => JSON.parse(l)).filter((l) => /TRUST_PROXY=true/.test(l.msg))
      expect(warnings.length).toBe(warned)
      if (warned) expect(warnings[0].msg).toMatch(/TRUST_PROXY=1/)
    }
  })
})
