import { describe, expect, it } from 'vitest'
import { cookieFrom } from '../../src/http/cookies.js'

/** The one-cookie reader of the visit path and the API reads a header as @fastify/cookie's parser does. */
describe('cookieFrom', () => {
  it('finds a cookie among others, spaces and tabs trimmed', () => {
    const header = 'a=1; kurz_session=tok-en_1;\tb = 2 ;c=3'
    expect(cookieFrom(header, 'kurz_session')).toBe('tok-en_1')
    expect(cookieFrom(header, 'a')).toBe('1')
    expect(cookieFrom(header, 'b')).toBe('2')
    expect(cookieFrom(header, 'c')).toBe('3')
  })

  it('takes the first of a repeated name, and an empty value as empty', () => {
    expect(cookieFrom('x=first; x=second', 'x')).toBe('first')
    expect(cookieFrom('x=; y=1', 'x')).toBe('')
  })

  it('answers undefined for a missing name, a name that is only a prefix or suffix, and pairs without =', () => {
    expect(cookieFrom('a=1; b=2', 'kurz_session')).toBeUndefined()
    expect(cookieFrom('kurz_session_old=1; old_kurz_session=2', 'kurz_session')).toBeUndefined()
    expect(cookieFrom('kurz_session; other=1', 'kurz_session')).toBeUndefined()
    expect(cookieFrom('flag; kurz_session=v', 'kurz_session')).toBe('v')
    expect(cookieFrom('', 'a')).toBeUndefined()
  })

  it('URI-decodes a value with %, and keeps one that does not decode', () => {
    expect(cookieFrom('n=a%20b%3Dc', 'n')).toBe('a b=c')
    expect(cookieFrom('n=100%', 'n')).toBe('100%')
    expect(cookieFrom('n="quoted"', 'n')).toBe('"quoted"')
  })
})
