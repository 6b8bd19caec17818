import type { OpenAPIV3_1 } from 'openapi-types'
import { NOTES, type OperationNotes } from './examples.js'
import { hoistDefs, toJsonSchema, toParameterObject } from './schema.js'

type Kind = 'management' | 'v1' | 'operations' | 'pages'
type Operation = OpenAPIV3_1.OperationObject
type Schema = Record<string, unknown>

/**
 * Routes that are no interface for a client: the browser UI (dashboard, login, single-use login
 * links, this viewer), the forms the public pages post to themselves, the JSON 404 of a bare
 * `/api`, and wildcard routes, which a path template cannot express (docs/decisions.md).
 */
export function isHidden(url: string): boolean {
  return (
    url === '/api' ||
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
}

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
  if (kind === 'pages') {
    return { description: 'An HTML page, an image, or a redirect (3xx with Location) for a short link.' }
  }
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
  const media: OpenAPIV3_1.MediaTypeObject = schemaName ? { schema: { $ref: `#/components/schemas/${schemaName}` } } : {}
  if (notes?.example !== undefined) media.example = notes.example
  return schemaName || notes?.example !== undefined ? { description, content: { 'application/json': media } } : { description }
}

function errorResponses(kind: Kind, method: string, op: Operation): Record<string, unknown> {
  const params = (op.parameters ?? []).filter((p): p is OpenAPIV3_1.ParameterObject => 'in' in p)
  const takesInput = Boolean(op.requestBody) || params.some((p) => p.in === 'query')
  // an id in the path, or a lookup by short URL, can name nothing of the caller's
  const findsOne = params.some((p) => p.in === 'path' || p.name === 'short')
  const writes = method === 'post' || method === 'put'
  // every body is capped (DECISIONS §2) and read only in the types the interface takes
  const hasBody = Boolean(op.requestBody)
  if (kind === 'management') {
    return {
      ...(takesInput ? { 400: ref('BadRequest') } : {}),
      401: ref('Unauthorized'),
      403: ref('Forbidden'),
      ...(findsOne ? { 404: ref('NotFound') } : {}),
      ...(writes ? { 409: ref('Conflict') } : {}),
      ...(hasBody ? { 413: ref('PayloadTooLarge'), 415: ref('UnsupportedMediaType') } : {}),
      429: ref('RateLimited'),
    }
  }
  if (kind === 'v1') {
    return {
      401: ref('V1Unauthorized'),
      403: ref('V1Forbidden'),
      ...(findsOne ? { 404: ref('V1NotFound') } : {}),
      ...(hasBody ? { 413: ref('V1PayloadTooLarge'), 415: ref('V1UnsupportedMediaType') } : {}),
      ...(takesInput ? { 422: ref('V1Invalid') } : {}),
      429: ref('V1RateLimited'),
    }
  }
  return {}
}

/** Adds what a route's schema does not carry: tags, summaries, security, answers and examples. */
function completeOperation(method: string, path: string, op: Operation) {
  const kind = kindOf(path)
  const notes = NOTES[`${method.toUpperCase()} ${path}`]
  op.tags = op.tags?.length ? op.tags : [tagOf(path)]
  op.operationId ??= operationId(method, path)
  if (notes?.summary && !op.summary) op.summary = notes.summary
  if (notes?.description && !op.description) op.description = notes.description
  if (notes?.query) {
    const sent = new Set((op.parameters ?? []).map((p) => ('name' in p ? p.name : '')))
    const extra = Object.entries(notes.query)
      .filter(([name]) => !sent.has(name))
      .map(([name, schema]) => ({ in: 'query', name, required: false, schema }) as OpenAPIV3_1.ParameterObject)
    op.parameters = [...(op.parameters ?? []), ...extra]
  }
  if (notes?.body && !op.requestBody) {
    const { content, description, required } = notes.body
    op.requestBody = { ...(required ? { required } : {}), ...(description ? { description } : {}), content: Object.fromEntries(Object.entries(content).map(([type, schema]) => [type, { schema }])) }
  }
  if (notes?.requestExample !== undefined && op.requestBody && 'content' in op.requestBody) {
    for (const media of Object.values(op.requestBody.content)) media.example = notes.requestExample
  }
  if (kind === 'pages' || kind === 'operations') op.security = notes?.security ?? []
  const success = String(notes?.status ?? 200)
  const given = op.responses ?? {}
  // @fastify/swagger's placeholder for a route without a response schema
  if ((given['200'] as OpenAPIV3_1.ResponseObject | undefined)?.description === 'Default Response') delete given['200']
  const failures = Object.fromEntries(Object.entries(notes?.failures ?? {}).map(([status, name]) => [status, ref(name)]))
  op.responses = { [success]: successResponse(kind, notes, method), ...errorResponses(kind, method, op), ...failures, ...given } as OpenAPIV3_1.ResponsesObject
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
  return doc
}
