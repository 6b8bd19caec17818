import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app.js'
import { main } from '../../src/cli.js'
import type { DbHandle } from '../../src/db/client.js'
import { rotateSecret } from '../../src/accounts/deployment-secret.js'
import { apiKeysOf, createUser, rotateApiKey } from '../../src/resources/admin/users.js'
import { emptyPostgres, testConfig, testDatabase } from '../helpers/app.js'

/**
 * One secret per deployment (accounts/deployment-secret.ts): a process with another secret refuses
 * to start instead of making API keys nobody else accepts, and `secret:rotate` changes the secret
 * with every key still working. Apps share one throwaway database (PGlite in memory, or Postgres
 * with TEST_DATABASE_URL); the CLI's own runs open a DATA_DIR (or a fresh Postgres database).
 */
const A = 'the-first-secret-of-this-deployment-0123456789'
const B = 'a-second-secret-from-some-other-place-9876543210'

let dataDir: string
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'kurz-secret-'))
})
afterEach(() => rmSync(dataDir, { recursive: true, force: true }))

const account = (app: FastifyInstance, key: string) => app.inject({ method: 'GET', url: '/api/account', headers: { authorization: `Bearer ${key}` } })

describe('one secret per deployment: instances', { timeout: 60_000 }, () => {
  let database: Awaited<ReturnType<typeof testDatabase>>
  let handle: DbHandle
  beforeEach(async () => {
    database = await testDatabase()
    handle = database.handle
  })
  afterEach(() => database.drop())

  /** An instance with this secret (undefined: the one generated into DATA_DIR) on the shared database. */
  async function withApp<T>(secret: string | undefined, use: (app: FastifyInstance) => Promise<T>): Promise<T> {
    const app = await buildApp(testConfig({ SECRET_KEY: secret, DATA_DIR: dataDir }), { db: handle })
    try {
      await app.ready()
      return await use(app)
    } finally {
      await app.close()
    }
  }

  async function refusal(secret: string | undefined): Promise<Error> {
    return withApp(secret, async () => undefined).then(
      () => {
        throw new Error('an instance started with another secret')
      },
      (err: Error) => err,
    )
  }

  const newUser = (secret: string | undefined, email: string) =>
    withApp(secret, async (app) => (await createUser(app.db, app.keys, { email, username: email.split('@')[0], password: 'secret-password' })).apiKey)

  it('a second instance with another SECRET_KEY is refused, naming SECRET_KEY and the way out; the first secret still starts', async () => {
    const key = await newUser(A, 'first@example.com')
    const err = await refusal(B)
    expect(err.message).toMatch(/^The secret from SECRET_KEY is not the one this database's API keys were made with\. /)
    expect(err.message).toContain('npm run cli -- secret:rotate')
    expect(err.message).not.toContain(B)
    expect((await withApp(A, (app) => account(app, key))).statusCode).toBe(200)
  })

  it('the first start records the secret even with no API key yet: an instance with its own generated secret.key is refused, naming that file', async () => {
    await withApp(A, async () => undefined)
    const err = await refusal(undefined)
    expect(err.message).toContain(`The secret from ${join(dataDir, 'secret.key')} (SECRET_KEY is not set`)
  })

  it('a database from before the check is proved by opening one of its API keys', async () => {
    const key = await newUser(A, 'legacy@example.com')
    await handle.db.execute(sql`delete from deployment_settings`)
    expect((await refusal(B)).message).toMatch(/^The secret from SECRET_KEY is not the one/)
    // the refused start recorded nothing: the right secret starts, and is recorded
    expect((await withApp(A, (app) => account(app, key))).statusCode).toBe(200)
    const recorded = await handle.db.execute(sql`select count(*)::int as n from deployment_settings where name = 'secret_check'`)
    expect((recorded.rows[0] as { n: number }).n).toBe(1)
    expect((await refusal(B)).message).toMatch(/^The secret from SECRET_KEY/)
  })

  it('rotation re-keys every API key: current keys work with the new secret, a revoked one still says expired, the old secret is refused', async () => {
    const { old, key, second } = await withApp(A, async (app) => {
      const made = await createUser(app.db, app.keys, { email: 'rotor@example.com', username: 'rotor', password: 'secret-password' })
      const current = await rotateApiKey(app.db, app.keys, made.user.id)
      const other = await createUser(app.db, app.keys, { email: 'second@example.com', username: 'second', password: 'secret-password' })
      return { old: made.apiKey, key: current, second: other.apiKey }
    })
    // an instance left running on the old secret takes itself out of the balancer's rotation
    await withApp(A, async (app) => {
      expect((await app.inject('/readyz')).json()).toEqual({ status: 'ok' })
      expect(await rotateSecret(handle.db, { secretKey: A, dataDir }, B)).toEqual({ apiKeys: 3 })
      const stale = await app.inject('/readyz')
      expect(stale.statusCode).toBe(503)
      expect(stale.json()).toEqual({ status: 'unavailable', error: 1, message: expect.stringMatching(/^secret:rotate gave this deployment a new secret: .* restarts with the new SECRET_KEY\.$/) })
      expect((await account(app, key)).statusCode).toBe(401)
    })
    await withApp(B, async (app) => {
      expect((await app.inject('/readyz')).statusCode).toBe(200)
      expect((await account(app, key)).statusCode).toBe(200)
      expect((await account(app, second)).statusCode).toBe(200)
      const expired = await account(app, old)
      expect(expired.statusCode).toBe(401)
      expect(expired.json().message).toContain('expired')
      // the admin views open the sealed copies with the new secret
      const shown = await apiKeysOf(app.db, app.keys, [1, 2])
      expect([...shown.values()].sort()).toEqual([key, second].sort())
    })
    expect((await refusal(A)).message).toMatch(/^The secret from SECRET_KEY/)
    await expect(rotateSecret(handle.db, { secretKey: B, dataDir }, B)).rejects.toThrow('NEW_SECRET_KEY is the secret in use now')
    await expect(rotateSecret(handle.db, { secretKey: A, dataDir }, `${A}-next`)).rejects.toThrow(/^The secret from SECRET_KEY/)
  })

  it('a rotation of the generated secret.key stopped after the database changed finishes on the next start', async () => {
    const key = await newUser(undefined, 'file@example.com')
    const before = readFileSync(join(dataDir, 'secret.key'), 'utf8')
    const next = 'the-secret-a-rotation-wrote-before-it-stopped-000'
    expect(await rotateSecret(handle.db, { dataDir }, next)).toEqual({ apiKeys: 1, secretFile: join(dataDir, 'secret.key') })
    expect(readFileSync(join(dataDir, 'secret.key'), 'utf8').trim()).toBe(next)
    // as if the process died between the commit and replacing the file
    writeFileSync(join(dataDir, 'secret.key'), before)
    writeFileSync(join(dataDir, 'secret.key.next'), `${next}\n`)
    expect((await withApp(undefined, (app) => account(app, key))).statusCode).toBe(200)
    expect(readFileSync(join(dataDir, 'secret.key'), 'utf8').trim()).toBe(next)
    expect(existsSync(join(dataDir, 'secret.key.next'))).toBe(false)
  })
})

describe('one secret per deployment: the CLI', { timeout: 120_000 }, () => {
  let databaseUrl: string | undefined
  let dropDb: (() => Promise<void>) | undefined
  beforeEach(async () => {
    if (!process.env.TEST_DATABASE_URL) return
    const fresh = await emptyPostgres(process.env.TEST_DATABASE_URL)
    databaseUrl = fresh.url
    dropDb = fresh.drop
  })
  afterEach(() => dropDb?.())

  async function cli(secret: string | undefined, args: string[], extra: Record<string, string> = {}) {
    let stdout = ''
    let stderr = ''
    const env = { DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...(secret ? { SECRET_KEY: secret } : {}), ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}), ...extra }
    const code = await main(args, { env, stdout: { write: (c: string) => (stdout += c) }, stderr: { write: (c: string) => (stderr += c) } })
    return { code, stdout, stderr, json: () => JSON.parse(stdout) }
  }

  it('refuses another secret, and secret:rotate says what it needs', async () => {
    const made = await cli(A, ['users:create', '--email', 'cli@example.com', '--username', 'cli'])
    expect(made.code, made.stderr).toBe(0)
    const other = await cli(B, ['users:list'])
    expect(other.code).toBe(1)
    expect(other.stderr).toMatch(/^Error: The secret from SECRET_KEY is not the one/)
    const missing = await cli(A, ['secret:rotate'])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('secret:rotate needs the new secret in NEW_SECRET_KEY')
    const short = await cli(A, ['secret:rotate'], { NEW_SECRET_KEY: 'too-short' })
    expect(short.code).toBe(1)
    expect(short.stderr).toContain('NEW_SECRET_KEY must be at least 32 characters.')
    const done = await cli(A, ['secret:rotate'], { NEW_SECRET_KEY: B })
    expect(done.code, done.stderr).toBe(0)
    expect(done.json()).toMatchObject({ rotated: true, apiKeys: 1 })
    expect(done.stdout).not.toContain(B)
    // the user's key is the same key, read back with the new secret
    const listed = await cli(B, ['users:list'])
    expect(listed.json()[0].apikey).toBe(made.json().apikey)
  })

  it('with no SECRET_KEY, secret:rotate writes a new generated DATA_DIR/secret.key', async () => {
    const made = await cli(undefined, ['users:create', '--email', 'gen@example.com', '--username', 'gen'])
    expect(made.code, made.stderr).toBe(0)
    const before = readFileSync(join(dataDir, 'secret.key'), 'utf8')
    const done = await cli(undefined, ['secret:rotate'])
    expect(done.code, done.stderr).toBe(0)
    expect(done.json()).toMatchObject({ rotated: true, apiKeys: 1, secretFile: join(dataDir, 'secret.key') })
    const after = readFileSync(join(dataDir, 'secret.key'), 'utf8')
    expect(after).not.toBe(before)
    expect(after.trim().length).toBeGreaterThanOrEqual(32)
    expect(done.stdout).not.toContain(after.trim())
  })
})
