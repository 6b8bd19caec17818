import { describe, expect, it } from 'vitest'
import { ApiError } from '../../src/http/errors.js'
import { readV1Body, v1Name, V1_FIELDS } from '../../src/resources/v1-links/fields.js'

const URL_ = 'https://example.com/page'

/** A valid value for every v1 field, plus what it needs beside it. */
const SAMPLES: Record<string, { value: unknown; with?: Record<string, unknown> }> = {
  url: { value: URL_ },
  domain: { value: '3' },
  alias: { value: 'my-alias' },
  password: { value: 'secret' },
  space: { value: '4' },
  pixels: { value: '5,6' },
  disabled: { value: '1' },
  privacy: { value: '1' },
  privacy_password: { value: 'stats-secret' },
  expiration_url: { value: 'https://expired.example/' },
  expiration_clicks: { value: '10' },
  expiration_date: { value: '2099-01-02' },
  expiration_time: { value: '10:30', with: { expiration_date: '2099-01-02' } },
  title: { value: 'A title' },
  target_type: { value: '4', with: { rotation: [{ value: 'https://r.example/' }] } },
  country: { value: [{ key: 'US', value: 'https://us.example/' }] },
  platform: { value: [{ key: 'iOS', value: 'https://ios.example/' }] },
  language: { value: [{ key: 'fr', value: 'https://fr.example/' }] },
  rotation: { value: [{ value: 'https://r.example/' }] },
}

const read = (body: Record<string, unknown>) => readV1Body({ url: URL_, ...body }, 'create')

describe('the v1 field table', () => {
  it('has a sample here for every field, and no field twice', () => {
    const names = V1_FIELDS.flatMap((f) => [f.name, ...(f.synonyms ?? [])])
    expect(new Set(names).size).toBe(names.length)
    expect(Object.keys(SAMPLES).sort()).toEqual(V1_FIELDS.map((f) => f.name).sort())
  })

  it.each(V1_FIELDS.map((f) => [f.name, f] as const))('%s fills its LinkInput key and names it back', (name, field) => {
    const { value, with: beside } = SAMPLES[name]
    const { input, names } = read({ ...beside, [name]: value })
    expect(Object.hasOwn(input, field.key), `${name} → ${field.key}`).toBe(true)
    expect(input[field.key]).not.toBeUndefined()
    expect(names[field.key]).toBe(field.combined ? V1_FIELDS.find((f) => f.key === field.key)!.name : name)
  })

  it.each(V1_FIELDS.flatMap((f) => (f.synonyms ?? []).map((s) => [s, f] as const)))('the synonym %s reads as its field', (synonym, field) => {
    const { value } = SAMPLES[field.name]
    const canonical = read({ [field.name]: value })
    const viaSynonym = read({ [synonym]: value })
    expect(viaSynonym.input[field.key]).toEqual(canonical.input[field.key])
    expect(viaSynonym.names[field.key]).toBe(synonym)
    // the SPEC.md name wins when both are sent
    const both = read({ [synonym]: 'not even valid', [field.name]: value })
    expect(both.input[field.key]).toEqual(canonical.input[field.key])
    expect(both.names[field.key]).toBe(field.name)
  })

  it('names a failing field as it was sent', () => {
    let err: unknown
    try {
      read({ space_id: 'abc' })
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(ApiError)
    expect((err as ApiError).status).toBe(422)
    expect(Object.keys((err as ApiError).fields!)).toEqual(['space_id'])
  })

  it('names the service field errors back in the v1 names the caller used', () => {
    const { names } = read({ domain_id: '3', pixel_ids: '5', country: SAMPLES.country.value })
    const name = v1Name(names)
    expect(name({ key: 'domainId' })).toBe('domain_id')
    expect(name({ key: 'pixelIds' })).toBe('pixel_ids')
    expect(name({ key: 'channelIds' })).toBe('space')
    expect(name({ key: 'alias' })).toBe('alias')
    expect(name({ key: 'geo', path: [0, 'url'] })).toBe('country.0.value')
    expect(name({ key: 'rotation', path: [2, 'url'] })).toBe('rotation.2.value')
  })
})
