import { z } from 'zod'

type JsonSchema = Record<string, unknown>

const isZod = (s: unknown): s is z.ZodType => s instanceof z.ZodType

/**
 * A route's zod schema as JSON Schema 2020-12 (OpenAPI 3.1's dialect), describing what a client
 * sends: `io: 'input'` documents a pipe or preprocess by the type it accepts, and a transform or
 * custom check that JSON Schema cannot express becomes "any value" instead of failing the
 * whole document.
 */
export function toJsonSchema(schema: unknown): JsonSchema | undefined {
  if (!isZod(schema)) return schema as JsonSchema | undefined
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema
  delete json.$schema
  return json
}

/**
 * Query strings and path parameters become OpenAPI parameters, one per property, so they must be
 * one flat object: an `anyOf`/`allOf` of objects (a union of query forms) is merged into one whose
 * properties are all optional; anything else (`{}` from a transform) documents no parameter.
 */
export function toParameterObject(schema: unknown): JsonSchema | undefined {
  const json = toJsonSchema(schema)
  if (!json) return undefined
  if (json.properties) return json
  const parts = (json.anyOf ?? json.oneOf ?? json.allOf) as JsonSchema[] | undefined
  if (!parts) return undefined
  const properties: Record<string, unknown> = {}
  for (const part of parts) Object.assign(properties, (part.properties as Record<string, unknown> | undefined) ?? {})
  return Object.keys(properties).length ? { type: 'object', properties } : undefined
}
