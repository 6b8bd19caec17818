import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app.js'
import { createUser } from '../../src/resources/admin/users.js'
import { testConfig, testDatabase } from '../helpers/app.js'
import { lineSink } from '../helpers/log-lines.js'

const ROOT = resolve(import.meta.dirname, '../..')

describe('health, logs and failures (in process)', () => {
  let app: FastifyInstance
  let drop: () => Promise<void>
  const lines: string[] = []
  let key: string
  beforeAll(async () => {
    const database = await testDatabase()
    // the test closes the handle itself to take the database away; closing twice must be harmless
    const close = database.handle.close
    let closed = false
    database.handle.close = async () => {
      if (closed) return
      closed = true
      await close()
    }
    drop = database.drop
    const logStream = lineSink(lines)
    app = await buildApp(testConfig({ LOG_LEVEL: 'info' }), { db: database.handle, logStream })
    await app.ready()
    key = (await createUser(app.db, app.keys, { email: 'logged@example.com', username: 'logged', password: 'hunter22' })).apiKey
  })
  afterAll(async () => {
    await app.close()
    await drop()
  })

  const logs = () => lines.map((l) => JSON.parse(l) as Record<string, any>)

  it('GET /healthz and /readyz answer 200 {"status":"ok"}', async () => {
    for (const url of ['/healthz', '/readyz']) {
      const res = await app.inject({ method: 'GET', url })
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({ status: 'ok' })
    }
  })

  it('logs every API request with its request id, and never the Authorization header or the key', async () => {
    const wrongKey = 'WrongKey_' + 'q'.repeat(23)
    const ok = await app.inject({ method: 'GET', url: '/api/account', headers: { authorization: `Bearer ${key}`, cookie: 'kurz_session=secret-cookie-value' } })
    expect(ok.statusCode).toBe(200)
    const refused = await app.inject({ method: 'GET', url: '/api/account', headers: { authorization: `Bearer ${wrongKey}` } })
    expect(refused.statusCode).toBe(401)
    const all = logs()
    const id = refused.headers['x-request-id']
    const mine = all.filter((l) => l.reqId === id)
    expect(mine.map((l) => l.msg)).toEqual(['incoming request', 'request completed'])
    expect(mine[0].req).toMatchObject({ method: 'GET', url: '/api/account' })
    expect(mine[1].res).toMatchObject({ statusCode: 401 })
    const text = lines.join('\n')
    expect(text).not.toContain(wrongKey)
    expect(text).not.toContain(key)
    expect(text).not.toContain('secret-cookie-value')
    expect(text.toLowerCase()).not.toContain('bearer')
  })

  it('with the database gone: /readyz 503, /healthz still 200, API calls a 503 with Retry-After that leaks nothing, logged with the request id', async () => {
    await app.dbHandle.close()
    const ready = await app.inject({ method: 'GET', url: '/readyz' })
    expect(ready.statusCode).toBe(503)
    expect(ready.json()).toEqual({ status: 'unavailable', error: 1, message: 'The database is not answering.' })
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200)

    const res = await app.inject({ method: 'GET', url: '/api/urls', headers: { authorization: `Bearer ${key}` } })
    // an unreachable database is not a bug: 503 and a time to come back (issue 13 item 5)
    expect(res.statusCode).toBe(503)
    expect(res.json()).toEqual({ error: 1, message: 'The database is not reachable right now; try again shortly.' })
    expect(res.headers['retry-after']).toBe('5')
    expect(res.body).not.toMatch(/at |\.ts|\.js|node_modules|stack|PGlite|closed/i)
    const logged = logs().filter((l) => l.reqId === res.headers['x-request-id'])
    expect(logged.some((l) => l.level === 40 && l.msg === 'database unreachable: answering 503')).toBe(true)
    expect(lines.join('\n')).not.toContain(key)
  })
})

// ---------------------------------------------------------------------------------------------
// A real process: `node --import tsx src/server.ts` (what `npm run dev` runs; `npm start` runs
// the same file compiled by tsc), on a free port, a temporary DATA_DIR and SIGTERM.

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer()
    s.once('error', fail)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => done(port))
    })
  })
}

interface Proc {
  child: ChildProcess
  out: () => string
  exit: Promise<number | null>
}

function run(script: string, args: string[], env: Record<string, string | undefined>): Proc {
  const clean = { ...process.env }
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'ADMIN_EMAIL', 'ADMIN_API_KEY', 'SECRET_KEY', 'PUBLIC_URL', 'TRUST_PROXY', 'PORT']) delete clean[name]
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { cwd: ROOT, env: { ...clean, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout!.on('data', (c) => (out += c))
  child.stderr!.on('data', (c) => (out += c))
  const exit = new Promise<number | null>((done) => child.on('exit', (code) => done(code)))
  return { child, out: () => out, exit }
}

async function waitUntilUp(base: string, proc: Proc): Promise<void> {
  const deadline = Date.now() + 60_000
  let exited = false
  void proc.exit.then(() => (exited = true))
  while (Date.now() < deadline && !exited) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) return
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 150))
  }
  throw new Error(`server did not come up:\n${proc.out()}`)
}

describe('the server process', () => {
  const ADMIN_KEY = 'AdminKey_for_the_process_test_01'
  let dataDir: string
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'kurz-server-'))
  })
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

  it('starts with ADMIN_EMAIL/ADMIN_API_KEY on a fresh DATA_DIR, serves, refuses a second opener, stops on SIGTERM with 0, and keeps its data across a restart', async () => {
    const port = await freePort()
    const base = `http://127.0.0.1:${port}`
    const env = { PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, ADMIN_EMAIL: 'root@example.com', ADMIN_API_KEY: ADMIN_KEY, LOG_LEVEL: 'info' }
    const auth = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' }

    const first = run('src/server.ts', [], env)
    await waitUntilUp(base, first)
    const account = await fetch(`${base}/api/account`, { headers: auth })
    expect(account.status).toBe(200)
    expect(await account.json()).toMatchObject({ error: 0, data: { email: 'root@example.com', username: 'admin', status: 'free' } })
    const made = await fetch(`${base}/api/user/add`, { method: 'POST', headers: auth, body: JSON.stringify({ username: 'survivor', email: 'survivor@example.com', password: 'hunter22' }) })
    expect(made.status).toBe(200)
    const shortUrl = await fetch(`${base}/api/account`, { headers: { authorization: 'Bearer nope-nope-nope-nope-nope' } })
    expect(shortUrl.status).toBe(401)

    // PGlite's files have one owner: the CLI and a second server refuse while this one runs
    const cli = run('src/cli.ts', ['users:list'], { DATA_DIR: dataDir })
    expect(await cli.exit).toBe(1)
    expect(cli.out()).toMatch(new RegExp(`open in process ${first.child.pid}`))
    const second = run('src/server.ts', [], { ...env, PORT: String(await freePort()) })
    expect(await second.exit).toBe(1)
    expect(second.out()).toMatch(/open in process/)

    first.child.kill('SIGTERM')
    expect(await first.exit).toBe(0)
    const log = first.out()
    expect(log).toMatch(/"msg":"Server listening at http:\/\/127\.0\.0\.1:\d+"/)
    expect(log).toMatch(/"reqId":"[0-9a-f-]{36}".*"msg":"incoming request"/)
    expect(log).toMatch(/shutting down/)
    expect(log).not.toContain(ADMIN_KEY)
    expect(log).not.toContain('nope-nope-nope')

    // restart on the same DATA_DIR: the user is still there, and the generated secret.key kept the key valid
    const again = run('src/server.ts', [], env)
    await waitUntilUp(base, again)
    const list = await fetch(`${base}/api/users?email=survivor`, { headers: auth })
    expect(list.status).toBe(200)
    expect((await list.json()).data.map((u: { username: string }) => u.username)).toEqual(['survivor'])
    const everyone = await (await fetch(`${base}/api/users?filter=admin`, { headers: auth })).json()
    expect(everyone.data).toHaveLength(1) // the admin was not created twice
    again.child.kill('SIGTERM')
    expect(await again.exit).toBe(0)
  }, 300_000)

  it('runs on Postgres with DATABASE_URL', async (ctx) => {
    if (!process.env.TEST_DATABASE_URL) ctx.skip()
    const database = await testDatabase()
    try {
      const port = await freePort()
      const base = `http://127.0.0.1:${port}`
      const proc = run('src/server.ts', [], { PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, DATABASE_URL: database.url, ADMIN_EMAIL: 'pg@example.com', ADMIN_API_KEY: ADMIN_KEY, SECRET_KEY: 's'.repeat(40) })
      await waitUntilUp(base, proc)
      expect((await fetch(`${base}/readyz`)).status).toBe(200)
      const account = await fetch(`${base}/api/account`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })
      expect((await account.json()).data.email).toBe('pg@example.com')
      proc.child.kill('SIGTERM')
      expect(await proc.exit).toBe(0)
    } finally {
      await database.drop()
    }
  }, 120_000)

  it('refuses a bad environment with a message naming the variable, exit code 1', async () => {
    const proc = run('src/server.ts', [], { PORT: 'eighty', DATA_DIR: dataDir })
    expect(await proc.exit).toBe(1)
    expect(proc.out()).toMatch(/Invalid configuration: PORT/)
    expect(proc.out()).not.toMatch(/    at /)
  }, 60_000)
})
