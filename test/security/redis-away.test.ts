import { spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app.js'
import { eq } from 'drizzle-orm'
import { plans } from '../../src/db/schema/index.js'
import { createUser } from '../../src/resources/admin/users.js'
import { testApp, testConfig, testDatabase, type TestApp, type TestUser } from '../helpers/app.js'
import { addLink } from '../helpers/fixtures.js'
import { expectPage, expectRedirect } from '../helpers/visits.js'
import { lineSink } from '../helpers/log-lines.js'

/*
 * Issue 13 item 6: Redis away. "Down" is a REDIS_URL on a port nobody listens on; the reconnect
 * test runs a redis-server of its own on a free port, kills it and starts it again.
 */

async function freePort(): Promise<number> {
  const s = createServer()
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r))
  const port = (s.address() as { port: number }).port
  await new Promise((r) => s.close(r))
  return port
}

async function until(check: () => Promise<boolean> | boolean, what: string) {
  for (let i = 0; i < 400; i++) {
    if (await check()) return
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new Error(`never happened: ${what}`)
}

async function freePlanId(app: FastifyInstance): Promise<number> {
  const [plan] = await app.db.select({ id: plans.id }).from(plans).where(eq(plans.name, 'Free'))
  return plan.id
}

function startRedis(port: number): ChildProcess {
  return spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'], { stdio: 'ignore' })
}

async function stopRedis(p: ChildProcess) {
  if (p.exitCode !== null) return
  const exited = new Promise((r) => p.once('exit', r))
  p.kill('SIGKILL')
  await exited
}

describe('Redis unreachable (a closed port)', () => {
  let app: FastifyInstance
  let drop: () => Promise<void>
  let key: string
  let email: string
  const lines: string[] = []

  beforeAll(async () => {
    const database = await testDatabase()
    drop = database.drop
    const logStream = lineSink(lines)
    const env = { REDIS_URL: `redis://127.0.0.1:${await freePort()}`, LOG_LEVEL: 'warn', RATE_LIMIT_MAX: '3' }
    app = await buildApp(testConfig(env), { db: database.handle, logStream })
    await app.ready()
    email = 'away@example.com'
    key = (await createUser(app.db, app.keys, { email, username: 'away', password: 'correct horse', admin: false, planId: await freePlanId(app) })).apiKey
  })
  afterAll(async () => {
    await app.close()
    await drop()
  })

  it('API requests answer at once (before: about 6 s each), and the per-key limit holds per instance', async () => {
    const started = Date.now()
    const res = []
    for (let i = 0; i < 4; i++) res.push(await app.inject({ method: 'GET', url: '/api/account', headers: { authorization: `Bearer ${key}` } }))
    const elapsed = Date.now() - started
    expect(res.map((r) => r.statusCode)).toEqual([200, 200, 200, 429])
    // a bound far above what four requests take here and far below one request's wait on Redis before
    expect(elapsed).toBeLessThan(1_000)
  })

  it('failure throttles count in this instance: the 6th sign-in attempt is a 429', async () => {
    const statuses = []
    for (let i = 0; i < 6; i++) {
      const r = await app.inject({ method: 'POST', url: '/login', remoteAddress: '192.0.2.77', payload: { email, password: `guess ${i}` } })
      statuses.push(r.statusCode)
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429])
  })

  it('logs one warning for the connection, not one per reconnect attempt or request', async () => {
    await until(() => lines.length > 0, 'a warning')
    await new Promise((r) => setTimeout(r, 500)) // a few more reconnect attempts
    const warnings = lines.map((l) => JSON.parse(l)).filter((l) => l.level === 40 && /redis/i.test(l.msg))
    expect(warnings.length).toBe(1)
  })
})

describe('Redis killed and started again', () => {
  let port: number
  let server: ChildProcess
  let t: TestApp
  let other: FastifyInstance
  let pro: TestUser

  beforeAll(async () => {
    port = await freePort()
    server = startRedis(port)
    const env = { REDIS_URL: `redis://127.0.0.1:${port}` }
    t = await testApp(env)
    other = await buildApp(testConfig(env), { db: t.handle })
    await other.ready()
    await until(() => t.app.redis?.status === 'ready' && other.redis?.status === 'ready', 'both instances connected')
    pro = await t.makeUser({ plan: 'pro' })
  })
  afterAll(async () => {
    await other?.close()
    await t?.close()
    if (server) await stopRedis(server)
  })

  const onOther = (path: string) => other.inject({ method: 'GET', url: path, headers: { host: 'kurz.test' } })

  it('while Redis is away, a change on one instance reaches the other within seconds (its links are reread every 5 s meanwhile)', async () => {
    const id = await addLink(pro, { url: 'https://example.com/live', custom: 'redisgone' })
    expectRedirect(await onOther('/redisgone'), 302, 'https://example.com/live') // cached on the other instance
    await stopRedis(server)
    await until(() => other.redis?.status !== 'ready', 'the other instance saw Redis go')
    // the invalidation this change publishes is lost: nobody is listening
    const off = await t.app.inject({
      method: 'PUT',
      url: `/api/v1/links/${id}`,
      headers: { authorization: `Bearer ${pro.key}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      payload: 'disabled=1',
    })
    expect(off.statusCode, off.body).toBe(200)
    // with Redis up a cached link is reread after 5 minutes; a 404 within these seconds is the outage's 5 s
    await until(async () => (await onOther('/redisgone')).statusCode === 404, 'the other instance reread the link while Redis was away')
    expectPage(await onOther('/redisgone'), 404)
  })

  it('once Redis is back every instance drops its cached links, one that started while Redis was away too', async () => {
    await until(() => other.redis?.status !== 'ready', 'Redis still away')
    // started during the outage: its first connect is a reconnect as far as its cache is concerned
    const late = await buildApp(testConfig({ REDIS_URL: `redis://127.0.0.1:${port}` }), { db: t.handle })
    try {
      await late.ready()
      await addLink(pro, { url: 'https://example.com/late', custom: 'latecomer' })
      for (const app of [late, other]) {
        const res = await app.inject({ method: 'GET', url: '/latecomer', headers: { host: 'kurz.test' } })
        expectRedirect(res, 302, 'https://example.com/late')
        expect(app.linkCache.stats().size).toBeGreaterThan(0)
      }
      server = startRedis(port)
      await until(() => late.linkCache.stats().size === 0 && other.linkCache.stats().size === 0, 'both instances dropped their cached links on connecting')
    } finally {
      await late.close()
    }
  })

  it('rate limits are shared again once Redis is back', async () => {
    await until(() => t.app.redis?.status === 'ready' && other.redis?.status === 'ready', 'both instances reconnected')
    expect(t.app.redis!.status).toBe('ready')
  })
})
