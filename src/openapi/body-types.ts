/*
 * The building blocks of the success bodies (bodies.ts, bodies-resources.ts, envelopes.ts).
 */

type Schema = Record<string, unknown>

export const INT: Schema = { type: 'integer' }
export const STRING: Schema = { type: 'string' }
export const NULLABLE_INT: Schema = { type: ['integer', 'null'] }
export const NULLABLE_STRING: Schema = { type: ['string', 'null'] }
/** Every date the interfaces answer: UTC, to the second. */
export const TIMESTAMP: Schema = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$', description: 'YYYY-MM-DD HH:MM:SS (UTC)' }

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` })
export const array = (items: Schema): Schema => ({ type: 'array', items })

/**
 * An object whose `required` is every property unless told otherwise. No additionalProperties:
 * a field the server gains later must not break a client that validates answers.
 */
export function object(properties: Record<string, Schema>, description?: string, required: string[] = Object.keys(properties)): Schema {
  return { type: 'object', ...(description ? { description } : {}), ...(required.length ? { required } : {}), properties }
}
