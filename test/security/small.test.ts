import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config.js'
import { KEY_GUESSES } from '../../src/http/auth.js'
import { expectError, testApp, type TestApp, type TestUser } from '../helpers/app.js'

/* Issue 13 item 9: the smaller findings, one block each. */

describe('API-key guessing', () => {
  let t: TestApp
  let u: TestUser
  beforeAll(async () => {
    t = await testApp()
    u = await t.makeUser()
  })
  afterAll(() => t.close())

  const withKey = (key: string, ip: string) =>
    t.app.inject({ method: 'GET', url: '/api/account', remoteAddress: ip, headers: { authorization: `Bearer ${key}` } })

  it(`after ${KEY_GUESSES} wrong keys from one address, that address gets 429 before any lookup; others are unaffected`, async () => {
    const ip = '203.0.113.40'
    for (let i = 0; i < KEY_GUESSES; i++) expectError(await withKey(`wrong-key-${i}-xxxxxxxxxxxxxxxxxxxxxx`, ip), 401)
    const blocked = await withKey('wrong-key-last-xxxxxxxxxxxxxxxxxxxxx', ip)
    expectError(blocked, 429, /Too many wrong API keys/)
    expect(blocked.headers['retry-after']).toBe('600')
    // the v1 interface shares the count
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/links', remoteAddress: ip, headers: { authorization: 'Bearer another-wrong-key-xxxxxxxxxxxxx' } })).statusCode).toBe(429)
    // another address with the right key is served
    expect((await withKey(u.key, '203.0.113.41')).statusCode).toBe(200)
  })

  it('right keys do not count', async () => {
    const ip = '203.0.113.42'
    for (let i = 0; i < KEY_GUESSES + 5; i++) expect((await withKey(u.key, ip)).statusCode).toBe(200)
    expectError(await withKey('wrong-key-once-xxxxxxxxxxxxxxxxxxxxx', ip), 401)
  })
})

describe('ADMIN_API_KEY', () => {
  it('is refused under 16 characters, and taken from 16', () => {
    expect(() => loadConfig({ ADMIN_API_KEY: 'x' })).toThrow(/ADMIN_API_KEY must be 16 to 256 visible ASCII characters/)
    expect(() => loadConfig({ ADMIN_API_KEY: 'k'.repeat(15) })).toThrow(/ADMIN_API_KEY/)
    expect(loadConfig({ ADMIN_API_KEY: 'k'.repeat(16) }).admin.apiKey).toBe('k'.repeat(16))
  })
})
