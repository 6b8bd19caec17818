import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { bodyId, boolish, clearable, description, email, hexColor, name, optional, password, pathId, text, timestamp, urlField, username } from '../../src/http/fields.js'

const ok = <T>(schema: z.ZodType<T>, v: unknown) => {
  const r = schema.safeParse(v)
  if (!r.success) throw new Error(`expected ${JSON.stringify(v)} to pass: ${r.error.issues[0].message}`)
  return r.data
}
const bad = (schema: z.ZodType, v: unknown) => {
  const r = schema.safeParse(v)
  expect(r.success, `expected ${JSON.stringify(v)} to fail`).toBe(false)
  return r.error!.issues[0].message
}

describe('pathId', () => {
  it.each([['1', 1], ['42', 42], ['2147483647', 2147483647]])('%s → %i', (v, n) => expect(ok(pathId, v)).toBe(n))
  // a leading zero names no object: /api/url/01 is not /api/url/1 (issue 13 item 9)
  it.each(['007', '01', '0', '-1', 'abc', '2147483648', '99999999999999999999', '1.5', '1e3', '', ' 1', '0x1f'])('refuses %j', (v) => {
    bad(pathId, v)
  })
})

describe('bodyId', () => {
  const s = bodyId('planid')
  it('takes JSON integers', () => {
    expect(ok(s, 3)).toBe(3)
  })
  it.each([0, -1, 1.5, 2 ** 31, '3', 'abc', true, null, [], {}])('refuses %j naming the field', (v) => {
    expect(bad(s, v)).toMatch(/^planid /)
  })
})

describe('boolish', () => {
  const s = boolish('public')
  it.each([[true, true], [1, true], ['1', true], ['true', true], [false, false], [0, false], ['0', false], ['false', false]])('%j → %j', (v, b) =>
    expect(ok(s, v)).toBe(b),
  )
  it.each(['yes', 'TRUE', 2, null, '', [], {}])('refuses %j', (v) => expect(bad(s, v)).toBe('public must be true or false.'))
})

describe('optional / clearable', () => {
  it('optional reads "", null and false as absent', () => {
    const s = z.object({ x: optional(z.string()) })
    for (const v of ['', null, false, undefined]) expect(ok(s, { x: v })).toEqual({ x: undefined })
    expect(ok(s, { x: 'y' })).toEqual({ x: 'y' })
  })
  it('clearable: missing keeps (undefined), blank clears (null)', () => {
    const s = z.object({ x: clearable(z.string()) })
    expect(ok(s, {})).toEqual({ x: undefined })
    for (const v of ['', null, false]) expect(ok(s, { x: v })).toEqual({ x: null })
    expect(ok(s, { x: 'y' })).toEqual({ x: 'y' })
  })
})

describe('text, name, description', () => {
  it('trims and limits', () => {
    expect(ok(name(), '  Spring sale  ')).toBe('Spring sale')
    expect(ok(name(), 'n'.repeat(255))).toHaveLength(255)
    expect(bad(name(), 'n'.repeat(256))).toBe('name must be at most 255 characters.')
    expect(bad(name(), '   ')).toBe('name must not be empty.')
    expect(ok(description(), 'd'.repeat(2000))).toHaveLength(2000)
    expect(bad(description(), 'd'.repeat(2001))).toMatch(/at most 2000/)
    expect(bad(text('title', 10), 5)).toBe('title must be a string.')
  })
  it('refuses control characters but keeps HTML as data', () => {
    expect(bad(name(), 'a\u0000b')).toMatch(/control characters/)
    expect(bad(name(), 'a\u001bb')).toMatch(/control characters/)
    expect(ok(name(), '"><script>alert(1)</script>')).toBe('"><script>alert(1)</script>')
  })
})

describe('email, password, username', () => {
  it('email', () => {
    expect(ok(email(), '  Someone@Example.com ')).toBe('Someone@Example.com')
    expect(ok(email(), 'a@example.com\n')).toBe('a@example.com') // surrounding whitespace is trimmed
    for (const v of ['nope', 'a@b', 'a\u0007@example.com', 'a\n@example.com', '<x>@example.com', 'a@example.com\nBcc: b@example.com', 5, `${'a'.repeat(250)}@example.com`]) bad(email(), v)
  })
  it('password: at least 5 characters', () => {
    expect(ok(password(), '12345')).toBe('12345')
    expect(bad(password(), '1234')).toBe('password must be at least 5 characters.')
    expect(bad(password(), 12345)).toBe('password must be a string.')
  })
  it('username: 3 to 32 of [A-Za-z0-9_.-]', () => {
    for (const v of ['abc', 'A.b-c_9', 'x'.repeat(32)]) ok(username(), v)
    for (const v of ['ab', 'x'.repeat(33), 'a b', '<b>', 'zoë', "o'neil", 'a/b', 123]) bad(username(), v)
  })
})

describe('urlField, timestamp, hexColor', () => {
  it('urlField applies the URL rule and names the field', () => {
    expect(ok(urlField('url'), 'https://example.com')).toBe('https://example.com')
    expect(bad(urlField('url'), 'javascript:alert(1)')).toMatch(/^url is refused: the javascript: scheme is not allowed\.$/)
    expect(bad(urlField('url'), 42)).toBe('url must be a string.')
  })
  it('timestamp', () => {
    expect(ok(timestamp('expiry'), '2030-01-02 03:04:05').toISOString()).toBe('2030-01-02T03:04:05.000Z')
    expect(bad(timestamp('expiry'), 'soon')).toMatch(/^expiry must be a date like/)
    expect(bad(timestamp('expiry'), 1893456000)).toMatch(/^expiry must be a string/)
  })
  it('hexColor', () => {
    for (const v of ['#abc', '#A1B2C3']) ok(hexColor(), v)
    for (const v of ['abc', '#abcd', '#ggg', 'red', '#1234567']) expect(bad(hexColor(), v)).toMatch(/HEX colour/)
  })
})
