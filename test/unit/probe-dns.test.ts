import { describe, expect, it } from 'vitest'
import { probe } from '../../src/link-health/probe.js'

/**
 * A health check sends visitors to the fallback only on evidence that the destination fails: a
 * name that does not exist is such evidence, this machine's resolver failing is not.
 */
describe('a health check when the name lookup fails', () => {
  const failing = (code: string) => async () => {
    throw Object.assign(new Error(`getaddrinfo ${code} shop.example`), { code })
  }

  it('a resolver that is away or slow leaves the link unknown, not broken', async () => {
    for (const code of ['EAI_AGAIN', 'ETIMEOUT']) {
      expect(await probe('https://shop.example/', { allowPrivate: false, resolve: failing(code) })).toEqual({
        state: 'unknown',
        status: null,
        reason: 'not checked: names a host that could not be looked up just now (shop.example)',
      })
    }
  })

  it('a name that does not exist is broken', async () => {
    expect(await probe('https://shop.example/', { allowPrivate: false, resolve: failing('ENOTFOUND') })).toEqual({
      state: 'broken',
      status: null,
      reason: 'names a host that does not resolve (shop.example)',
    })
  })
})
