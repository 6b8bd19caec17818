import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { and, eq } from 'drizzle-orm'
import { webhookDeliveries } from '../../src/db/schema/index.js'
import { expectError, testDatabase, TS, type TestApp, type TestUser } from '../helpers/app.js'
import { addLink } from '../helpers/fixtures.js'
import { counters, expectRedirect, visit } from '../helpers/visits.js'
import { checkingApp, Destination, refusingOrigin } from './helpers.js'

/* DECISIONS §10.5 health over HTTP: POST /api/url/:id/check, details.health, the fallback, link.health. */

describe('link health: check now, fallback while broken', () => {
  let db: Awaited<ReturnType<typeof testDatabase>>
  let t: TestApp
  let alice: TestUser
  let bob: TestUser
  let dest: Destination

  beforeAll(async () => {
    db = await testDatabase()
    t = await checkingApp(db.handle)
    alice = await t.makeUser({ plan: 'pro' })
    bob = await t.makeUser({ plan: 'pro' })
    dest = await new Destination().start()
  })
  afterAll(async () => {
    await dest.close()
    await t.close()
    await db.drop()
  })

  const check = async (u: TestUser, id: number) => u.api.post(`/api/url/${id}/check`)
  const health = async (u: TestUser, id: number) => (await u.api.get(`/api/url/${id}?full=1`)).json().details.health

  it('starts unknown; a 2xx is ok; a 500 is broken and visitors reach the fallback; back to 2xx is ok again', async () => {
    const url = `${dest.origin}/flaky`
    const id = await addLink(alice, { url, custom: 'flaky', fallback: 'https://example.com/sorry' })
    expect(await health(alice, id)).toEqual({ state: 'unknown', status: null, reason: null, checkedAt: null })

    const ok = await check(alice, id)
    const answered = { state: 'ok', status: 200, reason: null, checkedAt: expect.stringMatching(TS) }
    expect(ok.json()).toEqual({ error: 0, ...answered, data: answered })
    expect(await health(alice, id)).toEqual({ ...answered, checkedAt: ok.json().checkedAt })
    expectRedirect(await visit(t, '/flaky'), 302, url)

    dest.answers.set('/flaky', 500)
    expect((await check(alice, id)).json().data).toEqual({ state: 'broken', status: 500, reason: 'answered with HTTP status 500', checkedAt: expect.stringMatching(TS) })
    expect(await health(alice, id)).toMatchObject({ state: 'broken', status: 500 })
    // the cached visit was dropped: the next visitor goes to the fallback, and it is the link's click
    expectRedirect(await visit(t, '/flaky?from=qr'), 302, 'https://example.com/sorry?from=qr')

    dest.answers.set('/flaky', 204)
    expect((await check(alice, id)).json().data).toMatchObject({ state: 'ok', status: 204, reason: null })
    expectRedirect(await visit(t, '/flaky'), 302, url)
    expect(await counters(t, id)).toMatchObject({ clicks: 3 })
    // DECISIONS §10.7: /metrics counts the checks by what they found
    const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body
    expect(metrics).toContain('kurz_link_health_checks_total{result="ok"} 2\n')
    expect(metrics).toContain('kurz_link_health_checks_total{result="broken"} 1\n')
    expect(metrics).toContain('kurz_link_health_checks_total{result="unknown"} 0\n')
  })

  it('a destination refusing connections is broken without a status', async () => {
    const url = `${await refusingOrigin()}/down`
    const id = await addLink(alice, { url, custom: 'refused', fallback: 'https://example.com/backup' })
    const res = (await check(alice, id)).json().data
    expect(res).toMatchObject({ state: 'broken', status: null })
    expect(res.reason).toMatch(/could not be reached/)
    expectRedirect(await visit(t, '/refused'), 302, 'https://example.com/backup')
  })

  it('a broken link without a fallback keeps sending visitors to its long URL; targets are not replaced', async () => {
    const url = `${dest.origin}/nofallback`
    dest.answers.set('/nofallback', 503)
    const id = await addLink(alice, { url, custom: 'nofb' })
    expect((await check(alice, id)).json().data).toMatchObject({ state: 'broken', status: 503 })
    expectRedirect(await visit(t, '/nofb'), 302, url)

    dest.answers.set('/targeted', 500)
    const targeted = await addLink(alice, {
      url: `${dest.origin}/targeted`,
      custom: 'targeted',
      fallback: 'https://example.com/fb',
      languagetarget: [{ language: 'fr', link: 'https://example.com/fr' }],
    })
    await check(alice, targeted)
    expectRedirect(await visit(t, '/targeted', { headers: { 'accept-language': 'fr-FR' } }), 302, 'https://example.com/fr')
    expectRedirect(await visit(t, '/targeted', { headers: { 'accept-language': 'en' } }), 302, 'https://example.com/fb')
  })

  it('asks with HEAD, and with GET when HEAD is refused (405)', async () => {
    dest.answers.set('/nohead', 'head-405')
    const id = await addLink(alice, { url: `${dest.origin}/nohead`, custom: 'nohead' })
    expect((await check(alice, id)).json().data).toMatchObject({ state: 'ok', status: 200 })
    expect(dest.seen.filter((s) => s.endsWith(' /nohead'))).toEqual(['HEAD /nohead', 'GET /nohead'])
    await addLink(alice, { url: `${dest.origin}/plainhead`, custom: 'plainhead' }).then((i) => check(alice, i))
    expect(dest.seen.filter((s) => s.endsWith(' /plainhead'))).toEqual(['HEAD /plainhead'])
  })

  it('a new long URL starts over as unknown', async () => {
    dest.answers.set('/old', 500)
    const id = await addLink(alice, { url: `${dest.origin}/old`, custom: 'starts-over' })
    await check(alice, id)
    expect(await health(alice, id)).toMatchObject({ state: 'broken' })
    await alice.api.put(`/api/url/${id}/update`, { url: `${dest.origin}/new` })
    expect(await health(alice, id)).toEqual({ state: 'unknown', status: null, reason: null, checkedAt: null })
  })

  it('an app link (not a web address) is unknown, not broken', async () => {
    const id = await addLink(alice, { url: 'spotify:track:4uLU6hMCjMI75M1A2tKUQC', custom: 'applink' })
    expect((await check(alice, id)).json().data).toMatchObject({ state: 'unknown', status: null, reason: 'not checked: not a web address' })
  })

  it('sends link.health on a change of state (not on a first ok), in the outbox with the change', async () => {
    const hook = await alice.api.post('/api/webhook/add', { url: `${dest.origin}/hook`, events: ['link.health'] })
    expect(hook.statusCode).toBe(200)
    dest.answers.set('/evented', 200)
    const id = await addLink(alice, { url: `${dest.origin}/evented`, custom: 'evented' })
    const events = async () =>
      (await t.app.db.select().from(webhookDeliveries).where(and(eq(webhookDeliveries.event, 'link.health')))).map((d) => JSON.parse(d.data as unknown as string))
    await check(alice, id)
    expect(await events()).toEqual([])
    dest.answers.set('/evented', 500)
    await check(alice, id)
    await check(alice, id)
    dest.answers.set('/evented', 200)
    await check(alice, id)
    const sent = await events()
    expect(sent.map((e) => [e.previous, e.health.state, e.health.status])).toEqual([
      ['ok', 'broken', 500],
      ['broken', 'ok', 200],
    ])
    expect(sent[0]).toMatchObject({ id, alias: 'evented', shorturl: 'http://kurz.test/evented', longurl: `${dest.origin}/evented` })
  })

  it('GET /api/urls/health lists the health of the caller\'s links among the ids, others\' left out; bad ids are 400', async () => {
    dest.answers.set('/listed', 500)
    const mine = await addLink(alice, { url: `${dest.origin}/listed`, custom: 'listed' })
    const fresh = await addLink(alice, { url: `${dest.origin}/fresh`, custom: 'fresh' })
    const theirs = await addLink(bob, { url: `${dest.origin}/theirs`, custom: 'theirs' })
    await check(alice, mine)
    const res = await alice.api.get(`/api/urls/health?ids=${fresh},${mine},${theirs},${mine}`)
    expect(res.json()).toEqual({
      error: 0,
      data: {
        health: [
          { id: mine, state: 'broken', status: 500, reason: 'answered with HTTP status 500', checkedAt: expect.stringMatching(TS), quarantined: false },
          { id: fresh, state: 'unknown', status: null, reason: null, checkedAt: null, quarantined: false },
        ],
      },
    })
    expectError(await alice.api.get('/api/urls/health?ids=1,x'), 400, /^ids\b/)
    expectError(await alice.api.get(`/api/urls/health?ids=${Array.from({ length: 101 }, (_, i) => i + 1).join(',')}`), 400, /^ids\b/)
  })

  it("answers 404 for another account's link and an unknown id", async () => {
    const id = await addLink(alice, { url: `${dest.origin}/mine`, custom: 'hmine' })
    expect((await check(bob, id)).statusCode).toBe(404)
    expect((await check(alice, 999999)).statusCode).toBe(404)
    expect(dest.hits('/mine')).toBe(0)
  })
})

describe('link health: private destinations need ALLOW_PRIVATE_TARGETS', () => {
  it('leaves a loopback destination unknown (not broken) when private targets are not allowed', async () => {
    const db = await testDatabase()
    const t = await checkingApp(db.handle, { ALLOW_PRIVATE_TARGETS: 'false' })
    const dest = await new Destination().start()
    try {
      const u = await t.makeUser({ plan: 'pro' })
      const id = await addLink(u, { url: `${dest.origin}/private`, fallback: 'https://example.com/fb' })
      const res = (await u.api.post(`/api/url/${id}/check`)).json().data
      expect(res).toMatchObject({ state: 'unknown', status: null })
      expect(res.reason).toMatch(/^not checked: points at a .* address/)
      expect(dest.seen).toEqual([])
    } finally {
      await dest.close()
      await t.close()
      await db.drop()
    }
  })
})
