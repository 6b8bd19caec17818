import qs from 'qs'

/** At most this many items in one list field (targets, pixels); more is refused by the schema. */
export const MAX_LIST = 100

/**
 * Form bodies of the original (Laravel) product: `country[0][key]=US`, `pixels[]=1`, ...
 * Depth and sizes are capped, and keys that would reach Object.prototype (`__proto__`,
 * `constructor[prototype]`, `hasOwnProperty`) are dropped by qs (`allowPrototypes: false`).
 */
export function parseForm(body: string): Record<string, unknown> {
  return qs.parse(body, {
    depth: 3,
    arrayLimit: MAX_LIST,
    parameterLimit: 2000,
    allowPrototypes: false,
    allowDots: false,
    charset: 'utf-8',
  }) as Record<string, unknown>
}

/**
 * A list as sent: an array, or an object keyed by index (qs turns sparse or large indices into
 * objects; some JSON clients send `{"0": {...}}`), ordered by index.
 */
export function asList(value: unknown): unknown[] | null {
  if (Array.isArray(value)) return value
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
    if (entries.every(([k]) => /^\d{1,6}$/.test(k))) {
      return entries.sort(([a], [b]) => Number(a) - Number(b)).map(([, v]) => v)
    }
  }
  return null
}

/**
 * The SPEC.md name and later synonyms of the original product (`space` / `space_id`): the SPEC.md
 * name wins when both are sent, and errors name the field as it was sent.
 */
export function pick(body: Record<string, unknown>, name: string, ...synonyms: readonly string[]): { as: string; value: unknown } {
  const as = [name, ...synonyms].find((n) => Object.hasOwn(body, n)) ?? name
  return { as, value: body[as] }
}
