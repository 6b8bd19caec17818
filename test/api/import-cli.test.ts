import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { main } from '../../src/cli.js'
import { testDatabase } from '../helpers/app.js'

/** `npm run cli -- import`: in process, against a temporary database, as the server would see it. */
const SECRET = 'cli-test-secret-that-is-at-least-32-bytes'
const FIXTURES = resolve(import.meta.dirname, '../fixtures/import')

describe('npm run cli -- import', { timeout: 120_000 }, () => {
  let dataDir: string
  let env: Record<string, string>
  let drop: (() => Promise<void>) | undefined
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'kurz-import-'))
    env = { DATA_DIR: dataDir, SECRET_KEY: SECRET, LOG_LEVEL: 'silent' }
    if (process.env.TEST_DATABASE_URL) {
      const database = await testDatabase()
      await database.handle.close()
      env.DATABASE_URL = database.url!
      drop = async () => {
        const pg = (await import('pg')).default
        const c = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL })
        await c.connect()
        await c.query(`drop database if exists ${new URL(database.url!).pathname.slice(1)} with (force)`)
        await c.end()
      }
    }
  })
  afterAll(async () => {
    await drop?.()
    rmSync(dataDir, { recursive: true, force: true })
  })

  async function cli(...args: string[]) {
    let stdout = ''
    let stderr = ''
    const code = await main(args, { env, stdout: { write: (c: string) => (stdout += c) }, stderr: { write: (c: string) => (stderr += c) } })
    return { code, stdout, stderr }
  }

  it('imports a file for a user and prints the same answer as the API', async () => {
    expect((await cli('users:create', '--email', 'mover@example.com', '--username', 'mover')).code).toBe(0)
    const res = await cli('import', '--user', 'mover@example.com', '--format', 'shlink', join(FIXTURES, 'shlink.json'))
    expect(res).toMatchObject({ code: 0, stderr: '' })
    expect(JSON.parse(res.stdout)).toEqual({ error: 0, imported: 1, skipped: 0, errors: [] })
    // the same object as the endpoint, key for key and in its order
    expect(res.stdout).toMatch(/^\{\s*"error": 0,/)
    // the second run finds the alias taken: skipped and reported, never overwritten
    const again = await cli('import', '--user', 'mover@example.com', '--format', 'shlink', join(FIXTURES, 'shlink.json'))
    expect(JSON.parse(again.stdout)).toEqual({ error: 0, imported: 0, skipped: 1, errors: [{ line: 1, message: expect.stringMatching(/^custom: "api-ref" is already taken.*Skipped\.$/) }] })
  })

  it('refuses an unknown user, a missing format and an unreadable file', async () => {
    const file = join(dataDir, 'links.csv')
    writeFileSync(file, 'url\nhttps://example.com/\n')
    expect(await cli('import', '--user', 'nobody@example.com', '--format', 'csv', file)).toMatchObject({ code: 1, stderr: 'Error: No user has the email nobody@example.com.\n' })
    expect(await cli('import', '--user', 'mover@example.com', file)).toMatchObject({ code: 1, stderr: expect.stringMatching(/--format, one of csv, bitly, yourls, shlink, kutt/) })
    expect(await cli('import', '--user', 'mover@example.com', '--format', 'csv', join(dataDir, 'missing.csv'))).toMatchObject({ code: 1, stderr: expect.stringMatching(/Cannot read/) })
  })
})
