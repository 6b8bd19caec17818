import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { main } from '../../src/cli.js'

/** `npm run cli -- backup|restore|db:status|db:migrate`, in process, on PGlite DATA_DIRs. */
function cli(argv: string[], env: Record<string, string>) {
  let out = ''
  let err = ''
  const io = { env: { LOG_LEVEL: 'silent', ...env }, stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) } }
  return main(argv, io).then((code) => ({ code, out, err, json: () => JSON.parse(out) }))
}

describe('backup and restore of the embedded database', { timeout: 180_000 }, () => {
  let root: string
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'kurz-backup-'))
  })
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  it('db:status lists pending migrations of a new DATA_DIR, db:migrate applies them without a server', async () => {
    const env = { DATA_DIR: join(root, 'fresh') }
    const before = await cli(['db:status'], env)
    expect(before.code).toBe(0)
    expect(before.json()).toMatchObject({ applied: [], pending: expect.arrayContaining(['0000_init']), legacyInit: false })
    // the database these commands make is private from the start, as the server's is
    expect(statSync(env.DATA_DIR).mode & 0o777).toBe(0o700)
    const migrated = await cli(['db:migrate'], env)
    expect(migrated.code).toBe(0)
    expect(migrated.json()).toEqual({ applied: before.json().pending, pending: [] })
    expect((await cli(['db:status'], env)).json()).toEqual({ applied: before.json().pending, pending: [], legacyInit: false })
  })

  it('backup → restore into a new DATA_DIR: the users are there and their API keys still work', async () => {
    const source = { DATA_DIR: join(root, 'source') } // no SECRET_KEY: the generated secret.key must travel too
    const made = await cli(['users:create', '--email', 'keep@example.com', '--username', 'keeper', '--admin'], source)
    expect(made.code).toBe(0)
    const { apikey } = made.json()
    const file = join(root, 'kurz.backup.tgz')
    const backup = await cli(['backup', file], source)
    expect(backup.code, backup.err).toBe(0)
    expect(backup.json()).toMatchObject({ file, bytes: statSync(file).size })
    expect(statSync(file).mode & 0o077).toBe(0) // it holds the secret

    const target = { DATA_DIR: join(root, 'restored') }
    const restored = await cli(['restore', file], target)
    expect(restored.code, restored.err).toBe(0)
    expect(statSync(join(target.DATA_DIR, 'secret.key')).mode & 0o077).toBe(0)
    expect(existsSync(join(target.DATA_DIR, 'server.pid'))).toBe(false)
    const users = await cli(['users:list', '--email', 'keep@'], target)
    expect(users.code, users.err).toBe(0)
    expect(users.json()).toEqual([expect.objectContaining({ email: 'keep@example.com', username: 'keeper', apikey })])

    // never over a database
    const again = await cli(['restore', file], target)
    expect(again.code).toBe(1)
    expect(again.err).toMatch(/already holds a database/)
  })

  it('refuses while a server holds DATA_DIR, and with DATABASE_URL points to pg_dump', async () => {
    const dir = join(root, 'held')
    expect((await cli(['db:migrate'], { DATA_DIR: dir })).code).toBe(0)
    // a live process named in server.pid stands for the running server
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'])
    try {
      writeFileSync(join(dir, 'server.pid'), `${child.pid}\n`)
      for (const argv of [['backup', join(root, 'x.tgz')], ['restore', join(root, 'kurz.backup.tgz')], ['db:status'], ['db:migrate']]) {
        const res = await cli(argv, { DATA_DIR: dir })
        expect(res.code, argv[0]).toBe(1)
        expect(res.err, argv[0]).toMatch(new RegExp(`open in process ${child.pid}`))
      }
    } finally {
      child.kill()
    }
    for (const command of ['backup', 'restore']) {
      const res = await cli([command, join(root, 'pg.tgz')], { DATA_DIR: dir, DATABASE_URL: 'postgres://kurz@127.0.0.1:1/kurz' })
      expect(res.code).toBe(1)
      expect(res.err).toMatch(/pg_dump/)
    }
  })
})
