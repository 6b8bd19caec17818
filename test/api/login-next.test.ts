import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cookiesOf, testApp, type TestApp, type TestUser } from '../helpers/app.js'
import { ensureWebBuild } from '../browser/dashboard-web.js'

/**
 * Signing in returns to the dashboard page that was asked for (`/login?next=`), and to nowhere
 * else: a `next` that could leave this origin or the dashboard is dropped (open redirect).
 */
describe('/login?next=', () => {
  let t: TestApp
  let u: TestUser
  const password = 'correct horse'
  beforeAll(async () => {
    await ensureWebBuild()
    t = await testApp()
    u = await t.makeUser({ password })
  })
  afterAll(() => t.close())

  const get = (url: string, cookie?: string) => t.app.inject({ method: 'GET', url, headers: cookie ? { cookie } : {} })
  const post = (form: Record<string, string>, ip = '192.0.2.10') =>
    t.app.inject({
      method: 'POST',
      url: '/login',
      remoteAddress: ip,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(form).toString(),
    })
  const hiddenNext = (body: string) => /<input type="hidden" name="next" value="([^"]*)">/.exec(body)?.[1]

  it('a signed-out visit to a dashboard page goes to /login with that page (and its query) as next; /dashboard itself needs none', async () => {
    for (const path of ['/dashboard/links/1/edit', '/dashboard/links?campaign=3&page=2', '/dashboard/admin/users']) {
      const res = await get(path)
      expect(res.statusCode).toBe(302)
      expect(res.headers.location).toBe(`/login?next=${encodeURIComponent(path)}`)
    }
    expect((await get('/dashboard')).headers.location).toBe('/login')
    expect((await get('/dashboard/')).headers.location).toBe('/login')
  })

  it('the form keeps next in a hidden field, escaped, also after a wrong password; signing in then goes there', async () => {
    const next = '/dashboard/links?campaign=3&page=2'
    const form = await get(`/login?next=${encodeURIComponent(next)}`)
    expect(form.statusCode).toBe(200)
    expect(hiddenNext(form.body)).toBe('/dashboard/links?campaign=3&amp;page=2')

    const wrong = await post({ email: u.user.email, password: 'wrong', next })
    expect(wrong.statusCode).toBe(401)
    expect(wrong.body).toContain('Email or password is wrong.')
    expect(hiddenNext(wrong.body)).toBe('/dashboard/links?campaign=3&amp;page=2')

    const ok = await post({ email: u.user.email, password, next })
    expect(ok.statusCode).toBe(302)
    expect(ok.headers.location).toBe(next)
    expect((await get(next, cookiesOf(ok))).statusCode).toBe(200)
  })

  it('the form still refuses a post from another site and keeps next for the retry', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      payload: new URLSearchParams({ email: u.user.email, password, next: '/dashboard/qr' }).toString(),
    })
    expect(res.statusCode).toBe(403)
    expect(res.headers['set-cookie'] ?? '').not.toContain('kurz_session')
    expect(hiddenNext(res.body)).toBe('/dashboard/qr')
  })

  const attempts = [
    '//evil.example',
    '//evil.example/dashboard',
    'https://evil.example',
    'https://evil.example/dashboard',
    'javascript:alert(1)',
    '/\\evil.example',
    '/dashboard\\..\\..\\login',
    '\\\\evil.example',
    '/dashboard/../login',
    '/dashboard/%2e%2e/login',
    '/dashboard/.%2E/%2e%2E/login',
    '/dashboard/./links',
    '/dashboard//evil.example',
    '/dashboardx',
    '/login',
    '/api/account',
    ' /dashboard/links',
    '/dashboard/links\r\nSet-Cookie: a=b',
    '/dashboard/links\t',
    '/dashboard/\u0000',
    '/dashboard/links#frag',
    `/dashboard/${'a'.repeat(2100)}`,
    '',
  ]

  it.each(attempts.map((a) => [JSON.stringify(a).slice(0, 60), a]))('next=%s is dropped: no hidden field, and signing in lands on the dashboard', async (_name, next) => {
    const form = await get(`/login?next=${encodeURIComponent(next)}`)
    expect(form.statusCode).toBe(200)
    expect(hiddenNext(form.body)).toBeUndefined()
    const ok = await post({ email: u.user.email, password, next }, '192.0.2.11')
    expect(ok.statusCode).toBe(302)
    // /dashboard opens the link list (web/src/routes.tsx)
    expect(ok.headers.location).toBe('/dashboard')
  })

  it('a next sent twice, or not as text, is dropped too', async () => {
    expect(hiddenNext((await get('/login?next=/dashboard/qr&next=//evil.example')).body)).toBeUndefined()
    const res = await t.app.inject({
      method: 'POST',
      url: '/login',
      headers: { 'content-type': 'application/json' },
      payload: { email: u.user.email, password, next: ['/dashboard/qr'] },
    })
    expect(res.statusCode).toBe(302)
    expect(res.headers.location).toBe('/dashboard')
  })
})
