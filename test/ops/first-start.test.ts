import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

/** `src/server.ts` as a real process: what an operator sees on the first start. */
const ROOT = resolve(import.meta.dirname, '../..')

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
  stdout: () => string
  stderr: () => string
  exit: Promise<number | null>
}

function server(env: Record<string, string>): Proc {
  const clean = { ...process.env }
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'ADMIN_EMAIL', 'ADMIN_API_KEY', 'ADMIN_PASSWORD', 'SECRET_KEY', 'PUBLIC_URL', 'TRUST_PROXY', 'PORT', 'LOG_IPS']) delete clean[name]
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { cwd: ROOT, env: { ...clean, HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout!.on('data', (c) => (out += c))
  child.stderr!.on('data', (c) => (err += c))
  return { child, stdout: () => out, stderr: () => err, exit: new Promise((done) => child.on('exit', (code) => done(code))) }
}

async function up(base: string, proc: Proc): Promise<void> {
  const deadline = Date.now() + 90_000
  while (Date.now() < deadline && proc.child.exitCode === null) {
    if (await fetch(`${base}/healthz`).then((r) => r.ok, () => false)) return
    await new Promise((r) => setTimeout(r, 200))
  }
  throw new Error(`server did not come up:\n${proc.stdout()}\n${proc.stderr()}`)
}

async function stop(proc: Proc): Promise<number | null> {
  proc.child.kill('SIGTERM')
  return proc.exit
}

describe('a first start that explains itself', { timeout: 180_000 }, () => {
  let root: string
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'kurz-first-'))
  })
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  it('with no user at all, the log says how to create one', async () => {
    const port = await freePort()
    const proc = server({ PORT: String(port), DATA_DIR: join(root, 'empty') })
    await up(`http://127.0.0.1:${port}`, proc)
    // the hint follows "Server listening"; wait for it rather than for a time
    while (!proc.stdout().includes('No user exists yet') && proc.child.exitCode === null) await new Promise((r) => setTimeout(r, 100))
    expect(await stop(proc)).toBe(0)
    const hint = proc.stdout().split('\n').find((l) => l.includes('No user exists yet'))!
    expect(JSON.parse(hint)).toMatchObject({ level: 40 })
    expect(hint).toContain('npm run cli -- users:create --email you@example.com --username you --admin')
    expect(hint).toContain('ADMIN_EMAIL')
    // the database, its WAL and secret.key are the running user's alone, as PostgreSQL insists
    expect(statSync(join(root, 'empty')).mode & 0o777).toBe(0o700)
    expect(proc.stderr()).not.toContain('open to other users')
  })

  it('ADMIN_EMAIL alone: the generated key and password are in a box on stdout, work, and are in no log line', async () => {
    const port = await freePort()
    const base = `http://127.0.0.1:${port}`
    const proc = server({ PORT: String(port), DATA_DIR: join(root, 'admin'), ADMIN_EMAIL: 'first@example.com' })
    await up(base, proc)
    while (!proc.stdout().includes('keys:rotate') && proc.child.exitCode === null) await new Promise((r) => setTimeout(r, 100))
    const out = proc.stdout()
    const key = /\|\s+API key\s+(\S+)\s+\|/.exec(out)?.[1]
    const password = /\|\s+password\s+(\S+)\s+\|/.exec(out)?.[1]
    expect(key, out).toMatch(/^[\w-]{32}$/)
    expect(password).toBeTruthy()
    expect(out).toMatch(/^\+-{20,}\+$/m) // a box, not a log line

    const account = await fetch(`${base}/api/account`, { headers: { authorization: `Bearer ${key}` } })
    expect(account.status).toBe(200)
    expect((await account.json()).data).toMatchObject({ email: 'first@example.com', username: 'admin' })
    const login = await fetch(`${base}/login`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `email=first%40example.com&password=${encodeURIComponent(password!)}` })
    expect(login.status).toBe(302)
    expect(await stop(proc)).toBe(0)

    const logLines = (proc.stdout() + proc.stderr()).split('\n').filter((l) => l.startsWith('{'))
    expect(logLines.some((l) => l.includes('"msg":"admin created'))).toBe(true)
    for (const line of logLines) {
      expect(line).not.toContain(key)
      expect(line).not.toContain(password)
    }

    // shown once: a restart creates nothing and prints no box
    const again = server({ PORT: String(port), DATA_DIR: join(root, 'admin'), ADMIN_EMAIL: 'first@example.com', ADMIN_API_KEY: 'A_new_key_that_is_not_used_0123456789' })
    await up(base, again)
    while (!again.stdout().includes('ADMIN_API_KEY ignored') && again.child.exitCode === null) await new Promise((r) => setTimeout(r, 100))
    expect((await fetch(`${base}/api/account`, { headers: { authorization: 'Bearer A_new_key_that_is_not_used_0123456789' } })).status).toBe(401)
    expect(await stop(again)).toBe(0)
    expect(again.stdout()).not.toContain('API key ')
    expect(again.stdout()).not.toContain(key)
    // a key given on every start says it is not the one in use
    const ignored = again.stdout().split('\n').find((l) => l.includes('ADMIN_API_KEY ignored'))!
    expect(JSON.parse(ignored)).toMatchObject({ level: 40 })
    expect(ignored).toContain('npm run cli -- keys:rotate first@example.com')
  })

  it('an unreachable Redis: one warning, /readyz 200 degraded', async () => {
    const port = await freePort()
    const base = `http://127.0.0.1:${port}`
    // a DATA_DIR made open to others beforehand is left as it is, with one line that says so
    mkdirSync(join(root, 'redis'), { mode: 0o755 })
    const proc = server({ PORT: String(port), DATA_DIR: join(root, 'redis'), REDIS_URL: `redis://127.0.0.1:${await freePort()}` })
    await up(base, proc)
    expect(proc.stderr()).toContain(`DATA_DIR (${join(root, 'redis')}) is open to other users of this machine (mode 755) and holds the database and secret.key: chmod 700 ${join(root, 'redis')}`)
    const ready = await fetch(`${base}/readyz`)
    expect(ready.status).toBe(200)
    expect(await ready.json()).toEqual({ status: 'degraded', redis: 'down' })
    // several reconnect attempts later, still the one warning
    for (let i = 0; i < 20; i++) expect((await fetch(`${base}/healthz`)).status).toBe(200)
    expect(await stop(proc)).toBe(0)
    const warnings = proc.stdout().split('\n').filter((l) => l.includes('redis is not reachable'))
    expect(warnings).toHaveLength(1)
  })

  it('an unreachable database: retried for 30 s, one line per attempt, then exit 1 with one line naming the host', async () => {
    const dead = await freePort()
    const proc = server({ PORT: String(await freePort()), DATA_DIR: join(root, 'pg'), DATABASE_URL: `postgres://kurz:hunter2@127.0.0.1:${dead}/kurz` })
    expect(await proc.exit).toBe(1)
    const lines = proc.stderr().trim().split('\n')
    expect(lines.length).toBeGreaterThan(5)
    for (const line of lines.slice(0, -1)) expect(line).toMatch(new RegExp(`^Database at 127\\.0\\.0\\.1:${dead}/kurz not reachable \\(ECONNREFUSED\\), attempt \\d+; retrying for \\d+ s more$`))
    expect(lines.at(-1)).toBe(`Cannot use the database at 127.0.0.1:${dead}/kurz: not reachable after 30 s (ECONNREFUSED). Check DATABASE_URL.`)
    expect(proc.stderr() + proc.stdout()).not.toMatch(/hunter2|    at /)
  })

  it('a DATA_DIR that is a file: exit 1 with one sentence naming DATA_DIR', async () => {
    const file = join(root, 'not-a-directory')
    writeFileSync(file, 'x')
    const proc = server({ PORT: String(await freePort()), DATA_DIR: file })
    expect(await proc.exit).toBe(1)
    expect(proc.stderr().trim()).toBe(`DATA_DIR (${file}) is a file, not a directory. Set DATA_DIR to a directory Kurz may write.`)
  })

  it('a DATA_DIR that takes no files (/proc, writable to root by its mode): exit 1 with one sentence naming DATA_DIR', async () => {
    const proc = server({ PORT: String(await freePort()), DATA_DIR: '/proc' })
    expect(await proc.exit).toBe(1)
    expect(proc.stderr().trim()).toMatch(/^DATA_DIR \(\/proc\) cannot be used: E[A-Z]+( writing server\.pid)?\. Set DATA_DIR to a directory Kurz may write\.$/)
  })

  it('a PORT already taken, or a HOST that is not this machine: exit 1 with one sentence naming the variable', async () => {
    const holder = createServer()
    const port = await new Promise<number>((done) => holder.listen(0, '127.0.0.1', () => done((holder.address() as { port: number }).port)))
    try {
      const taken = server({ PORT: String(port), DATA_DIR: join(root, 'port-taken') })
      expect(await taken.exit).toBe(1)
      expect(taken.stderr().trim()).toBe(`PORT ${port} is already in use on 127.0.0.1: stop what holds it, or set PORT to a free port.`)
    } finally {
      holder.close()
    }
    // 192.0.2.1 (TEST-NET-1) is documentation's own address: no machine has it
    const stranger = server({ PORT: String(await freePort()), DATA_DIR: join(root, 'bad-host'), HOST: '192.0.2.1' })
    expect(await stranger.exit).toBe(1)
    expect(stranger.stderr().trim()).toBe('HOST (192.0.2.1) is not an address of this machine: set HOST to one of its addresses, 0.0.0.0 for all of them, or 127.0.0.1 for this machine only.')
    expect(stranger.stdout()).not.toMatch(/    at /)
  })

  // a Postgres that answers but refuses: no waiting, and Postgres's own words say what to fix
  it.skipIf(!process.env.TEST_DATABASE_URL)('a database that does not exist: exit 1 at once, naming what is wrong', async () => {
    const u = new URL(process.env.TEST_DATABASE_URL!)
    u.pathname = '/kurz_no_such_database'
    const proc = server({ PORT: String(await freePort()), DATA_DIR: join(root, 'pg-missing'), DATABASE_URL: u.toString() })
    expect(await proc.exit).toBe(1)
    expect(proc.stderr().trim().split('\n').at(-1)).toBe(
      `Cannot use the database at ${u.hostname}:${u.port || '5432'}/kurz_no_such_database: refused the connection (database "kurz_no_such_database" does not exist). Check DATABASE_URL.`,
    )
  })
})
