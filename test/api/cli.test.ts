import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import { createDb } from '../../src/db/client.js'
import { main } from '../../src/cli.js'
import { testDatabase } from '../helpers/app.js'

/** `npm run cli -- <command>`: spawned for real against a temporary database. */
const ROOT = resolve(import.meta.dirname, '../..')
const SECRET = 'cli-test-secret-that-is-at-least-32-bytes'

describe('CLI (src/cli.ts)', { timeout: 120_000 }, () => {
  let dataDir: string
  let env: Record<string, string>
  let dropDb: (() => Promise<void>) | undefined
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'kurz-cli-'))
    env = { DATA_DIR: dataDir, SECRET_KEY: SECRET, LOG_LEVEL: 'silent' }
    if (process.env.TEST_DATABASE_URL) {
      const database = await testDatabase()
      await database.handle.close()
      env.DATABASE_URL = database.url!
      dropDb = async () => {
        const pg = (await import('pg')).default
        const c = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL })
        await c.connect()
        await c.query(`drop database if exists ${new URL(database.url!).pathname.slice(1)} with (force)`)
        await c.end()
      }
    }
  })
  afterAll(async () => {
    await dropDb?.()
    rmSync(dataDir, { recursive: true, force: true })
  })

  function cli(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const clean = { ...process.env }
    for (const name of ['DATABASE_URL', 'REDIS_URL', 'SECRET_KEY', 'ADMIN_EMAIL', 'ADMIN_API_KEY']) delete clean[name]
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { cwd: ROOT, env: { ...clean, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c) => (stdout += c))
    child.stderr.on('data', (c) => (stderr += c))
    return new Promise((done) => child.on('exit', (code) => done({ code, stdout, stderr })))
  }
  async function inProcess(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
    let stdout = ''
    let stderr = ''
    const code = await main(args, { env, stdout: { write: (c: string) => (stdout += c) }, stderr: { write: (c: string) => (stderr += c) } })
    return { code, stdout, stderr }
  }
  const json = (r: { stdout: string }) => JSON.parse(r.stdout)

  it('--help lists every command and exits 0; no command prints the help and exits 1', async () => {
    const help = await cli('--help')
    expect(help.code).toBe(0)
    for (const c of ['users:create', 'users:list', 'keys:rotate', 'plans:list', 'plans:create', 'plans:update']) expect(help.stdout).toContain(c)
    const none = await cli()
    expect(none.code).toBe(1)
    expect(none.stdout).toContain('users:create')
  })

  it('refuses unknown commands and options with a clear message and exit 1', async () => {
    const unknown = await cli('users:destroy')
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toMatch(/Unknown command "users:destroy"/)
    const option = await cli('plans:list', '--verbose')
    expect(option.code).toBe(1)
    expect(option.stderr).toBe('Error: plans:list has no option --verbose (--help for usage).\n')
  })

  let adminKey: string
  let userKey: string
  let proId: number

  it('plans:list prints the seeded plans as GET /api/plans does', async () => {
    const r = await cli('plans:list')
    expect(r.code).toBe(0)
    const plans = json(r)
    expect(plans.map((p: { name: string }) => p.name)).toEqual(['Free', 'Pro'])
    expect(plans[1]).toMatchObject({ free: false, prices: { monthly: 9.99, yearly: 99, lifetime: 299 }, limits: { links: 0, retention: 730, api: { enabled: '1' } } })
    proId = plans[1].id
  })

  it('users:create makes an admin and prints the user with the generated key and password', async () => {
    const r = await cli('users:create', '--email', 'ops@example.com', '--username', 'ops', '--admin')
    expect(r.code).toBe(0)
    expect(json(r)).toEqual({
      id: expect.any(Number), email: 'ops@example.com', username: 'ops', avatar: expect.stringMatching(/^https:\/\/www\.gravatar\.com\/avatar\/[0-9a-f]{32}\?d=identicon$/),
      status: 'free', expires: null, registered: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/), planid: expect.any(Number),
      apikey: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/), admin: true, password: expect.stringMatching(/^.{12,}$/),
    })
    adminKey = json(r).apikey
  })

  it('users:create with --password and --plan by name (or id); no password is echoed', async () => {
    const r = await cli('users:create', '--email', 'paid@example.com', '--username', 'paid_user', '--password', 'hunter22', '--plan', 'pro')
    expect(r.code).toBe(0)
    const user = json(r)
    expect(user).toMatchObject({ username: 'paid_user', planid: proId, status: 'pro', admin: false })
    expect(user.password).toBeUndefined()
    userKey = user.apikey
    const byId = await cli('users:create', '--email', 'byid@example.com', '--username', 'by_id', '--plan', String(proId))
    expect(json(byId).planid).toBe(proId)
  })

  it.each([
    [['users:create', '--username', 'x_user'], /needs --email/],
    [['users:create', '--email', 'a@example.com'], /needs --username/],
    [['users:create', '--email', 'not-an-email', '--username', 'abc'], /valid email/],
    [['users:create', '--email', 'a@example.com', '--username', '<b>'], /username/],
    [['users:create', '--email', 'a@example.com', '--username', 'abc', '--password', '123'], /at least 5/],
    [['users:create', '--email', 'a@example.com', '--username', 'abc', '--plan', 'Platinum'], /No plan "Platinum"/],
    [['users:create', '--email', 'OPS@example.com', '--username', 'another'], /email address is already registered/],
    [['users:create', '--email', 'new@example.com', '--username', 'OPS'], /username is already taken/],
    [['keys:rotate'], /takes 1 argument/],
    [['keys:rotate', 'ghost@example.com'], /No user has the email ghost@example.com/],
    [['plans:create'], /needs --json/],
    [['plans:create', '--json', '{oops'], /not valid JSON/],
    [['plans:create', '--json', '{"name":""}'], /^Error: name /m],
    [['plans:create', '--json', '{"name":"X","limits":{"links":-1}}'], /limits\.links/],
    [['plans:create', '--json', '{"name":"Pro"}'], /already exists/],
    [['plans:update', 'abc', '--json', '{}'], /needs a plan id/],
    [['plans:update', '99999', '--json', '{"name":"Y"}'], /No plan has the id 99999/],
    [['users:list', '--filter', 'vip'], /filter must be one of/],
    [['users:list', '--limit', 'abc'], /^Error: --limit must be a whole number from 1 to 100000\.$/m],
    [['users:list', '--limit', '1000000'], /^Error: --limit must be a whole number from 1 to 100000\.$/m],
    [['users:list', '--page', '0'], /^Error: --page must be a whole number from 1 to/m],
    [['users:list', '--page', '-1'], /^Error: --page needs a value; a value that starts with a dash is written --page=<value>/m],
    [['plans:update', '1', '--json', '[]'], /^Error: --json must be a JSON object of plan fields .*, not a list\.$/m],
    [['plans:create', '--json', '7'], /not a single value\.$/m],
  ])('%j → exit 1 with a clear message', async (args, message) => {
    // main() in process, with the same env and argv the script gets: one spawn per case would be slow
    const r = await inProcess(...args)
    expect(r.code).toBe(1)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(message)
    expect(r.stderr).not.toMatch(/    at /)
  })

  it('users:list prints users newest first with their keys, and filters', async () => {
    const all = await cli('users:list')
    expect(all.code).toBe(0)
    expect(json(all).map((u: { username: string }) => u.username)).toEqual(['by_id', 'paid_user', 'ops'])
    expect(json(all)[1].apikey).toBe(userKey)
    const admins = await cli('users:list', '--filter', 'admin')
    expect(json(admins).map((u: { username: string }) => u.username)).toEqual(['ops'])
    const search = await cli('users:list', '--email', 'PAID')
    expect(json(search).map((u: { username: string }) => u.username)).toEqual(['paid_user'])
  })

  let planId: number
  it('plans:create and plans:update take the JSON of the plan endpoints', async () => {
    const created = await cli('plans:create', '--json', '{"name":"Team","free":false,"prices":{"monthly":19},"limits":{"links":500,"api":{"enabled":true},"pixels":{"enabled":"1","count":"20"}}}')
    expect(created.code).toBe(0)
    expect(json(created)).toMatchObject({
      id: expect.any(Number), name: 'Team', free: false, prices: { monthly: 19, yearly: 0, lifetime: 0 },
      limits: { links: 500, clicks: 0, retention: 0, api: { enabled: '1' }, pixels: { enabled: '1', count: '20' }, geo: { enabled: '0' } },
    })
    planId = json(created).id
    const updated = await cli('plans:update', String(planId), '--json', '{"limits":{"links":750,"geo":{"enabled":1}}}')
    expect(updated.code).toBe(0)
    expect(json(updated)).toMatchObject({ id: planId, name: 'Team', limits: { links: 750, geo: { enabled: '1' }, pixels: { count: '20' } } })
  })

  let rotated: string
  it('keys:rotate prints a new key', async () => {
    const r = await cli('keys:rotate', 'PAID@example.com')
    expect(r.code).toBe(0)
    expect(json(r)).toEqual({ id: expect.any(Number), email: 'paid@example.com', username: 'paid_user', apikey: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/) })
    rotated = json(r).apikey
    expect(rotated).not.toBe(userKey)
  })

  it('works on the same database the server uses: keys and plans are live over HTTP', async () => {
    const config = loadConfig(env)
    const handle = await createDb(config.db)
    const app = await buildApp(config, { db: handle })
    try {
      const get = (url: string, key: string) => app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key}` } })
      expect((await get('/api/account', rotated)).json().data.username).toBe('paid_user')
      expect((await get('/api/account', userKey)).statusCode).toBe(401)
      const plans = (await get('/api/plans', adminKey)).json().data
      expect(plans.find((p: { id: number }) => p.id === planId)).toMatchObject({ name: 'Team', limits: { links: 750 } })
    } finally {
      await app.close()
      await handle.close()
    }
  })
})
