import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import { createDb } from '../../src/db/client.js'
import { createUser } from '../../src/resources/admin/users.js'
import { main } from '../../src/cli.js'
import { parseBlocklistFile } from '../../src/resources/blocklist/import.js'
import { testDatabase } from '../helpers/app.js'

/*
 * `npm run cli -- blocklist:import <file>` (DECISIONS §10.6): hosts-format or one domain per line,
 * on the database the server uses; links matching a new entry are quarantined.
 */

const HOSTS = `# A hosts file, as blocklists publish them
127.0.0.1 localhost
::1 localhost ip6-localhost
0.0.0.0 phish.example       # inline comment
0.0.0.0   Malware.Example tracker.example
127.0.0.1 cdn.phish.example

this line is not a host
`
const PLAIN = `spam.example
*.wild.example
https://scheme.example/
phish.example
`

describe('blocklist:import', { timeout: 120_000 }, () => {
  let dir: string
  let env: Record<string, string>
  let drop: (() => Promise<void>) | undefined

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kurz-blocklist-'))
    env = { DATA_DIR: join(dir, 'data'), SECRET_KEY: 'blocklist-test-secret-at-least-32-bytes', LOG_LEVEL: 'silent', PUBLIC_URL: 'http://kurz.test' }
    if (process.env.TEST_DATABASE_URL) {
      const database = await testDatabase()
      await database.handle.close()
      env.DATABASE_URL = database.url!
      // the handle is closed already; only the database goes
      drop = async () => {
        const pg = (await import('pg')).default
        const c = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL })
        await c.connect()
        await c.query(`drop database if exists ${new URL(database.url!).pathname.slice(1)} with (force)`)
        await c.end()
      }
    }
    writeFileSync(join(dir, 'hosts.txt'), HOSTS)
    writeFileSync(join(dir, 'plain.txt'), PLAIN)
  })
  afterAll(async () => {
    await drop?.()
    rmSync(dir, { recursive: true, force: true })
  })

  async function cli(...args: string[]) {
    let stdout = ''
    let stderr = ''
    const code = await main(args, { env, stdout: { write: (c: string) => (stdout += c) }, stderr: { write: (c: string) => (stderr += c) } })
    return { code, stdout, stderr }
  }

  /** The server on the same database, for as long as `fn` runs (the embedded database allows one process at a time). */
  async function withServer<T>(fn: (app: Awaited<ReturnType<typeof buildApp>>) => Promise<T>): Promise<T> {
    const config = loadConfig(env)
    const handle = await createDb(config.db)
    const app = await buildApp(config, { db: handle })
    try {
      return await fn(app)
    } finally {
      await app.close()
      await handle.close()
    }
  }

  it('reads hosts lines, plain lines and comments; skips addresses, this machine and what names no domain', () => {
    expect(parseBlocklistFile(HOSTS)).toEqual({
      domains: ['phish.example', 'malware.example', 'tracker.example', 'cdn.phish.example'],
      skipped: [{ line: 8, text: 'this line is not a host' }],
      skippedCount: 1,
    })
    expect(parseBlocklistFile(PLAIN).domains).toEqual(['spam.example', 'wild.example', 'scheme.example', 'phish.example'])
  })

  it('adds the entries and quarantines the links they match; a second import adds only what is new', async () => {
    const ids = await withServer(async (app) => {
      const { apiKey } = await createUser(app.db, app.keys, { email: 'owner@example.com', username: 'owner', password: 'secret-password' })
      const add = async (url: string, custom: string) =>
        (await app.inject({ method: 'POST', url: '/api/url/add', headers: { authorization: `Bearer ${apiKey}` }, payload: { url, custom } })).json().id as number
      return {
        sub: await add('https://login.phish.example/x', 'imp-sub'),
        wild: await add('https://a.b.wild.example/', 'imp-wild'),
        clean: await add('https://example.com/', 'imp-clean'),
      }
    })

    const first = await cli('blocklist:import', join(dir, 'hosts.txt'))
    expect(first.code, first.stderr).toBe(0)
    expect(JSON.parse(first.stdout)).toEqual({ read: 4, added: 4, alreadyListed: 0, skipped: 1, skippedLines: [{ line: 8, text: 'this line is not a host' }], quarantined: 1 })

    const second = await cli('blocklist:import', join(dir, 'plain.txt'), '--reason', 'spam feed')
    expect(second.code, second.stderr).toBe(0)
    expect(JSON.parse(second.stdout)).toMatchObject({ read: 4, added: 3, alreadyListed: 1, skipped: 0, quarantined: 1 })

    await withServer(async (app) => {
      const visit = (alias: string) => app.inject({ method: 'GET', url: `/${alias}`, headers: { host: 'kurz.test' } })
      expect((await visit('imp-sub')).statusCode).toBe(451)
      expect((await visit('imp-wild')).statusCode).toBe(451)
      expect((await visit('imp-clean')).statusCode).toBe(302)
      expect(ids.clean).toBeGreaterThan(0)
    })
    const again = await cli('blocklist:import', join(dir, 'plain.txt'))
    expect(JSON.parse(again.stdout)).toMatchObject({ added: 0, alreadyListed: 4, quarantined: 0 })
  })

  it('a file it cannot read is one line on stderr and exit 1', async () => {
    const res = await cli('blocklist:import', join(dir, 'missing.txt'))
    expect(res).toEqual({ code: 1, stdout: '', stderr: `Error: Cannot read ${join(dir, 'missing.txt')}: ENOENT.\n` })
    expect((await cli('blocklist:import')).code).toBe(1)
  })
})
