import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testApp, type TestApp, type TestUser } from '../helpers/app.js'
import { addLink, insertLink } from '../helpers/fixtures.js'
import { expectPage, expectRedirect, visit } from '../helpers/visits.js'

/** The lean visit path (issue 14): no hooks on visits, a cache of REDIRECT_CACHE_SIZE links, one load per miss. */

/** The hook lines printRoutes lists under each `<path> (<METHOD>)` line. */
function hooksOf(printed: string, path: string, method: string): string[] {
  const lines = printed.split('\n')
  const found: string[][] = []
  lines.forEach((line, i) => {
    if (line.replace(/[│├└─]/g, ' ').trim() !== `${path} (${method})`) return
    const hooks: string[] = []
    for (let j = i + 1; j < lines.length && lines[j].includes('• ('); j++) hooks.push(lines[j].trim())
    found.push(hooks)
  })
  if (!found.length) throw new Error(`no route ${method} ${path} in printRoutes`)
  return found.flat()
}

describe('hooks a visit runs', () => {
  let t: TestApp
  // every switch that adds a hook somewhere on: CORS, the list compat rewrite
  beforeAll(async () => {
    t = await testApp({ CORS_ORIGINS: 'https://app.example.com', COMPAT_LIST_ERROR: 'number' })
  })
  afterAll(() => t?.close())

  it('GET of a short link, a rotator and a QR scan run no request hook at all', () => {
    const printed = t.app.printRoutes({ includeHooks: true, commonPrefix: false })
    for (const path of [':alias', 'r/:slug', 'q/:alias']) expect(hooksOf(printed, path, 'GET'), path).toEqual([])
  })

  it('the password posts only write cookies, and the API still parses none of its own', () => {
    const printed = t.app.printRoutes({ includeHooks: true, commonPrefix: false })
    expect(hooksOf(printed, ':alias', 'POST').join(' ')).not.toContain('fastifyCookieHandler')
    expect(hooksOf(printed, ':alias', 'POST').join(' ')).toContain('fastifyCookieOnSendHandler')
    expect(hooksOf(printed, '/account', 'GET').join(' ')).toContain('authenticate()')
    expect(hooksOf(printed, '/account', 'GET').join(' ')).not.toMatch(/fastifyCookie/)
  })
})

describe('redirect cache size and loads', () => {
  let t: TestApp
  let pro: TestUser
  beforeAll(async () => {
    t = await testApp({ REDIRECT_CACHE_SIZE: '100' })
    pro = await t.makeUser({ plan: 'pro' })
  })
  afterAll(() => t?.close())

  const metrics = async () => {
    const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body
    const n = (re: RegExp) => Number(re.exec(text)?.[1] ?? NaN)
    return {
      hit: n(/^kurz_redirect_cache_lookups_total\{result="hit"\} (\d+)$/m) || 0,
      miss: n(/^kurz_redirect_cache_lookups_total\{result="miss"\} (\d+)$/m) || 0,
      links: n(/^kurz_redirect_cache_links (\d+)$/m),
    }
  }

  it('holds REDIRECT_CACHE_SIZE links: the least recently visited is loaded again', async () => {
    for (let i = 0; i < 120; i++) await insertLink(t, pro.user.id, { alias: `size${i}`, url: `https://example.com/s/${i}` })
    for (let i = 0; i < 120; i++) expectRedirect(await visit(t, `/size${i}`, { method: 'HEAD' }), 302, `https://example.com/s/${i}`)
    const before = await metrics()
    expect(before.links).toBe(100)
    expectRedirect(await visit(t, '/size119', { method: 'HEAD' }), 302, 'https://example.com/s/119')
    expectRedirect(await visit(t, '/size0', { method: 'HEAD' }), 302, 'https://example.com/s/0')
    const after = await metrics()
    expect([after.hit - before.hit, after.miss - before.miss]).toEqual([1, 1])
    expect(after.links).toBe(100)
  })

  it('a rotator visit loads its link once and caches it under its alias', async () => {
    const cid = (await pro.api.post('/api/campaign/add', { name: 'One load', slug: 'oneload' })).json().id as number
    await addLink(pro, { url: 'https://example.com/rot', custom: 'rotload', campaign: cid })
    const before = await metrics()
    expectRedirect(await visit(t, '/r/oneload', { method: 'HEAD' }), 302, 'https://example.com/rot')
    expectRedirect(await visit(t, '/rotload', { method: 'HEAD' }), 302, 'https://example.com/rot')
    expectRedirect(await visit(t, '/r/oneload', { method: 'HEAD' }), 302, 'https://example.com/rot')
    const after = await metrics()
    expect([after.hit - before.hit, after.miss - before.miss]).toEqual([2, 1])
  })

  it('a link cached under an earlier and its current alias is dropped under both, and counts clicks on both', async () => {
    const { id } = await insertLink(t, pro.user.id, { alias: 'twokeysA', url: 'https://example.com/two', expirationClicks: 4 })
    expect((await pro.api.put(`/api/url/${id}/update`, { url: 'https://example.com/two', custom: 'twokeysB' })).statusCode).toBe(200)
    expectRedirect(await visit(t, '/twokeysA'), 302, 'https://example.com/two')
    expectRedirect(await visit(t, '/twokeysB'), 302, 'https://example.com/two')
    expect((await pro.api.put(`/api/url/${id}/update`, { url: 'https://example.com/three' })).statusCode).toBe(200)
    expectRedirect(await visit(t, '/twokeysA'), 302, 'https://example.com/three')
    expectRedirect(await visit(t, '/twokeysB'), 302, 'https://example.com/three')
    // four human clicks over both aliases: the cap is spent whichever alias comes next
    expectPage(await visit(t, '/twokeysB'), 410)
    expectPage(await visit(t, '/twokeysA'), 410)
  })
})
