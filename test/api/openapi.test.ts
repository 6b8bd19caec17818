import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import Fastify from 'fastify'
import { z } from 'zod'
import SwaggerParser from '@apidevtools/swagger-parser'
import type { OpenAPIV3_1 } from 'openapi-types'
import openapi from '../../src/openapi/index.js'
import { validatorCompiler } from '../../src/http/zod.js'
import { testApp, testConfig, type TestApp } from '../helpers/app.js'

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

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0')
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy()
  })

  it('has every API route Fastify serves, with its method', () => {
    const routes = registeredRoutes(t.app.printRoutes({ commonPrefix: false }))
    const api = routes.filter(
      (r) =>
        // HEAD is Fastify's automatic twin of each GET; ALL /api is the JSON 404 of a bare /api
        !r.startsWith('HEAD ') && /^[A-Z]+ (\/api\/|\/links\/\{\}\/destroy$)/.test(r),
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
    expect(Object.keys(report.responses).sort()).toEqual(['200', '400', '404', '429'])
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
    app.post('/api/blocklist/add', { schema: { body: z.object({ rule, label, at: z.date().optional() }) } }, async () => ({ error: 0 }))
    app.get('/api/blocklist', { schema: { querystring: z.object({ rule: rule.optional(), limit: z.coerce.number().optional() }) } }, async () => ({ error: '0' }))
    app.get('/api/webhook/:id', { schema: { params: z.object({ id: z.string().regex(/^\d+$/) }) } }, async () => ({ error: 0 }))
    await app.ready()
    const doc: Doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json()
    await app.close()
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy()
    expect(doc.paths!['/api/blocklist/add']!.post!.tags).toEqual(['Blocklists'])
    expect(doc.paths!['/api/blocklist']!.get!.tags).toEqual(['Blocklists'])
    expect(doc.paths!['/api/webhook/{id}']!.get!.tags).toEqual(['Webhooks'])
    expect(JSON.stringify(doc)).not.toContain('#/$defs/')
    expect(doc.components?.schemas?.Label).toMatchObject({ properties: { name: { type: 'string' } } })
    const query = (doc.paths!['/api/blocklist']!.get!.parameters as OpenAPIV3_1.ParameterObject[]).map((p) => p.name)
    expect(query).toEqual(['rule', 'limit'])
  })
})
