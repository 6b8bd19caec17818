import { createServer } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import type { LightMyRequestResponse } from 'fastify'
import type { OpenAPIV3_1 } from 'openapi-types'
import { testApp, type TestApp, type TestUser } from '../helpers/app.js'
import { closeServer, listenLocally } from '../helpers/local-server.js'
import { visit } from '../helpers/visits.js'
import { UA } from '../redirect/user-agents.js'

/*
 * The typed success bodies of GET /openapi.json against the real answers: every object kind is made
 * through the API, every typed operation is called, and each answer must validate against the schema
 * the document gives for its status. The check is stricter than the document: every object schema
 * here also refuses properties it does not list, so a field the server sends but the document does
 * not name fails too (the document itself leaves objects open, for fields added later).
 */

type Json = Record<string, unknown>
type Doc = OpenAPIV3_1.Document
const ROOT = 'https://kurz.test/openapi.json'
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)
const GENERIC = new Set(['#/components/schemas/Success', '#/components/schemas/V1Success'])

/**
 * A schema as this test checks it: every object that lists properties refuses others
 * (unevaluatedProperties, so an allOf sees its members' properties: a member is left open), and
 * references point into the document registered under ROOT.
 */
function tighten(node: unknown, open = false): unknown {
  if (Array.isArray(node)) return node.map((n) => tighten(n))
  if (!isObject(node)) return node
  const out: Json = {}
  for (const [key, value] of Object.entries(node)) {
    if (['example', 'examples', 'enum', 'const', 'required', 'default'].includes(key)) out[key] = value
    else if (key === '$ref') out[key] = String(value).replace(/^#\//, `${ROOT}#/`)
    else if (key === 'properties') out[key] = Object.fromEntries(Object.entries(value as Json).map(([name, s]) => [name, tighten(s)]))
    else if (key === 'allOf') out[key] = (value as Json[]).map((m) => tighten(typeof m.$ref === 'string' ? { $ref: `${m.$ref}__open` } : m, true))
    else out[key] = tighten(value)
  }
  if (!open && (isObject(out.properties) || Array.isArray(out.allOf))) out.unevaluatedProperties = false
  return out
}

/** The document's schemas, tightened, each with an open twin (`<name>__open`) for allOf members. */
function validatorFor(doc: Doc) {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false, logger: false })
  const schemas: Json = {}
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) {
    schemas[name] = tighten(schema)
    schemas[`${name}__open`] = tighten(schema, true)
  }
  ajv.addSchema({ $id: ROOT, components: { schemas } })
  const cache = new Map<unknown, ValidateFunction>()
  return {
    check(schema: unknown, value: unknown): string | null {
      let validate = cache.get(schema)
      if (!validate) cache.set(schema, (validate = ajv.compile(tighten(schema) as Json)))
      return validate(value) ? null : ajv.errorsText(validate.errors, { separator: '\n' })
    },
  }
}

const operations = (doc: Doc): [string, OpenAPIV3_1.OperationObject][] =>
  Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
    METHODS.filter((m) => item?.[m]).map((m) => [`${m.toUpperCase()} ${path}`, item![m]!] as [string, OpenAPIV3_1.OperationObject]),
  )

/** The JSON schema of an operation's success answer(s), when it is typed (not the bare envelope). */
function typedSuccess(op: OpenAPIV3_1.OperationObject): OpenAPIV3_1.MediaTypeObject | undefined {
  for (const [status, answer] of Object.entries(op.responses ?? {})) {
    if (Number(status) >= 300 || '$ref' in answer) continue
    const media = answer.content?.['application/json']
    const ref = (media?.schema as Json | undefined)?.$ref
    if (media?.schema && !(typeof ref === 'string' && GENERIC.has(ref))) return media
  }
  return undefined
}

describe('OpenAPI success bodies against the real answers', () => {
  let t: TestApp
  let doc: Doc
  let v: ReturnType<typeof validatorFor>
  let admin: TestUser
  let alice: TestUser
  const seen = new Set<string>()
  // a receiver of the test's own: webhook deliveries and the health check of a link land here
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'))
  let origin = ''

  beforeAll(async () => {
    origin = await listenLocally(server)
    t = await testApp({ ALLOW_PRIVATE_TARGETS: 'true' })
    admin = await t.makeUser({ admin: true })
    alice = await t.makeUser({ plan: 'pro' })
    doc = (await t.api().get('/openapi.json')).json()
    v = validatorFor(doc)
  }, 60_000)
  afterAll(async () => {
    await t?.close()
    await closeServer(server)
  })

  /** The answer's body, after checking it against the document's schema for its status. */
  function typed(op: string, res: LightMyRequestResponse) {
    const [method, path] = op.split(' ')
    const answer = doc.paths?.[path]?.[method.toLowerCase() as 'get']?.responses?.[String(res.statusCode)] as OpenAPIV3_1.ResponseObject | undefined
    if (!answer || res.statusCode >= 300) throw new Error(`${op} answered ${res.statusCode}, no documented success: ${res.body.slice(0, 500)}`)
    const schema = answer.content?.['application/json']?.schema
    expect(schema, `${op} ${res.statusCode} has a JSON schema`).toBeDefined()
    const body = res.json()
    const problem = v.check(schema, body)
    if (problem) throw new Error(`${op} ${res.statusCode}: the answer does not match the document:\n${problem}\n${JSON.stringify(body).slice(0, 1500)}`)
    seen.add(op)
    return body
  }

  /** Calls `op` on `url` with the user's key (a JSON body, or a string with its own content type). */
  async function call(u: TestUser, op: string, url: string, payload?: unknown, headers: Record<string, string> = {}) {
    const method = op.split(' ')[0] as 'GET'
    const res = await t.app.inject({ method, url, headers: { authorization: `Bearer ${u.key}`, ...headers }, payload: payload as string })
    return typed(op, res)
  }

  it('holds every answer of the account, links and their statistics', async () => {
    await call(alice, 'GET /api/account', '/api/account')
    await call(alice, 'PUT /api/account/update', '/api/account/update', { email: `alice-${alice.user.id}@example.org` })
    await call(alice, 'GET /api/account/apikey', '/api/account/apikey')
    const spare = await t.makeUser()
    await call(spare, 'POST /api/account/apikey', '/api/account/apikey')

    const channel = await call(alice, 'POST /api/channel/add', '/api/channel/add', { name: 'News', starred: true })
    const campaign = await call(alice, 'POST /api/campaign/add', '/api/campaign/add', { name: 'Spring', slug: `spring-${alice.user.id}`, public: true })
    await call(alice, 'POST /api/campaign/add', '/api/campaign/add', {})
    const pixel = await call(alice, 'POST /api/pixel/add', '/api/pixel/add', { type: 'gtmpixel', name: 'GTM', tag: 'GTM-123' })
    const domain = await call(alice, 'POST /api/domain/add', '/api/domain/add', { domain: 'https://go.bodies.example', redirectroot: 'https://example.com/' })

    const full = await call(alice, 'POST /api/url/add', '/api/url/add', {
      url: `${origin}/landing`,
      custom: 'bodies-first',
      title: 'Landing',
      description: 'All of it',
      password: 'secret',
      expiry: '2099-01-01 00:00:00',
      geotarget: [{ location: 'Germany', link: 'https://example.de/' }],
      devicetarget: [{ device: 'iPhone', link: 'https://example.com/ios' }],
      languagetarget: [{ language: 'fr', link: 'https://example.fr/' }],
      deeplink: { auto: true },
      parameters: [{ name: 'utm_source', value: 'kurz' }],
      pixels: [pixel.id],
      channel: channel.id,
      campaign: campaign.id,
      fallback: 'https://example.com/sorry',
      expiration_clicks: 100,
      expiration_url: 'https://example.com/over',
      redirectstatus: 301,
      cachettl: 60,
      metatitle: 'Meta',
    })
    const plain = await call(alice, 'POST /api/url/add', '/api/url/add', { url: 'https://example.com/plain', custom: 'bodies-plain', domain: 'go.bodies.example' })
    // a click, so the top lists are objects, not 0
    const clicked = await visit(t, '/bodies-plain', { host: 'go.bodies.example', remoteAddress: '203.0.113.9', headers: { 'user-agent': UA.iPhone, 'accept-language': 'de-DE' } })
    expect(clicked.statusCode).toBeLessThan(400)
    const visited = await visit(t, '/bodies-first', { remoteAddress: '203.0.113.10', headers: { 'user-agent': UA.iPhone, referer: 'https://news.example.org/a' } })
    expect(visited.statusCode).toBeLessThan(500)
    await t.app.clicks.flush()

    await call(alice, 'PUT /api/url/{id}/update', `/api/url/${full.id}/update`, { url: `${origin}/landing`, custom: 'bodies-renamed' })
    await call(alice, 'GET /api/url/{id}', `/api/url/${full.id}`)
    const details = await call(alice, 'GET /api/url/{id}', `/api/url/${full.id}?full=1`)
    expect(details.details.aliases).toEqual([expect.objectContaining({ alias: 'bodies-first' })])
    const clickedStats = await call(alice, 'GET /api/url/{id}', `/api/url/${plain.id}?full=1`)
    // the object form of the top lists is checked too, not only their 0
    expect(clickedStats.data.topBrowsers).not.toBe(0)
    await call(alice, 'GET /api/urls', '/api/urls')
    await call(alice, 'GET /api/urls', '/api/urls?short=bodies-renamed')
    await call(alice, 'GET /api/url/{id}/stats', `/api/url/${plain.id}/stats`)
    await call(alice, 'GET /api/url/{id}/stats', `/api/url/${plain.id}/stats?interval=hour&from=${new Date().toISOString().slice(0, 10)}`)
    expect((await call(alice, 'GET /api/account/stats', '/api/account/stats')).data.topLinks.length).toBeGreaterThan(0)
    expect((await call(alice, 'GET /api/account/usage', '/api/account/usage')).data.links.used).toBeGreaterThan(0)
    await call(alice, 'GET /api/urls/health', `/api/urls/health?ids=${full.id},${plain.id}`)
    await call(alice, 'POST /api/url/{id}/check', `/api/url/${full.id}/check`)
    await call(alice, 'POST /api/url/{id}/resolve', `/api/url/${full.id}/resolve`, { country: 'DE', useragent: UA.iPhone })
    await call(alice, 'POST /api/url/{id}/resolve', `/api/url/${plain.id}/resolve`, {})
    await call(alice, 'DELETE /api/url/{id}/alias/{alias}', `/api/url/${full.id}/alias/bodies-first`)
    await call(alice, 'POST /api/urls/import', '/api/urls/import', 'https://example.com/imported-1\nnot a url\n', { 'content-type': 'text/csv' })

    // the lists and reads of what the links use
    await call(alice, 'GET /api/domains', '/api/domains')
    await call(alice, 'PUT /api/domain/{id}/update', `/api/domain/${domain.id}/update`, { redirect404: 'https://example.com/404' })
    await call(alice, 'GET /api/campaigns', '/api/campaigns')
    await call(alice, 'POST /api/campaign/{campaignid}/assign/{linkid}', `/api/campaign/${campaign.id}/assign/${plain.id}`)
    await call(alice, 'PUT /api/campaign/{id}/update', `/api/campaign/${campaign.id}/update`, { name: 'Summer', slug: '' })
    await call(alice, 'GET /api/channels', '/api/channels')
    await call(alice, 'POST /api/channel/{channelid}/assign/{type}/{itemid}', `/api/channel/${channel.id}/assign/links/${plain.id}`)
    await call(alice, 'PUT /api/channel/{id}/update', `/api/channel/${channel.id}/update`, { color: '#112233' })
    await call(alice, 'GET /api/pixels', '/api/pixels')
    await call(alice, 'PUT /api/pixel/{id}/update', `/api/pixel/${pixel.id}/update`, { tag: 'GTM-456' })

    // QR codes, one with an object for data, in the channel too
    const qr = await call(alice, 'POST /api/qr/add', '/api/qr/add', { type: 'link', data: 'https://example.com/qr', name: 'Poster' })
    const wifi = await call(alice, 'POST /api/qr/add', '/api/qr/add', { type: 'wifi', data: { ssid: 'Lobby', encryption: 'WPA' } })
    await call(alice, 'POST /api/channel/{channelid}/assign/{type}/{itemid}', `/api/channel/${channel.id}/assign/qr/${qr.id}`)
    await call(alice, 'POST /api/channel/{channelid}/assign/{type}/{itemid}', `/api/channel/${channel.id}/assign/qr/${wifi.id}`)
    await call(alice, 'GET /api/channel/{id}', `/api/channel/${channel.id}`)
    await call(alice, 'GET /api/qr', '/api/qr')
    await call(alice, 'GET /api/qr/{id}', `/api/qr/${qr.id}`)
    await call(alice, 'GET /api/qr/{id}/design', `/api/qr/${qr.id}/design`)
    await call(alice, 'GET /api/qr/{id}/design', `/api/qr/${wifi.id}/design`)
    await call(alice, 'GET /api/qr/{id}/stats', `/api/qr/${qr.id}/stats`)
    await call(alice, 'PUT /api/qr/{id}/update', `/api/qr/${qr.id}/update`, { data: 'https://example.com/qr2' })
    await call(alice, 'DELETE /api/qr/{id}/delete', `/api/qr/${wifi.id}/delete`)

    await call(alice, 'DELETE /api/url/{id}/delete', `/api/url/${full.id}/delete`)
    await call(alice, 'DELETE /api/campaign/{id}/delete', `/api/campaign/${campaign.id}/delete`)
    await call(alice, 'DELETE /api/channel/{id}/delete', `/api/channel/${channel.id}/delete`)
    await call(alice, 'DELETE /api/pixel/{id}/delete', `/api/pixel/${pixel.id}/delete`)
    await call(alice, 'DELETE /api/domain/{id}/delete', `/api/domain/${domain.id}/delete`)
  }, 60_000)

  it('holds the answers of splash pages, overlays and their responses', async () => {
    const splash = await call(alice, 'POST /api/splash/add', '/api/splash/add', { name: 'Launch', title: 'News', image: 'https://cdn.example.com/a.png', countdown: 3 })
    await call(alice, 'POST /api/splash/add', '/api/splash/add', { name: 'Bare' })
    await call(alice, 'GET /api/splash', '/api/splash')
    await call(alice, 'GET /api/splash/{id}', `/api/splash/${splash.id}`)
    await call(alice, 'PUT /api/splash/{id}/update', `/api/splash/${splash.id}/update`, { message: 'Soon' })
    await call(alice, 'DELETE /api/splash/{id}/delete', `/api/splash/${splash.id}/delete`)

    const contact = await call(alice, 'POST /api/overlay/add', '/api/overlay/add', { name: 'Contact', type: 'contact' })
    const poll = await call(alice, 'POST /api/overlay/add', '/api/overlay/add', { name: 'Poll', type: 'poll', options: ['Yes', 'No'], position: 'top' })
    const link = await call(alice, 'POST /api/url/add', '/api/url/add', { url: 'https://example.com/framed', type: `overlay-${poll.id}` })
    const form = (id: number, fields: Record<string, string>) =>
      t.app.inject({
        method: 'POST',
        url: `/_/overlay/${id}`,
        remoteAddress: '198.51.100.7',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams(fields).toString(),
      })
    expect((await form(contact.id, { name: 'Ada', email: 'ada@example.com', message: 'Hello' })).statusCode).toBe(200)
    expect((await form(poll.id, { option: '1', link: String(link.id) })).statusCode).toBe(200)
    await call(alice, 'GET /api/overlay', '/api/overlay')
    await call(alice, 'GET /api/overlay/{id}', `/api/overlay/${poll.id}`)
    await call(alice, 'GET /api/overlay/{id}/responses', `/api/overlay/${contact.id}/responses`)
    await call(alice, 'GET /api/overlay/{id}/responses', `/api/overlay/${poll.id}/responses`)
    await call(alice, 'PUT /api/overlay/{id}/update', `/api/overlay/${poll.id}/update`, { title: 'Vote' })
    await call(alice, 'DELETE /api/overlay/{id}/delete', `/api/overlay/${contact.id}/delete`)
  })

  it('holds the answers of webhooks and their deliveries', async () => {
    const hook = await call(alice, 'POST /api/webhook/add', '/api/webhook/add', { url: `${origin}/hook`, events: ['link.created', 'link.deleted'] })
    const made = await call(alice, 'POST /api/url/add', '/api/url/add', { url: 'https://example.com/hooked' })
    await call(alice, 'GET /api/webhooks', '/api/webhooks')
    await call(alice, 'GET /api/webhook/{id}', `/api/webhook/${hook.id}`)
    const deliveries = await call(alice, 'GET /api/webhook/{id}/deliveries', `/api/webhook/${hook.id}/deliveries`)
    expect(deliveries.data.deliveries.length).toBeGreaterThan(0)
    const delivery = deliveries.data.deliveries[0].id
    await call(alice, 'POST /api/webhook/{id}/deliveries/{deliveryId}/retry', `/api/webhook/${hook.id}/deliveries/${delivery}/retry`)
    await call(alice, 'PUT /api/webhook/{id}/update', `/api/webhook/${hook.id}/update`, { rotateSecret: true, description: 'rotated' })
    await call(alice, 'DELETE /api/url/{id}/delete', `/api/url/${made.id}/delete`)
    await call(alice, 'DELETE /api/webhook/{id}/delete', `/api/webhook/${hook.id}/delete`)
  })

  it('holds the answers of the admin endpoints: plans, users, blocklist and reports', async () => {
    await call(admin, 'GET /api/plans', '/api/plans')
    const plan = await call(admin, 'POST /api/plan/add', '/api/plan/add', { name: `Bodies ${admin.user.id}`, prices: { monthly: 5 }, limits: { links: 10, splash: { enabled: 1, count: 3 } } })
    await call(admin, 'POST /api/plan/add', '/api/plan/add', { name: `Bodies free ${admin.user.id}` })
    await call(admin, 'PUT /api/plan/{id}/update', `/api/plan/${plan.id}/update`, { limits: { clicks: 1000 } })

    const added = await call(admin, 'POST /api/user/add', '/api/user/add', { username: `bodies${admin.user.id}`, email: `bodies${admin.user.id}@example.com`, password: 'a-long-password' })
    await call(admin, 'PUT /api/plan/{planid}/user/{userid}', `/api/plan/${plan.id}/user/${added.data.id}`, { type: 'monthly' })
    await call(admin, 'GET /api/users', '/api/users')
    await call(admin, 'GET /api/user/{id}', `/api/user/${added.data.id}`)
    await call(admin, 'GET /api/user/login/{id}', `/api/user/login/${added.data.id}`)
    await call(admin, 'DELETE /api/user/{id}/delete', `/api/user/${added.data.id}/delete`)

    const entry = await call(admin, 'POST /api/blocklist/add', '/api/blocklist/add', { type: 'domain', value: 'blocked-bodies.example', reason: 'test' })
    await call(admin, 'POST /api/blocklist/add', '/api/blocklist/add', { type: 'keyword', value: 'bodiesbad' })
    await call(admin, 'GET /api/blocklist', '/api/blocklist')
    await call(admin, 'DELETE /api/blocklist/{id}/delete', `/api/blocklist/${entry.id}/delete`)

    const reported = await call(alice, 'POST /api/url/add', '/api/url/add', { url: 'https://example.com/reported', custom: 'bodies-reported' })
    const sent = await visit(t, '/bodies-reported/report', { form: { reason: 'phishing', comment: 'looks fake', email: 'v@example.com' }, remoteAddress: '198.51.100.20' })
    expect(sent.statusCode).toBe(200)
    await visit(t, '/bodies-reported/report', { form: { reason: 'phishing' }, remoteAddress: '198.51.100.21' })
    await call(alice, 'DELETE /api/url/{id}/delete', `/api/url/${reported.id}/delete`)
    const reports = await call(admin, 'GET /api/reports', '/api/reports')
    expect(reports.data.reports.length).toBe(2)
    await call(admin, 'POST /api/url/{id}/release', `/api/url/${(await call(alice, 'POST /api/url/add', '/api/url/add', { url: 'https://example.com/r' })).id}/release`)
    await call(admin, 'DELETE /api/reports/{id}/delete', `/api/reports/${reports.data.reports[0].id}/delete`)
  })

  it('holds the answers of link interface v1', async () => {
    const channel = await call(alice, 'POST /api/channel/add', '/api/channel/add', { name: 'Space' })
    const pixel = await call(alice, 'POST /api/pixel/add', '/api/pixel/add', { type: 'fbpixel', name: 'FB', tag: '1234567890' })
    const domain = await call(alice, 'POST /api/domain/add', '/api/domain/add', { domain: 'https://v1.bodies.example' })
    const json = { 'content-type': 'application/json' }
    const made = await call(
      alice,
      'POST /api/v1/links',
      '/api/v1/links',
      JSON.stringify({
        url: 'https://example.com/v1',
        alias: 'bodies-v1',
        domain: domain.id,
        space: channel.id,
        pixels: [pixel.id],
        target_type: 1,
        country: [{ key: 'DE', value: 'https://example.de/v1' }],
        rotation: [{ value: 'https://example.com/r1' }],
        expiration_clicks: 5,
        expiration_url: 'https://example.com/gone',
        expiration_date: '2099-12-31',
        privacy: 2,
        privacy_password: 'stats',
      }),
      json,
    )
    const form = { 'content-type': 'application/x-www-form-urlencoded' }
    await call(alice, 'POST /api/v1/links', '/api/v1/links', 'url=https%3A%2F%2Fexample.com%2Fv1-plain', form)
    await call(alice, 'GET /api/v1/links', '/api/v1/links')
    await call(alice, 'GET /api/v1/links', '/api/v1/links?page=99')
    await call(alice, 'GET /api/v1/links/{id}', `/api/v1/links/${made.data.id}`)
    await call(alice, 'PUT /api/v1/links/{id}', `/api/v1/links/${made.data.id}`, 'title=Changed&platform[0][key]=iOS&platform[0][value]=https%3A%2F%2Fexample.com%2Fios', form)
    await call(alice, 'DELETE /api/v1/links/{id}', `/api/v1/links/${made.data.id}`)
    const other = await call(alice, 'POST /api/v1/links', '/api/v1/links', 'url=https%3A%2F%2Fexample.com%2Fv1-other', form)
    await call(alice, 'DELETE /links/{id}/destroy', `/links/${other.data.id}/destroy`)
  })

  it('holds the operations answers', async () => {
    typed('GET /healthz', await t.api().get('/healthz'))
    typed('GET /readyz', await t.api().get('/readyz'))
  })

  it('has called every typed operation, and the untyped JSON ones are the known few', () => {
    const typedOps = operations(doc).filter(([, op]) => typedSuccess(op))
    expect(typedOps.length).toBeGreaterThan(80)
    expect(typedOps.map(([name]) => name).filter((name) => !seen.has(name))).toEqual([])
    // what stays the bare envelope or no JSON at all: files, pages, the metrics and this document
    const untyped = operations(doc)
      .filter(([name, op]) => !typedSuccess(op) && !/ \/api\/(urls\/export|url\/\{id\}\/clicks\/export)$/.test(name) && !op.tags?.includes('Pages'))
      .map(([name]) => name)
    expect(untyped.sort()).toEqual(['GET /metrics', 'GET /openapi.json'])
  })

  it('refuses an answer that lacks a required field, types one wrongly or carries one the document does not name', () => {
    const account = (doc.paths!['/api/account']!.get!.responses['200'] as OpenAPIV3_1.ResponseObject).content!['application/json'].schema
    const good = { error: 0, data: { id: 1, email: 'a@example.com', username: 'a', avatar: 'x', status: 'free', expires: null, registered: '2030-01-15 09:30:00' } }
    expect(v.check(account, good)).toBeNull()
    const { expires: _expires, ...noExpires } = good.data
    expect(v.check(account, { ...good, data: noExpires })).toMatch(/expires/)
    expect(v.check(account, { ...good, data: { ...good.data, id: '1' } })).toMatch(/integer/)
    expect(v.check(account, { ...good, data: { ...good.data, planid: 3 } })).toMatch(/unevaluated/)
  })

  it('gives examples that fit their schemas', () => {
    const problems: string[] = []
    const media = (name: string, m: OpenAPIV3_1.MediaTypeObject | undefined) => {
      if (!m?.schema) return
      const values = [...(m.example !== undefined ? [m.example] : []), ...Object.values(m.examples ?? {}).map((e) => (e as { value: unknown }).value)]
      for (const value of values) {
        const problem = v.check(m.schema, value)
        if (problem) problems.push(`${name}: ${problem}`)
      }
    }
    let checked = 0
    for (const [name, op] of operations(doc)) {
      for (const [status, answer] of Object.entries(op.responses ?? {})) {
        if ('$ref' in answer) continue
        const m = answer.content?.['application/json']
        if (m?.example !== undefined || m?.examples) checked++
        media(`${name} ${status}`, m)
      }
    }
    for (const [name, answer] of Object.entries(doc.components?.responses ?? {})) media(name, (answer as OpenAPIV3_1.ResponseObject).content?.['application/json'])
    expect(checked).toBeGreaterThan(15)
    expect(problems).toEqual([])
  })

  it('documents the 414 of a path parameter too long as the server answers it', async () => {
    const op = doc.paths!['/api/url/{id}']!.get!
    expect(op.responses['414']).toEqual({ $ref: '#/components/responses/UriTooLong' })
    expect(doc.paths!['/api/v1/links/{id}']!.get!.responses['414']).toEqual({ $ref: '#/components/responses/V1UriTooLong' })
    expect(doc.paths!['/api/urls']!.get!.responses['414']).toBeUndefined()
    const responses = doc.components!.responses as Record<string, OpenAPIV3_1.ResponseObject>
    for (const [name, url] of [
      ['UriTooLong', `/api/url/${'9'.repeat(2049)}`],
      ['V1UriTooLong', `/api/v1/links/${'9'.repeat(2049)}`],
    ]) {
      const res = await alice.api.get(url)
      expect(res.statusCode, name).toBe(414)
      const media = responses[name].content!['application/json']
      expect(res.json(), name).toEqual(media.example)
      expect(v.check(media.schema, res.json()), name).toBeNull()
    }
    // at the limit the router lets it through to the handler, which finds no such link
    expect((await alice.api.get(`/api/url/${'9'.repeat(2048)}`)).statusCode).toBe(404)
  })

  it('documents the 503 page a visit gets while the database is away', async () => {
    // a visit of an alias no cache holds, on an app whose database has gone away
    const gone = await testApp()
    // taken away here, closed again by close() (which on Postgres then drops it): the second close must do nothing
    const closeOnce = gone.handle.close
    let closed: Promise<void> | undefined
    gone.handle.close = () => (closed ??= closeOnce())
    await gone.handle.close()
    const responses = doc.components!.responses as Record<string, OpenAPIV3_1.ResponseObject>
    try {
      const res = await visit(gone, '/not-cached-anywhere')
      expect(res.statusCode).toBe(503)
      expect(res.headers['content-type']).toMatch(/^text\/html/)
      expect(res.headers['retry-after']).toBeDefined()
      // and the interfaces' JSON 503, as documented on each of their operations
      for (const [name, op, url] of [
        ['DatabaseUnavailable', 'GET /api/urls', '/api/urls'],
        ['V1DatabaseUnavailable', 'GET /api/v1/links', '/api/v1/links'],
      ]) {
        const [method, path] = op.split(' ')
        expect(doc.paths![path]![method.toLowerCase() as 'get']!.responses['503'], op).toEqual({ $ref: `#/components/responses/${name}` })
        const api = await gone.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${'k'.repeat(40)}` } })
        expect(api.statusCode, op).toBe(503)
        expect(Number(api.headers['retry-after']), op).toBeGreaterThan(0)
        expect(responses[name].headers?.['Retry-After'], op).toBeDefined()
        const media = responses[name].content!['application/json']
        expect(api.json(), op).toEqual(media.example)
        expect(v.check(media.schema, api.json()), op).toBeNull()
      }
    } finally {
      await gone.close()
    }

    const away = doc.components!.responses!.DatabaseAway as OpenAPIV3_1.ResponseObject
    expect(Object.keys(away.content ?? {})).toEqual(['text/html'])
    expect(away.headers?.['Retry-After']).toBeDefined()
    for (const [name, op] of operations(doc).filter(([, op]) => op.tags?.includes('Pages'))) {
      expect(op.responses?.['503'], name).toBeDefined()
    }
    expect(doc.paths!['/{alias}']!.get!.responses['503']).toEqual({ $ref: '#/components/responses/DatabaseAway' })
    expect((doc.paths!['/{alias}']!.post!.responses['503'] as { description: string }).description).toMatch(/database/)
  })
})
