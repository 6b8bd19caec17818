import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import Fastify from 'fastify'
import { z } from 'zod'
import SwaggerParser from '@apidevtools/swagger-parser'
import type { OpenAPIV3_1 } from 'openapi-types'
import openapi from '../../src/openapi/index.js'
import { validatorCompiler } from '../../src/http/zod.js'
import { FALSE, TRUE } from '../../src/http/fields.js'
import { loadConfig } from '../../src/config.js'
import { CHANNEL_ITEM_TYPES, QR_TYPES, WEBHOOK_EVENTS } from '../../src/db/schema/index.js'
import { PLATFORMS } from '../../src/resources/v1-links/schemas.js'
import { testApp, testConfig, TEST_SECRET, type TestApp } from '../helpers/app.js'

type Doc = OpenAPIV3_1.Document

/**
 * Every route Fastify has, as "METHOD /path" with path parameters written `{}`, read from
 * printRoutes' tree (independent of the onRoute hook the document is built from). A node shared
 * by routes with different parameter names prints as `:id|:planid`.
 */
function registeredRoutes(tree: string): string[] {
  const out: string[] = []
  const stack: string[] = []
  for (const line of tree.split('\n')) {
    const m = /^((?:│ {3}| {4})*)(?:├── |└── )(.*?)(?: \(([A-Z, ]+)\))?$/.exec(line)
    if (!m) continue
    const depth = m[1].length / 4
    stack.length = depth
    const path = (stack[depth - 1] ?? '') + m[2]
    stack[depth] = path
    for (const method of m[3]?.split(', ') ?? []) out.push(`${method} ${path.replace(/:[^/]+/g, '{}')}`)
  }
  return out
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'] as const
type Op = OpenAPIV3_1.OperationObject
const operations = (doc: Doc): [string, Op][] =>
  Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
    METHODS.filter((m) => item?.[m]).map((m) => [`${m.toUpperCase()} ${path}`, item![m]!] as [string, Op]),
  )
const jsonBody = (op: Op) => (op.requestBody as OpenAPIV3_1.RequestBodyObject).content['application/json'].schema as any
const param = (op: Op, name: string) => (op.parameters as OpenAPIV3_1.ParameterObject[]).find((p) => p.name === name)!

const documented = (doc: Doc) =>
  Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
    Object.keys(item ?? {})
      .filter((k) => ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'].includes(k))
      .map((method) => `${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, '{}')}`),
  )

describe('GET /openapi.json', () => {
  let t: TestApp
  let doc: Doc
  beforeAll(async () => {
    t = await testApp()
    const res = await t.api().get('/openapi.json')
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toMatch(/^application\/json/)
    doc = res.json()
  })
  afterAll(() => t.close())

  it('is built once: later requests send the same text without building it again', async () => {
    const build = vi.spyOn(t.app, 'swagger')
    try {
      const again = await t.api().get('/openapi.json')
      expect(again.statusCode).toBe(200)
      expect(again.headers['content-type']).toMatch(/^application\/json/)
      expect(again.json()).toEqual(doc)
      expect(build).not.toHaveBeenCalled()
    } finally {
      build.mockRestore()
    }
  })

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0')
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy()
  })

  it('has every API route Fastify serves, with its method', () => {
    const routes = registeredRoutes(t.app.printRoutes({ commonPrefix: false }))
    const api = routes.filter(
      (r) =>
        // HEAD is Fastify's automatic twin of each GET; ALL /api is the JSON 404 of a bare /api;
        // GET /api/session is the dashboard's cookie-only probe (hidden like /login)
        !r.startsWith('HEAD ') && r !== 'GET /api/session' && /^[A-Z]+ (\/api\/|\/links\/\{\}\/destroy$)/.test(r),
    )
    // the parse found the routes: both interfaces are there
    expect(api).toEqual(expect.arrayContaining(['GET /api/urls', 'POST /api/url/add', 'DELETE /api/url/{}/delete', 'GET /api/v1/links', 'DELETE /links/{}/destroy']))
    expect(api.length).toBeGreaterThan(50)
    const inDoc = new Set(documented(doc))
    expect(api.filter((r) => !inDoc.has(r))).toEqual([])
  })

  it('describes the key, the answers and the failures', () => {
    expect(doc.components?.securitySchemes?.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' })
    expect(doc.security).toEqual([{ apiKey: [] }])
    expect(doc.components?.schemas?.Error).toMatchObject({ required: ['error', 'message'] })

    const add = doc.paths!['/api/url/add']!.post!
    expect(add.tags).toEqual(['Links'])
    const body = (add.requestBody as OpenAPIV3_1.RequestBodyObject).content['application/json'].schema as OpenAPIV3_1.SchemaObject
    expect(body.required).toContain('url')
    expect(Object.keys(body.properties ?? {})).toEqual(expect.arrayContaining(['url', 'custom', 'domain', 'geotarget', 'deeplink']))
    const ok = add.responses['200'] as OpenAPIV3_1.ResponseObject
    expect(ok.content?.['application/json'].example).toMatchObject({ error: 0, id: expect.any(Number), shorturl: expect.any(String) })
    expect(add.responses['400']).toEqual({ $ref: '#/components/responses/BadRequest' })
    expect(add.responses['401']).toEqual({ $ref: '#/components/responses/Unauthorized' })

    const list = doc.paths!['/api/urls']!.get!
    const names = (list.parameters as OpenAPIV3_1.ParameterObject[]).map((p) => p.name)
    expect(names).toEqual(expect.arrayContaining(['short', 'limit', 'page', 'order', 'q']))

    const v1Create = doc.paths!['/api/v1/links']!.post!
    expect(v1Create.tags).toEqual(['Links (v1 interface)'])
    expect(Object.keys((v1Create.requestBody as OpenAPIV3_1.RequestBodyObject).content)).toContain('application/x-www-form-urlencoded')
    expect(Object.keys(v1Create.responses)).toEqual(expect.arrayContaining(['201', '401', '422', '429']))
    expect(doc.paths!['/links/{id}/destroy']!.delete!.parameters).toEqual([expect.objectContaining({ in: 'path', name: 'id', required: true })])
  })

  it('documents import and export as they are: the file bodies, the CSV answers and the body failures', () => {
    const imp = doc.paths!['/api/urls/import']!.post!
    const body = imp.requestBody as OpenAPIV3_1.RequestBodyObject
    expect(body.required).toBe(true)
    expect(body.description).toMatch(/20 MiB/)
    expect(Object.keys(body.content).sort()).toEqual(['application/json', 'text/csv'])
    expect(body.content['text/csv'].schema).toMatchObject({ type: 'string' })
    expect(imp.parameters).toEqual([expect.objectContaining({ in: 'query', name: 'format', schema: expect.objectContaining({ enum: ['csv', 'bitly', 'yourls', 'shlink', 'kutt'] }) })])
    expect(imp.responses['413']).toEqual({ $ref: '#/components/responses/ImportTooLarge' })
    expect(imp.responses['415']).toEqual({ $ref: '#/components/responses/ImportUnsupportedMediaType' })
    const example = (name: string) => (doc.components!.responses![name] as OpenAPIV3_1.ResponseObject).content!['application/json'].example.message
    expect(example('ImportTooLarge')).toMatch(/20 MiB/)
    expect(example('ImportUnsupportedMediaType')).toMatch(/text\/csv or application\/json/)
    expect((imp.responses['200'] as OpenAPIV3_1.ResponseObject).content!['application/json'].example).toMatchObject({ error: 0, imported: expect.any(Number), skipped: expect.any(Number), errors: expect.any(Array) })

    for (const path of ['/api/urls/export', '/api/url/{id}/clicks/export']) {
      const ok = doc.paths![path]!.get!.responses['200'] as OpenAPIV3_1.ResponseObject
      expect(Object.keys(ok.content ?? {}), path).toEqual(['text/csv'])
      expect(ok.content!['text/csv'].example, path).toMatch(/^(id,alias|date,country),/)
    }
    // every other body is capped at 1 MiB and read as JSON (v1: form-encoded too)
    expect(doc.paths!['/api/url/add']!.post!.responses['413']).toEqual({ $ref: '#/components/responses/PayloadTooLarge' })
    expect(doc.paths!['/api/url/add']!.post!.responses['415']).toEqual({ $ref: '#/components/responses/UnsupportedMediaType' })
    expect(doc.paths!['/api/v1/links']!.post!.responses['415']).toEqual({ $ref: '#/components/responses/V1UnsupportedMediaType' })
    expect(doc.paths!['/api/urls']!.get!.responses['413']).toBeUndefined()
  })

  it('documents the public pages without a key and leaves the browser UI out', () => {
    const visit = doc.paths!['/{alias}']!.get!
    expect(visit.tags).toEqual(['Pages'])
    expect(visit.security).toEqual([])
    expect(doc.paths!['/healthz']!.get!.security).toEqual([])
    const paths = Object.keys(doc.paths ?? {})
    expect(paths.filter((p) => /^\/(dashboard|login|logout|sso|docs|_)(\/|$)/.test(p) || p === '/api')).toEqual([])
    // the dashboard's session probe answers an API key 401 whatever it sends: no interface
    expect(paths).not.toContain('/api/session')
    expect(operations(doc).flatMap(([, op]) => op.tags ?? [])).not.toContain('Sessions')
  })

  it('documents what the server refuses: required fields, enums, booleans and bounds', () => {
    const qrAdd = jsonBody(doc.paths!['/api/qr/add']!.post!)
    expect(qrAdd.required).toEqual(expect.arrayContaining(['type', 'data']))
    expect(qrAdd.properties.type.enum).toEqual([...QR_TYPES])
    expect(qrAdd.properties.data.type).toEqual(['string', 'object'])
    const qrUpdate = jsonBody(doc.paths!['/api/qr/{id}/update']!.put!)
    expect(qrUpdate.required).toEqual(['data'])
    expect(param(doc.paths!['/api/channel/{channelid}/assign/{type}/{itemid}']!.post!, 'type').schema).toMatchObject({ enum: [...CHANNEL_ITEM_TYPES] })
    for (const op of [doc.paths!['/api/webhook/add']!.post!, doc.paths!['/api/webhook/{id}/update']!.put!]) {
      expect(jsonBody(op).properties.events.items.enum).toEqual([...WEBHOOK_EVENTS])
    }

    // every boolish field says what it accepts (http/fields.ts TRUE and FALSE), not "any value"
    const boolish = {
      oneOf: [
        { type: 'boolean' },
        { type: 'integer', enum: [...TRUE, ...FALSE].filter((v) => typeof v === 'number') },
        { type: 'string', enum: [...TRUE, ...FALSE].filter((v) => typeof v === 'string') },
      ],
    }
    const plan = jsonBody(doc.paths!['/api/plan/add']!.post!).properties
    const hook = jsonBody(doc.paths!['/api/webhook/{id}/update']!.put!).properties
    for (const field of [
      jsonBody(doc.paths!['/api/campaign/add']!.post!).properties.public,
      jsonBody(doc.paths!['/api/channel/add']!.post!).properties.starred,
      jsonBody(doc.paths!['/api/url/add']!.post!).properties.deeplink.properties.auto,
      plan.free,
      plan.default,
      plan.limits.properties.api.properties.enabled,
      hook.enabled,
      hook.rotateSecret,
      param(doc.paths!['/api/url/{id}']!.get!, 'full').schema,
    ]) {
      expect(field).toMatchObject(boolish)
    }
    // no body field or parameter is left as "any value" (a transform JSON Schema cannot express)
    const loose: string[] = []
    const walk = (node: unknown, at: string) => {
      if (!node || typeof node !== 'object') return
      if (!Array.isArray(node) && Object.keys(node).length === 0) loose.push(at)
      for (const [k, v] of Object.entries(node)) if (k !== 'example' && k !== 'examples') walk(v, `${at}.${k}`)
    }
    for (const [name, op] of operations(doc)) {
      for (const [type, media] of Object.entries((op.requestBody as OpenAPIV3_1.RequestBodyObject | undefined)?.content ?? {})) {
        if (type === 'application/json' || type === 'application/x-www-form-urlencoded') walk(media.schema, `${name} ${type}`)
      }
      for (const p of (op.parameters ?? []) as OpenAPIV3_1.ParameterObject[]) walk(p.schema, `${name} ${p.name}`)
    }
    expect(loose).toEqual([])

    // v1: url required on create, no domain on update, the list's bounds as integers, ids as integers
    const v1Create = doc.paths!['/api/v1/links']!.post!
    const v1Update = doc.paths!['/api/v1/links/{id}']!.put!
    for (const type of ['application/x-www-form-urlencoded', 'application/json']) {
      const create = (v1Create.requestBody as OpenAPIV3_1.RequestBodyObject).content[type].schema as any
      const update = (v1Update.requestBody as OpenAPIV3_1.RequestBodyObject).content[type].schema as any
      expect(create.required).toEqual(['url'])
      expect(create.properties.domain).toMatchObject({ type: 'integer' })
      expect(create.properties.space).toMatchObject({ type: 'integer', minimum: 1 })
      expect(update.properties.domain).toBeUndefined()
      expect(update.required).toBeUndefined()
      expect(Object.keys(update.properties)).toEqual(Object.keys(create.properties).filter((k) => k !== 'domain'))
    }
    const list = doc.paths!['/api/v1/links']!.get!
    expect(param(list, 'per_page').schema).toEqual({ type: 'integer', minimum: 10, maximum: 100 })
    expect(param(list, 'status').schema).toEqual({ type: 'integer', minimum: 0, maximum: 3 })
  })

  it('documents the v1 form encoding of targets and the platform names', () => {
    const media = (doc.paths!['/api/v1/links']!.post!.requestBody as OpenAPIV3_1.RequestBodyObject).content['application/x-www-form-urlencoded']
    const form = media.schema as any
    for (const field of ['country', 'platform', 'language', 'rotation']) {
      expect(media.encoding?.[field], field).toEqual({ style: 'deepObject', explode: true })
      expect(form.properties[field].description, field).toContain(`${field}[0][`)
    }
    expect(form.properties.country.description).toContain('country[0][key]=DE&country[0][value]=')
    expect(form.properties.platform.items.properties.key.enum).toEqual([...PLATFORMS])
    expect(form.properties.target_type.enum).toEqual([0, 1, 2, 3, 4])
  })

  it('documents the failures each operation can give', () => {
    for (const [name, op] of operations(doc)) {
      if (name.includes(' /api/')) expect(op.responses!['400'], name).toBeDefined()
    }
    expect(doc.paths!['/api/account']!.get!.responses['400']).toEqual({ $ref: '#/components/responses/BadRequest' })
    expect(doc.paths!['/api/v1/links/{id}']!.get!.responses['400']).toEqual({ $ref: '#/components/responses/V1BadRequest' })
    const responses = doc.components!.responses! as Record<string, OpenAPIV3_1.ResponseObject>
    const examples = (name: string) => Object.values(responses[name].content!['application/json'].examples!).map((e: any) => e.value.message)
    expect(examples('BadRequest')).toContain('The path holds a malformed %-escape: encode a literal % as %25.')
    expect(doc.paths!['/api/user/{id}/delete']!.delete!.responses['400']).toEqual({ $ref: '#/components/responses/UserDeleteRefused' })
    expect(examples('UserDeleteRefused')).toContain('You cannot delete your own account.')

    const ready = doc.paths!['/readyz']!.get!.responses as Record<string, OpenAPIV3_1.ResponseObject>
    const values = (r: OpenAPIV3_1.ResponseObject) => Object.values(r.content!['application/json'].examples!).map((e: any) => e.value)
    expect(values(ready['200'])).toEqual([{ status: 'ok' }, { status: 'degraded', redis: 'down' }])
    expect(values(ready['503'])).toEqual([
      { status: 'unavailable', error: 1, message: expect.stringMatching(/database/) },
      { status: 'unavailable', error: 1, message: expect.stringMatching(/secret:rotate/) },
    ])

    // v1's budget: the example and the words say its own default (V1_RATE_LIMIT_MAX), not the management one
    const defaults = loadConfig({ PUBLIC_URL: 'http://kurz.test', SECRET_KEY: TEST_SECRET }).rateLimit
    const limited = responses.V1RateLimited
    expect(limited.description).toContain('V1_RATE_LIMIT_MAX')
    expect(limited.content!['application/json'].example.message).toContain(`at most ${defaults.v1Max} requests`)
    expect(responses.RateLimited.content!['application/json'].example.message).toContain(`at most ${defaults.max} requests`)
  })

  it('documents what the pages answer: redirects with Location, and HTML failures', () => {
    const redirect = doc.components!.responses!.Redirect as OpenAPIV3_1.ResponseObject
    expect(redirect.headers?.Location).toMatchObject({ required: true })
    const visit = doc.paths!['/{alias}']!.get!.responses as Record<string, any>
    for (const status of ['301', '302', '307', '308']) expect(visit[status].$ref, status).toBe('#/components/responses/Redirect')
    expect(Object.keys(visit['200'].content)).toEqual(['text/html'])
    for (const [status, name] of [['404', 'PageNotFound'], ['410', 'LinkExpired'], ['451', 'LinkQuarantined']]) {
      expect(visit[status].$ref, status).toBe(`#/components/responses/${name}`)
      expect(Object.keys((doc.components!.responses![name] as OpenAPIV3_1.ResponseObject).content ?? {}), name).toEqual(['text/html'])
    }
    expect(doc.paths!['/q/{alias}']!.get!.responses['302']).toMatchObject({ $ref: '#/components/responses/Redirect' })
    expect(Object.keys((doc.paths!['/qr/{alias}']!.get!.responses['200'] as OpenAPIV3_1.ResponseObject).content ?? {})).toEqual(['image/png', 'image/svg+xml'])
    // no page is documented as a bare 200 without a content type
    for (const [name, op] of operations(doc).filter(([, op]) => op.tags?.includes('Pages'))) {
      const ok = op.responses!['200'] as OpenAPIV3_1.ResponseObject
      expect(Object.keys(ok.content ?? {}).length, name).toBeGreaterThan(0)
      expect(Object.keys(op.responses!).length, name).toBeGreaterThan(1)
    }
  })

  it('gives every operation a summary, says which are admin only, and declares every tag it uses', () => {
    const declared = new Map((doc.tags ?? []).map((t) => [t.name, t.description]))
    for (const [name, op] of operations(doc)) {
      expect(op.summary, name).toBeTruthy()
      for (const tag of op.tags ?? []) expect(declared.get(tag), `${name}: tag ${tag}`).toBeTruthy()
    }
    const admin = operations(doc).filter(([name]) => /^[A-Z]+ \/api\/(blocklist|reports?|users?|plans?)(\/|$)/.test(name) || name === 'POST /api/url/{id}/release')
    expect(admin.length).toBeGreaterThanOrEqual(15)
    for (const [name, op] of admin) expect(op.description, name).toMatch(/^Admin only\./)
    expect(doc.paths!['/api/account']!.get!.description ?? '').not.toMatch(/Admin only/)
  })

  it('documents the metrics token and the report form as they answer', () => {
    const metrics = doc.paths!['/metrics']!.get!
    expect(metrics.security).toEqual([{}, { metricsToken: [] }])
    expect(doc.components!.securitySchemes!.metricsToken).toMatchObject({ type: 'http', scheme: 'bearer' })
    expect(metrics.responses['401']).toEqual({ $ref: '#/components/responses/MetricsUnauthorized' })
    expect(Object.keys((metrics.responses['200'] as any).content)).toEqual(['text/plain'])
    const report = doc.paths!['/{alias}/report']!.post!
    const form = (report.requestBody as any).content['application/x-www-form-urlencoded'].schema
    expect(form.required).toEqual(['reason'])
    expect(Object.keys(form.properties)).toEqual(['reason', 'comment', 'email'])
    // 503: the page every visit gets while the database is away
    expect(Object.keys(report.responses).sort()).toEqual(['200', '400', '404', '429', '503'])
  })

  it('needs no API key', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' })
    expect(res.statusCode).toBe(200)
  })
})

describe('GET /docs', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await testApp()
  })
  afterAll(() => t.close())

  it('serves the viewer and every asset it loads from Kurz itself, under a strict CSP', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs' })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toMatch(/^text\/html/)
    const csp = String(res.headers['content-security-policy'])
    expect(csp).toContain("default-src 'none'")
    expect(csp).toMatch(/script-src 'self'(;|$)/)
    expect(csp).toContain("frame-ancestors 'none'")
    // no inline script: every <script> has a src
    expect(res.body).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/)
    const assets = [...res.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1])
    expect(assets.length).toBeGreaterThanOrEqual(4)
    for (const asset of assets) {
      expect(asset).toMatch(/^\/docs\//) // served here: no CDN
      const got = await t.app.inject({ method: 'GET', url: asset })
      expect(got.statusCode, asset).toBe(200)
      expect(got.body.length, asset).toBeGreaterThan(0)
    }
    const init = await t.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' })
    expect(init.headers['content-type']).toMatch(/javascript/)
    // the viewer reads the same document
    const json = await t.app.inject({ method: 'GET', url: '/docs/json' })
    expect(json.json()).toEqual((await t.app.inject({ method: 'GET', url: '/openapi.json' })).json())
  })
})

describe('a resource added later', () => {
  it('appears with its schemas, recursive and named ones included, and the document stays valid', async () => {
    const app = Fastify()
    app.decorate('config', testConfig())
    app.setValidatorCompiler(validatorCompiler)
    await app.register(openapi)
    type Rule = { host: string; except: Rule[] }
    const rule: z.ZodType<Rule> = z.lazy(() => z.object({ host: z.string(), except: z.array(rule) }))
    const label = z.object({ name: z.string() }).meta({ id: 'Label' })
    app.post('/api/widget/add', { schema: { body: z.object({ rule, label, at: z.date().optional() }) } }, async () => ({ error: 0 }))
    app.get('/api/widget', { schema: { querystring: z.object({ rule: rule.optional(), limit: z.coerce.number().optional() }) } }, async () => ({ error: '0' }))
    app.get('/api/gadget/:id', { schema: { params: z.object({ id: z.string().regex(/^\d+$/) }) } }, async () => ({ error: 0 }))
    await app.ready()
    const doc: Doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json()
    await app.close()
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy()
    expect(doc.paths!['/api/widget/add']!.post!.tags).toEqual(['Widgets'])
    expect(doc.paths!['/api/widget']!.get!.tags).toEqual(['Widgets'])
    expect(doc.paths!['/api/gadget/{id}']!.get!.tags).toEqual(['Gadgets'])
    // declared, with a description, like the known ones
    expect(doc.tags).toEqual(expect.arrayContaining([{ name: 'Widgets', description: expect.any(String) }, { name: 'Gadgets', description: expect.any(String) }]))
    expect(JSON.stringify(doc)).not.toContain('#/$defs/')
    expect(doc.components?.schemas?.Label).toMatchObject({ properties: { name: { type: 'string' } } })
    const query = (doc.paths!['/api/widget']!.get!.parameters as OpenAPIV3_1.ParameterObject[]).map((p) => p.name)
    expect(query).toEqual(['rule', 'limit'])
  })
})
