import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { testApp, type TestApp } from '../helpers/app.js'

/** docs/alerts.yml names only metrics Kurz serves, and each rule has what Prometheus and a pager need. */
describe('docs/alerts.yml', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await testApp()
  })
  afterAll(() => t.close())

  const text = readFileSync(resolve(import.meta.dirname, '../../docs/alerts.yml'), 'utf8')
  const rules = text.split(/^\s+- alert: /m).slice(1)

  it('every kurz_ metric an expression names is in a /metrics scrape', async () => {
    const scrape = (await t.app.inject({ method: 'GET', url: '/metrics' })).body
    const served = new Set<string>()
    for (const [, name, type] of scrape.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
      served.add(name)
      if (type === 'histogram') for (const part of ['_count', '_sum', '_bucket']) served.add(name + part)
    }
    const named = new Set(rules.flatMap((r) => [...(/^\s+expr: (.+)$/m.exec(r)?.[1] ?? '').matchAll(/\bkurz_[a-z0-9_]+/g)].map((m) => m[0])))
    expect(named.size).toBeGreaterThan(10)
    expect([...named].filter((n) => !served.has(n))).toEqual([])
  })

  it('each rule has a unique name, an expression, a severity and a summary', () => {
    expect(rules.length).toBeGreaterThan(10)
    const names = rules.map((r) => r.split('\n')[0].trim())
    expect(new Set(names).size).toBe(names.length)
    for (const r of rules) {
      expect(r, r).toMatch(/^\s+expr: \S/m)
      expect(r, r).toMatch(/labels: \{ severity: (page|warn|info) \}/)
      expect(r, r).toMatch(/^\s+summary: ".+"$/m)
    }
  })
})
