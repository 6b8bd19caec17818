import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.js'
import { createDb, type DbHandle } from '../../src/db/client.js'
import { testConfig, type TestApp, type TestUser } from '../helpers/app.js'
import { Api } from '../helpers/app.js'
import { addLink, makeUser } from '../helpers/fixtures.js'
import { expectPage, visit } from '../helpers/visits.js'

/*
 * Issue 13 item 5 on the embedded database: once PGlite is closed (or otherwise gone), every answer
 * that needs it is a 503 saying so, with Retry-After; JSON on the interfaces, a page for visitors.
 * A link already in the redirect cache still redirects. The same on Postgres: outage-postgres.test.ts.
 */

const MESSAGE = 'The database is not reachable right now; try again shortly.'

describe('PGlite closed under a running app', () => {
  let t: TestApp
  let handle: DbHandle
  let alice: TestUser

  beforeAll(async () => {
    handle = await createDb({ kind: 'pglite' })
    const config = testConfig()
    const app = await buildApp(config, { db: handle })
    await app.ready()
    t = { app, handle, config, api: (key) => new Api(app, key), makeUser: (o) => makeUser(t, o), close: () => app.close() }
    alice = await t.makeUser({ plan: 'pro' })
    await addLink(alice, { url: 'https://example.com/cached', custom: 'cachedpg' })
    await addLink(alice, { url: 'https://example.com/cold', custom: 'coldpg' })
    // the visit puts the link in the redirect cache; HEAD is never counted, so nothing waits to be written
    expect((await visit(t, '/cachedpg', { method: 'HEAD' })).statusCode).toBe(302)
    await handle.close()
  })
  afterAll(() => t.app.close())

  it('the management interface answers 503 {error: 1, message} with Retry-After', async () => {
    for (const res of [await alice.api.get('/api/urls'), await alice.api.post('/api/url/add', { url: 'https://example.com/new' })]) {
      expect(res.statusCode).toBe(503)
      expect(res.json()).toEqual({ error: 1, message: MESSAGE })
      expect(res.headers['retry-after']).toBe('5')
    }
  })

  it('the v1 interface answers 503 in its own shape', async () => {
    const res = await alice.api.get('/api/v1/links')
    expect(res.statusCode).toBe(503)
    expect(res.json()).toEqual({ error: 1, message: MESSAGE, status: 503 })
    expect(res.headers['retry-after']).toBe('5')
  })

  it('pages answer a 503 page, not JSON: a link not in the cache, a statistics page, a campaign page', async () => {
    for (const path of ['/coldpg', '/cachedpg+', '/u/someone/1', '/r/some-campaign']) {
      const res = await visit(t, path)
      expectPage(res, 503)
      expect(res.headers['retry-after'], path).toBe('5')
      expect(res.body).toContain(MESSAGE)
      expect(res.body).not.toContain('"error"')
    }
  })

  it('a link in the cache keeps redirecting', async () => {
    const res = await visit(t, '/cachedpg', { method: 'HEAD' })
    expect({ status: res.statusCode, location: res.headers.location }).toEqual({ status: 302, location: 'https://example.com/cached' })
  })

  it('/readyz says not ready, /healthz still ok', async () => {
    expect((await t.app.inject({ url: '/readyz' })).statusCode).toBe(503)
    expect((await t.app.inject({ url: '/healthz' })).statusCode).toBe(200)
  })
})
