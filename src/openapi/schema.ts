import { z } from 'zod'
import { FALSE, TRUE } from '../http/fields.js'

type JsonSchema = Record<string, unknown>

const isZod = (s: unknown): s is z.ZodType => s instanceof z.ZodType

const spellings = (set: ReadonlySet<unknown>, type: string) => [...set].filter((v) => typeof v === type)
const spelled = (set: ReadonlySet<unknown>, plain: boolean) =>
  [...set]
    .filter((v) => v !== plain)
    .map((v) => JSON.stringify(v))
    .join(', ')

/**
 * What a `boolish` field (http/fields.ts) accepts: true or false, and the number and string
 * spellings of each, taken from its own TRUE and FALSE sets.
 */
export const BOOLISH: JsonSchema = {
  oneOf: [
    { type: 'boolean' },
    { type: 'integer', enum: [...spellings(TRUE, 'number'), ...spellings(FALSE, 'number')] },
    { type: 'string', enum: [...spellings(TRUE, 'string'), ...spellings(FALSE, 'string')] },
  ],
  description: `true or false; ${spelled(TRUE, true)} read as true, ${spelled(FALSE, false)} as false`,
}

/**
 * Whether a schema is a `boolish`: `z.any().transform(...)`, which JSON Schema would show as
 * "any value". Recognised by what it does: it reads every TRUE spelling as true, every FALSE one
 * as false, and refuses anything else.
 */
function isBoolish(schema: z.ZodType): boolean {
  const def = schema._zod.def as { type: string; in?: z.ZodType; out?: z.ZodType }
  if (def.type !== 'pipe' || def.in?._zod.def.type !== 'any' || def.out?._zod.def.type !== 'transform') return false
  try {
    return (
      [...TRUE].every((v) => schema.safeParse(v).data === true) &&
      [...FALSE].every((v) => schema.safeParse(v).data === false) &&
      !schema.safeParse('maybe').success
    )
  } catch {
    // an async transform: not a boolish
    return false
  }
}

/** `^\d{1,10}$`, `^[1-9]\d{0,9}$`: a pattern that only digits match */
const DIGITS = /^\^(?:\[1-9\])?\\d(?:\{\d+(?:,\d*)?\}|[+*])?\$$/

/**
 * A path or query value that is a string of digits read as a bounded number (`pathId`, v1's
 * `per_page`) is an integer to a client: documented with the bounds the server checks, not as a
 * pattern any number of digits matches.
 */
function digitsAsInteger(schema: z.ZodType, json: JsonSchema): JsonSchema | undefined {
  const def = schema._zod.def as { type: string; out?: z.ZodType }
  if (def.type !== 'pipe' || !(def.out instanceof z.ZodNumber)) return undefined
  if (json.type !== 'string' || typeof json.pattern !== 'string' || !DIGITS.test(json.pattern)) return undefined
  const { minValue, maxValue } = def.out
  return { type: 'integer', ...(minValue !== null ? { minimum: minValue } : {}), ...(maxValue !== null ? { maximum: maxValue } : {}) }
}

function replace(json: JsonSchema, by: JsonSchema) {
  for (const key of Object.keys(json)) if (key !== 'description') delete json[key]
  Object.assign(json, structuredClone(by), json.description ? { description: json.description } : {})
}

/**
 * A route's zod schema as JSON Schema 2020-12 (OpenAPI 3.1's dialect), describing what a client
 * sends: `io: 'input'` documents a pipe or preprocess by the type it accepts, and a transform or
 * custom check that JSON Schema cannot express becomes "any value" instead of failing the
 * whole document, but for the booleans every interface reads (`BOOLISH`). With `parameters`,
 * digit strings read as numbers are documented as integers (a path or query value is a string
 * on the wire either way).
 */
export function toJsonSchema(schema: unknown, opts: { parameters?: boolean } = {}): JsonSchema | undefined {
  if (!isZod(schema)) return schema as JsonSchema | undefined
  const json = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    target: 'draft-2020-12',
    override: ({ zodSchema, jsonSchema }) => {
      const zod = zodSchema as unknown as z.ZodType
      if (isBoolish(zod)) return replace(jsonSchema, BOOLISH)
      const integer = opts.parameters ? digitsAsInteger(zod, jsonSchema) : undefined
      if (integer) replace(jsonSchema, integer)
    },
  }) as JsonSchema
  delete json.$schema
  return json
}

/**
 * Query strings and path parameters become OpenAPI parameters, one per property, so they must be
 * one flat object: an `anyOf`/`allOf` of objects (a union of query forms) is merged into one whose
 * properties are all optional; anything else (`{}` from a transform) documents no parameter.
 */
export function toParameterObject(schema: unknown): JsonSchema | undefined {
  const json = toJsonSchema(schema, { parameters: true })
  if (!json) return undefined
  const parts = json.properties ? [json] : ((json.anyOf ?? json.oneOf ?? json.allOf) as JsonSchema[] | undefined)
  if (!parts) return undefined
  const properties: Record<string, unknown> = {}
  for (const part of parts) Object.assign(properties, (part.properties as Record<string, unknown> | undefined) ?? {})
  if (json.$defs) {
    // each parameter is documented on its own: one that uses a shared definition carries it along
    for (const [name, property] of Object.entries(properties)) {
      const p = property as JsonSchema
      // @fastify/swagger keeps nothing beside a $ref, so a bare reference is wrapped
      if (JSON.stringify(p).includes('"#/$defs/')) properties[name] = p.$ref ? { allOf: [p], $defs: json.$defs } : { ...p, $defs: json.$defs }
    }
  }
  if (!Object.keys(properties).length) return undefined
  if (!json.properties) return { type: 'object', properties }
  const flat: JsonSchema = { ...json, properties }
  delete flat.$defs
  return flat
}

/**
 * zod puts recursive schemas (and ones given an id with .meta) under the converted schema's own
 * `$defs`, referenced as `#/$defs/<name>`; inside an OpenAPI document such a reference points
 * at the document's root and dangles. Each `$defs` found under `node` moves to the document's
 * components (named after the operation when zod named it `__schemaN`) and its references
 * follow it.
 */
export function hoistDefs(node: unknown, components: Record<string, unknown>, owner: string): void {
  if (!node || typeof node !== 'object') return
  const here = node as JsonSchema
  if (here.$defs && typeof here.$defs === 'object') {
    const renamed = new Map<string, string>()
    for (const [name, def] of Object.entries(here.$defs as Record<string, unknown>)) {
      const base = name.startsWith('__schema') ? `${owner}${name.slice(1)}` : name
      let unique = base
      for (let i = 2; unique in components && JSON.stringify(components[unique]) !== JSON.stringify(def); i++) unique = `${base}${i}`
      renamed.set(`#/$defs/${name}`, `#/components/schemas/${unique}`)
      components[unique] = def
    }
    delete here.$defs
    rewriteRefs(here, renamed)
    for (const name of renamed.values()) rewriteRefs(components[name.slice('#/components/schemas/'.length)], renamed)
  }
  for (const value of Object.values(here)) hoistDefs(value, components, owner)
}

function rewriteRefs(node: unknown, renamed: Map<string, string>): void {
  if (!node || typeof node !== 'object') return
  const here = node as JsonSchema
  if (typeof here.$ref === 'string' && renamed.has(here.$ref)) here.$ref = renamed.get(here.$ref)
  for (const value of Object.values(here)) rewriteRefs(value, renamed)
}
