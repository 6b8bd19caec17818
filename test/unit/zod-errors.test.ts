import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { zodToApiError } from '../../src/http/errors.js'

/** The message of the first issue when `schema` refuses `value`. */
const messageOf = (schema: z.ZodType, value: unknown) => {
  const r = schema.safeParse(value)
  if (r.success) throw new Error('expected a refusal')
  return zodToApiError(r.error).message
}

describe('zodToApiError names the field once, first', () => {
  it('keeps a message that starts with its field as written', () => {
    expect(messageOf(z.object({ url: z.string({ message: 'url must be a string.' }) }), { url: 1 })).toBe('url must be a string.')
    expect(messageOf(z.object({ data: z.object({ ssid: z.string().min(1, 'data.ssid must not be empty.') }) }), { data: { ssid: '' } })).toBe('data.ssid must not be empty.')
  })

  it('puts the whole path where a message names only part of it', () => {
    const targets = z.object({ targets: z.array(z.object({ value: z.string({ message: 'value must be a country code.' }) })) })
    expect(messageOf(targets, { targets: [{ value: 'DE' }, { value: 3 }] })).toBe('targets.1.value must be a country code.')
    const pixels = z.object({ pixels: z.array(z.number({ message: 'pixels must be an integer id.' })) })
    expect(messageOf(pixels, { pixels: [1, '2'] })).toBe('pixels.1 must be an integer id.')
  })

  it("prefixes zod's own wording and messages that do not name the field", () => {
    expect(messageOf(z.object({ limit: z.number() }), { limit: 'x' })).toMatch(/^limit: /)
    expect(messageOf(z.object({ status: z.string().refine(() => false, 'must be public or private.') }), { status: 'x' })).toBe('status: must be public or private.')
    // a field whose name merely begins another word is not "named"
    expect(messageOf(z.object({ url: z.string().refine(() => false, 'urls are not allowed here.') }), { url: 'x' })).toBe('url: urls are not allowed here.')
  })

  it('lists every issue by its path', () => {
    const r = z.object({ a: z.string(), b: z.number() }).safeParse({ a: 1, b: 'x' })
    expect(r.success).toBe(false)
    expect(Object.keys(zodToApiError(r.error!).fields ?? {})).toEqual(['a', 'b'])
  })
})
