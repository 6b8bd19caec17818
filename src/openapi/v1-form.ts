import type { OpenAPIV3_1 } from 'openapi-types'
import { MAX_ID } from '../http/fields.js'
import { V1_FIELDS } from '../resources/v1-links/fields.js'
import { MAX_LIST } from '../resources/v1-links/form.js'
import { PLATFORMS } from '../resources/v1-links/schemas.js'

/*
 * The body of v1's create and update (SPEC.md "Link interface v1"). Those routes read their body
 * themselves (v1-links/fields.ts, V1_FIELDS), so the document builds it from the same table: which
 * fields there are, which one create requires and which one update does not take (`domain`).
 */

type Schema = Record<string, unknown>

const id = (what: string): Schema => ({ type: 'integer', minimum: 1, maximum: MAX_ID, description: what })

/** In a form a list is sent with brackets; in JSON it is an array of objects. */
const brackets = (field: string, key: string | null) =>
  key === null
    ? `In a form: \`${field}[0][value]=https://example.com/a&${field}[1][value]=https://example.com/b\`. In JSON: \`[{"value": "https://example.com/a"}]\`.`
    : `In a form: \`${field}[0][key]=${key}&${field}[0][value]=https://example.com/…\` (one index per target). In JSON: \`[{"key": "${key}", "value": "https://example.com/…"}]\`.`

const target = (field: string, key: Schema | null, example: string | null, what: string): Schema => ({
  type: 'array',
  maxItems: MAX_LIST,
  description: `${what} ${brackets(field, example)}`,
  items: {
    type: 'object',
    required: key ? ['key', 'value'] : ['value'],
    properties: { ...(key ? { key } : {}), value: { type: 'string', description: 'the URL visitors it matches go to' } },
  },
})

/** Each field's type, by its SPEC.md name; a field V1_FIELDS gains later is documented as a string until it is added here. */
const TYPES: Record<string, Schema> = {
  url: { type: 'string', description: 'the long URL to shorten (http:// or https://)' },
  domain: id('a branded domain id (also read as `domain_id`); create only: a link keeps its domain'),
  alias: { type: 'string', maxLength: 255, description: 'the custom alias; a random one when absent' },
  password: { type: 'string', maxLength: 1024, description: 'asked before the redirect; blank on update removes it' },
  space: id('a channel id (also read as `space_id`); blank on update takes the link out of its channels'),
  pixels: {
    type: 'array',
    maxItems: MAX_LIST,
    items: { type: 'integer', minimum: 1, maximum: MAX_ID },
    description: 'pixel ids (also read as `pixel_ids`): `pixels[]=1&pixels[]=2` or `pixels=1,2` in a form',
  },
  disabled: { type: 'integer', enum: [0, 1], description: '0 active, 1 disabled; 0 on create' },
  privacy: { type: 'integer', enum: [0, 1, 2], description: 'of the statistics page: 0 public, 1 private, 2 password; 0 on create' },
  privacy_password: { type: 'string', maxLength: 1024, description: 'required when privacy is 2' },
  expiration_url: { type: 'string', description: 'where an expired link goes' },
  expiration_clicks: { type: 'integer', minimum: 0, maximum: MAX_ID, description: 'the link expires after this many clicks; 0 for no cap' },
  expiration_date: { type: 'string', format: 'date', description: 'YYYY-MM-DD (UTC), with expiration_time' },
  expiration_time: { type: 'string', pattern: '^\\d{2}:\\d{2}(:\\d{2})?$', description: 'HH:MM (UTC); 00:00 when absent' },
  title: { type: 'string', maxLength: 255, description: "(extension) the link's title" },
  target_type: {
    type: 'integer',
    enum: [0, 1, 2, 3, 4],
    description: '0 none, 1 geographic (`country`), 2 platform (`platform`), 3 language (`language`), 4 rotation (`rotation`): only that list is read',
  },
  country: target('country', { type: 'string', description: 'a two-letter country code (ISO 3166-1 alpha-2)' }, 'DE', 'Geographic targets.'),
  platform: target('platform', { type: 'string', enum: [...PLATFORMS], description: 'matched without regard to case' }, 'iOS', 'Platform targets.'),
  language: target('language', { type: 'string', description: 'a two-letter language code (ISO 639-1)' }, 'de', 'Language targets.'),
  rotation: target('rotation', null, null, 'URLs visits rotate between.'),
}

function form(mode: 'create' | 'update'): Schema {
  const rows = V1_FIELDS.filter((row) => mode === 'create' || !row.createOnly)
  const properties = Object.fromEntries(rows.map((row) => [row.name, TYPES[row.name] ?? { type: 'string' }]))
  const required = mode === 'create' ? rows.filter((row) => row.required).map((row) => row.name) : []
  return { type: 'object', ...(required.length ? { required } : {}), properties }
}

/** Lists of objects go with brackets in a form (`country[0][key]=DE`): the deepObject style. */
const ENCODING: Record<string, OpenAPIV3_1.EncodingObject> = Object.fromEntries(
  ['country', 'platform', 'language', 'rotation'].map((field) => [field, { style: 'deepObject', explode: true }]),
)

export const v1Body = (mode: 'create' | 'update') => {
  const schema = form(mode)
  return {
    required: mode === 'create',
    description:
      mode === 'create'
        ? 'Form-encoded (as SPEC.md sends it) or JSON with the same names. `url` is required.'
        : 'Form-encoded or JSON with the same names: only the fields sent change. No `domain`: a link keeps its domain.',
    content: { 'application/x-www-form-urlencoded': schema, 'application/json': schema },
    encoding: { 'application/x-www-form-urlencoded': ENCODING },
  }
}
