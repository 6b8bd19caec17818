import type { OpenAPIV3_1 } from 'openapi-types'
import { NOTES, type OperationNotes } from './examples.js'
import { DEFAULT_PAGE, PAGES } from './pages.js'
import { hoistDefs, toJsonSchema, toParameterObject } from './schema.js'

type Kind = 'management' | 'v1' | 'operations' | 'pages'
type Operation = OpenAPIV3_1.OperationObject
type Schema = Record<string, unknown>

/**
 * Routes that are no interface for a client: the browser UI (dashboard, login, single-use login
 * links, this viewer, and `/api/session`, the dashboard's cookie-only probe an API key always gets
 * a 401 from), the forms the public pages post to themselves, the JSON 404 of a bare `/api`, and
 * wildcard routes, which a path template cannot express (docs/decisions.md).
 */
export function isHidden(url: string): boolean {
  return (
    url === '/api' ||
    url === '/api/session' ||
    url.includes('*') ||
    /^\/(dashboard|login|logout|sso|docs|_)(\/|$)/.test(url)
  )
}

export function kindOf(path: string): Kind {
  if (path.startsWith('/api/v1/') || path === '/api/v1' || /^\/links\/[^/]+\/destroy$/.test(path)) return 'v1'
  if (path.startsWith('/api/')) return 'management'
  if (/^\/(healthz|readyz|metrics|openapi\.json)$/.test(path)) return 'operations'
  return 'pages'
}

const KNOWN_TAGS: Record<string, string> = {
  account: 'Account',
  url: 'Links',
  domain: 'Branded domains',
  campaign: 'Campaigns',
  channel: 'Channels',
  pixel: 'Pixels',
  qr: 'QR codes',
  splash: 'Splash pages',
  overlay: 'CTA overlays',
  plan: 'Admin: plans',
  user: 'Admin: users',
  blocklist: 'Admin: blocklist',
  report: 'Admin: reports',
  webhook: 'Webhooks',
}

/** Tags whose every operation needs an admin's key (a preValidation hook on their plugins). */
const isAdminTag = (tag: string) => tag.startsWith('Admin: ')

/** One tag per resource: its first path segment, singular and plural alike ("urls", "url/add"). */
export function tagOf(path: string): string {
  const kind = kindOf(path)
  if (kind === 'v1') return 'Links (v1 interface)'
  if (kind === 'operations') return 'Operations'
  if (kind === 'pages') return 'Pages'
  const segment = path.split('/')[2] ?? ''
  const singular = segment.length > 2 ? segment.replace(/s$/, '') : segment
  if (KNOWN_TAGS[singular]) return KNOWN_TAGS[singular]
  // a resource added later gets its own tag without a change here
  return singular.charAt(0).toUpperCase() + singular.slice(1) + 's'
}

/**
 * @fastify/swagger's per-route transform: zod schemas become JSON Schema (query and path as flat
 * objects, one parameter per property), and routes of no client interest are hidden.
 */
export function transformRoute({ schema, url }: { schema: unknown; url: string }) {
  const s = (schema ?? {}) as Schema
  if (isHidden(url)) return { url, schema: { hide: true } }
  const out: Schema = { ...s }
  for (const part of ['querystring', 'params', 'headers'] as const) if (s[part] !== undefined) out[part] = toParameterObject(s[part])
  if (s.body !== undefined) out.body = toJsonSchema(s.body)
  for (const part of Object.keys(out)) if (out[part] === undefined) delete out[part]
  return { url, schema: out }
}

const ref = (name: string) => ({ $ref: `#/components/responses/${name}` })

/** `getApiUrlById`: stable, unique (one per method and path), for client generators. */
function operationId(method: string, path: string): string {
  const words = path
    .split('/')
    .filter(Boolean)
    .map((part) => {
      const param = /^\{(.+)\}$/.exec(part)
      const word = (param ? `by-${param[1]}` : part).replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())
      return word.charAt(0).toUpperCase() + word.slice(1)
    })
  return method + words.join('')
}

function successResponse(kind: Kind, notes: OperationNotes | undefined, method: string): OpenAPIV3_1.ResponseObject {
  if (notes?.produces) {
    const media: OpenAPIV3_1.MediaTypeObject = { schema: { type: 'string' } }
    if (notes.example !== undefined) media.example = notes.example
    return { description: `Success: the file, as ${notes.produces}.`, content: { [notes.produces]: media } }
  }
  const schemaName = kind === 'v1' ? 'V1Success' : kind === 'management' ? 'Success' : undefined
  const description =
    kind === 'management'
      ? method === 'get'
        ? 'Success. `error` is 0, or the string "0" on lists and queries (a number with COMPAT_LIST_ERROR=number).'
        : 'Success: `error` is 0.'
      : kind === 'v1'
        ? 'Success: `error` is 0 ("0" on the list) and `status` repeats the HTTP status.'
        : 'Success.'
  // a typed body where examples.ts gives one (envelopes.ts), else the bare envelope
  const schema = notes?.schema ?? (schemaName ? { $ref: `#/components/schemas/${schemaName}` } : undefined)
  const media: OpenAPIV3_1.MediaTypeObject = schema ? { schema } : {}
  if (notes?.example !== undefined) media.example = notes.example
  return schema || notes?.example !== undefined ? { description, content: { 'application/json': media } } : { description }
}

function errorResponses(kind: Kind, method: string, op: Operation): Record<string, unknown> {
  const params = (op.parameters ?? []).filter((p): p is OpenAPIV3_1.ParameterObject => 'in' in p)
  const takesInput = Boolean(op.requestBody) || params.some((p) => p.in === 'query')
  // an id in the path, or a lookup by short URL, can name nothing of the caller's
  const findsOne = params.some((p) => p.in === 'path' || p.name === 'short')
  // the router refuses a path parameter over maxParamLength before any handler (http/errors.ts)
  const tooLong = params.some((p) => p.in === 'path')
  const writes = method === 'post' || method === 'put'
  // every body is capped (DECISIONS §2) and read only in the types the interface takes
  const hasBody = Boolean(op.requestBody)
  if (kind === 'management') {
    return {
      // a malformed %-escape in any path is a 400, whatever the route takes
      400: ref('BadRequest'),
      401: ref('Unauthorized'),
      403: ref('Forbidden'),
      ...(findsOne ? { 404: ref('NotFound') } : {}),
      ...(writes ? { 409: ref('Conflict') } : {}),
      ...(hasBody ? { 413: ref('PayloadTooLarge'), 415: ref('UnsupportedMediaType') } : {}),
      ...(tooLong ? { 414: ref('UriTooLong') } : {}),
      429: ref('RateLimited'),
      // every operation reads the database, the key's own lookup first
      503: ref('DatabaseUnavailable'),
    }
  }
  if (kind === 'v1') {
    return {
      400: ref('V1BadRequest'),
      401: ref('V1Unauthorized'),
      403: ref('V1Forbidden'),
      ...(findsOne ? { 404: ref('V1NotFound') } : {}),
      ...(hasBody ? { 413: ref('V1PayloadTooLarge'), 415: ref('V1UnsupportedMediaType') } : {}),
      ...(tooLong ? { 414: ref('V1UriTooLong') } : {}),
      ...(takesInput ? { 422: ref('V1Invalid') } : {}),
      429: ref('V1RateLimited'),
      503: ref('V1DatabaseUnavailable'),
    }
  }
  return {}
}

type Json = Record<string, unknown>
const isPlain = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

/** `patch` over `target`, objects merged key by key (arrays and values replace). */
function merge(target: Json, patch: Json): Json {
  for (const [key, value] of Object.entries(patch)) target[key] = isPlain(value) && isPlain(target[key]) ? merge(target[key] as Json, value) : structuredClone(value)
  return target
}

/** What the notes say of the inputs: the body a handler reads itself, and what a route schema says too loosely. */
function completeInputs(op: Operation, notes: OperationNotes) {
  if (notes.query) {
    const sent = new Set((op.parameters ?? []).map((p) => ('name' in p ? p.name : '')))
    const extra = Object.entries(notes.query)
      .filter(([name]) => !sent.has(name))
      .map(([name, schema]) => ({ in: 'query', name, required: false, schema }) as OpenAPIV3_1.ParameterObject)
    op.parameters = [...(op.parameters ?? []), ...extra]
  }
  for (const p of op.parameters ?? []) {
    if (!('name' in p) || !notes.params?.[p.name]) continue
    Object.assign(p, { schema: merge((p.schema ?? {}) as Json, notes.params[p.name]) })
  }
  if (notes.body && !op.requestBody) {
    const { content, description, required, encoding } = notes.body
    op.requestBody = {
      ...(required ? { required } : {}),
      ...(description ? { description } : {}),
      content: Object.fromEntries(Object.entries(content).map(([type, schema]) => [type, { schema, ...(encoding?.[type] ? { encoding: encoding[type] } : {}) }])),
    }
  }
  if (!op.requestBody || !('content' in op.requestBody)) return
  for (const media of Object.values(op.requestBody.content)) {
    if (notes.requestExample !== undefined) media.example = notes.requestExample
    const schema = media.schema as Json | undefined
    if (!schema?.properties) continue
    const properties = schema.properties as Json
    for (const [name, patch] of Object.entries(notes.fields ?? {})) properties[name] = merge((properties[name] ?? {}) as Json, patch)
    if (notes.requires) schema.required = [...new Set([...((schema.required as string[] | undefined) ?? []), ...notes.requires])]
  }
}

/** Adds what a route's schema does not carry: tags, summaries, security, answers and examples. */
function completeOperation(method: string, path: string, op: Operation) {
  const kind = kindOf(path)
  const key = `${method.toUpperCase()} ${path}`
  const notes = NOTES[key] ?? {}
  const page = kind === 'pages' ? (PAGES[key] ?? { responses: DEFAULT_PAGE }) : undefined
  op.tags = notes.tag ? [notes.tag] : op.tags?.length ? op.tags : [tagOf(path)]
  op.operationId ??= operationId(method, path)
  if (notes.summary && !op.summary) op.summary = notes.summary
  if (notes.description && !op.description) op.description = notes.description
  if (op.tags.some(isAdminTag) && !op.description?.startsWith('Admin only.')) op.description = op.description ? `Admin only. ${op.description}` : 'Admin only.'
  completeInputs(op, page?.body && !notes.body ? { ...notes, body: page.body } : notes)
  if (kind === 'pages' || kind === 'operations') op.security = notes.security ?? []
  const success = String(notes.status ?? 200)
  const given = op.responses ?? {}
  // @fastify/swagger's placeholder for a route without a response schema
  if ((given['200'] as OpenAPIV3_1.ResponseObject | undefined)?.description === 'Default Response') delete given['200']
  const failures = Object.fromEntries(Object.entries(notes.failures ?? {}).map(([status, name]) => [status, ref(name)]))
  const generated = page ? {} : { [success]: successResponse(kind, notes, method), ...errorResponses(kind, method, op) }
  op.responses = { ...generated, ...page?.responses, ...failures, ...notes.responses, ...given } as OpenAPIV3_1.ResponsesObject
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const

/** @fastify/swagger's whole-document transform. */
export function completeDocument(doc: OpenAPIV3_1.Document): OpenAPIV3_1.Document {
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item?.[method]
      if (!op) continue
      completeOperation(method, path, op)
      hoistDefs(op, ((doc.components ??= {}).schemas ??= {}) as Record<string, unknown>, op.operationId!)
    }
  }
  declareTags(doc)
  return doc
}

/** Every tag an operation uses is declared with a description: a resource added later gets one naming its paths. */
function declareTags(doc: OpenAPIV3_1.Document) {
  const declared = new Set((doc.tags ?? []).map((t) => t.name))
  const used = new Map<string, string>()
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) for (const tag of item?.[method]?.tags ?? []) if (!used.has(tag)) used.set(tag, path)
  }
  const missing = [...used].filter(([tag]) => !declared.has(tag))
  doc.tags = [...(doc.tags ?? []), ...missing.map(([name, path]) => ({ name, description: `The operations under ${path.split('/').slice(0, 3).join('/')}.` }))]
}
