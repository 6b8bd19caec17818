import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sql } from 'drizzle-orm'
import { appWith, expectError, testApp, type TestApp, type TestUser } from '../helpers/app.js'
import { visit } from '../helpers/visits.js'

/* GET /metrics (DECISIONS §10.7): Prometheus text, behind METRICS_TOKEN when it is set. */

/** The value of one sample line, e.g. `kurz_clicks_written_total` or `kurz_redirects_total{source="link"}`. */
function sample(text: string, name: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `))
  return line === undefined ? undefined : Number(line.slice(name.length + 1))
}

describe('GET /metrics', () => {
  let t: TestApp
  let a: TestUser
  beforeAll(async () => { [t, a] = await appWith({}) })
  afterAll(() => t.close())

  it('answers Prometheus text: requests by route pattern, redirects, clicks, flush time', async () => {
    const id = (await a.api.post('/api/url/add', { url: 'https://example.com/m', custom: 'metrics1' })).json().id
    expect((await a.api.get(`/api/url/${id}`)).statusCode).toBe(200)
    expect((await a.api.get('/api/url/999999')).statusCode).toBe(404)
    for (let i = 0; i < 3; i++) expect((await visit(t, '/metrics1', { remoteAddress: `203.0.113.${i}` })).statusCode).toBe(302)
    await t.app.clicks.flush()

    const res = await t.app.inject({ method: 'GET', url: '/metrics' })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/)
    const text = res.body
    // the route pattern, never the URL with the id in it
    expect(sample(text, 'kurz_http_request_duration_seconds_count{method="GET",route="/api/url/:id",status_code="200"}')).toBe(1)
    expect(sample(text, 'kurz_http_request_duration_seconds_count{method="GET",route="/api/url/:id",status_code="404"}')).toBe(1)
    expect(sample(text, 'kurz_http_request_duration_seconds_count{method="POST",route="/api/url/add",status_code="200"}')).toBe(1)
    expect(text).not.toContain(`/api/url/${id}"`)
    // visits are counted, not timed
    expect(text).not.toContain('route="/:alias"')
    expect(sample(text, 'kurz_redirects_total{source="link"}')).toBe(3)
    expect(sample(text, 'kurz_redirects_total{source="qr"}')).toBe(0)
    expect(sample(text, 'kurz_clicks_recorded_total')).toBe(3)
    expect(sample(text, 'kurz_clicks_written_total')).toBe(3)
    expect(sample(text, 'kurz_clicks_dropped_total')).toBe(0)
    expect(sample(text, 'kurz_clicks_spooled_total')).toBe(0) // in-process test apps run without the spool
    expect(sample(text, 'kurz_clicks_buffered')).toBe(0)
    expect(sample(text, 'kurz_click_flush_duration_seconds_count')).toBeGreaterThanOrEqual(1)
    // no webhook yet: every status reads 0 rather than having no sample
    for (const status of ['pending', 'failed']) expect(sample(text, `kurz_webhook_deliveries{status="${status}"}`)).toBe(0)
    expect(sample(text, 'kurz_webhook_deliveries_delivered_total')).toBe(0)
    expect(sample(text, 'kurz_webhook_delivery_failures_total')).toBe(0)
    expect(text).toContain('# TYPE kurz_process_resident_memory_bytes gauge')
    // a fresh database has folded every day up to yesterday
    expect(sample(text, 'kurz_click_totals_unfolded_days')).toBe(0)
  })

  it('scrapes that arrive together share one rendering: its database gauges are read once, not once each', async () => {
    const db = t.app.db
    const execute = db.execute.bind(db)
    let outboxReads = 0
    db.execute = ((query: Parameters<typeof execute>[0]) => {
      // the gauge's own read, not the delivery worker's poll, which may run meanwhile
      if (JSON.stringify(query).includes("from webhook_deliveries where status = 'failed'")) outboxReads++
      return execute(query)
    }) as typeof db.execute
    try {
      const answers = await Promise.all(Array.from({ length: 10 }, () => t.app.inject({ method: 'GET', url: '/metrics' })))
      expect(answers.map((r) => r.statusCode)).toEqual(Array(10).fill(200))
      expect(new Set(answers.map((r) => r.body)).size).toBe(1)
      expect(outboxReads).toBe(1)
      // the next scrape, once those are answered, reads afresh
      await t.app.inject({ method: 'GET', url: '/metrics' })
      expect(outboxReads).toBe(2)
    } finally {
      db.execute = execute
    }
  })

  it('counts the finished days the click totals fold has not reached', async () => {
    await t.app.db.execute(sql`update click_totals_through set day = day - 3`)
    try {
      const res = await t.app.inject({ method: 'GET', url: '/metrics' })
      expect(sample(res.body, 'kurz_click_totals_unfolded_days')).toBe(3)
    } finally {
      await t.app.db.execute(sql`update click_totals_through set day = day + 3`)
    }
  })
})

describe('GET /metrics with METRICS_TOKEN', () => {
  const TOKEN = 'metrics-token-0123456789abcdef'
  let t: TestApp
  let a: TestUser
  beforeAll(async () => {
    t = await testApp({ METRICS_TOKEN: TOKEN })
    a = await t.makeUser()
  })
  afterAll(() => t.close())

  it('answers only the token, not an API key (401 otherwise)', async () => {
    const get = (authorization?: string) => t.app.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} })
    expectError(await get(), 401, /METRICS_TOKEN/)
    expectError(await get(`Bearer ${TOKEN}x`), 401)
    expectError(await get(`Bearer ${a.key}`), 401)
    expectError(await get(TOKEN), 401)
    const ok = await get(`Bearer ${TOKEN}`)
    expect(ok.statusCode).toBe(200)
    expect(ok.body).toContain('# TYPE kurz_redirects_total counter')
  })
})
