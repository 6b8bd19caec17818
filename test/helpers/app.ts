import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import pg from 'pg'
import { nanoid } from 'nanoid'
import { buildApp } from '../../src/app.js'
import { loadConfig, type Config } from '../../src/config.js'
import { createDb, type DbHandle } from '../../src/db/client.js'
import type { users } from '../../src/db/schema/index.js'
import { makeUser, type UserOptions } from './fixtures.js'

export const TEST_SECRET = 'test-secret-key-that-is-at-least-32-bytes-long'
export const TS = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/

/** A throwaway database: in-memory PGlite, or a fresh Postgres database when TEST_DATABASE_URL is set. */
export async function testDatabase(): Promise<{ handle: DbHandle; url?: string; drop(): Promise<void> }> {
  const base = process.env.TEST_DATABASE_URL
  if (!base) {
    const handle = await createDb({ kind: 'pglite' })
    return { handle, drop: () => handle.close() }
  }
  const fresh = await emptyPostgres(base)
  const handle = await createDb({ kind: 'pg', url: fresh.url })
  return {
    handle,
    url: fresh.url,
    drop: async () => {
      await handle.close()
      await fresh.drop()
    },
  }
}

/** A new, empty database on the Postgres server of `base`; `drop` removes it even while clients linger. */
export async function emptyPostgres(base: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `kurz_t_${nanoid(10).toLowerCase().replace(/[^a-z0-9]/g, 'x')}`
  const admin = new pg.Client({ connectionString: base })
  await admin.connect()
  await admin.query(`create database ${name}`)
  await admin.end()
  const url = new URL(base)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: base })
      await c.connect()
      await c.query(`drop database if exists ${name} with (force)`)
      await c.end()
    },
  }
}

export function testConfig(env: Record<string, string | undefined> = {}): Config {
  return loadConfig({
    PUBLIC_URL: 'http://kurz.test',
    SECRET_KEY: TEST_SECRET,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_MAX: '100000',
    V1_RATE_LIMIT_MAX: '100000',
    DATA_DIR: './data-test',
    // no background health checks: they would fetch every test link's URL (tests that want them set it)
    HEALTH_CHECK_INTERVAL: '0',
    ...env,
  })
}

type Body = InjectOptions['payload']

export class Api {
  constructor(
    private readonly app: FastifyInstance,
    private readonly key?: string,
  ) {}
  private headers(extra: Record<string, string> = {}) {
    return { ...(this.key ? { authorization: `Bearer ${this.key}` } : {}), ...extra }
  }
  get(url: string, headers?: Record<string, string>) {
    return this.app.inject({ method: 'GET', url, headers: this.headers(headers) })
  }
  post(url: string, body?: Body, headers?: Record<string, string>) {
    return this.app.inject({ method: 'POST', url, payload: body as Body, headers: this.headers(headers) })
  }
  put(url: string, body?: Body, headers?: Record<string, string>) {
    return this.app.inject({ method: 'PUT', url, payload: body as Body, headers: this.headers(headers) })
  }
  del(url: string, headers?: Record<string, string>) {
    return this.app.inject({ method: 'DELETE', url, headers: this.headers(headers) })
  }
}

export interface TestUser {
  user: typeof users.$inferSelect
  key: string
  api: Api
}

export interface TestApp {
  app: FastifyInstance
  handle: DbHandle
  config: Config
  api(key?: string): Api
  /** fixtures.ts makeUser, bound to this app */
  makeUser(opts?: UserOptions): Promise<TestUser>
  close(): Promise<void>
}

/** Fresh database + migrated app per test file (STYLE §3.8). */
export async function testApp(env: Record<string, string | undefined> = {}): Promise<TestApp> {
  const database = await testDatabase()
  const config = testConfig(env)
  const app = await buildApp(config, { db: database.handle })
  await app.ready()
  const t: TestApp = {
    app,
    handle: database.handle,
    config,
    api: (key?: string) => new Api(app, key),
    makeUser: (opts) => makeUser(t, opts),
    async close() {
      await app.close()
      await database.drop()
    },
  }
  return t
}

/** A fresh app and one user per entry of `users`, for a describe block's beforeAll: `[t, alice, bob] = await appWith({}, {})`. */
export async function appWith(...users: UserOptions[]): Promise<[TestApp, ...TestUser[]]> {
  const t = await testApp()
  const made: TestUser[] = []
  for (const o of users) made.push(await t.makeUser(o))
  return [t, ...made]
}

export function expectError(res: LightMyRequestResponse, status: number, message?: RegExp) {
  const body = res.json()
  if (res.statusCode !== status || body.error !== 1 || typeof body.message !== 'string' || (message && !message.test(body.message))) {
    throw new Error(`expected ${status} {error:1, message~${message}}, got ${res.statusCode} ${res.body}`)
  }
  return body as { error: 1; message: string }
}

/** The cookies a response sets, as `name=value` pairs ready for the next request's Cookie header. */
export function cookiesOf(res: LightMyRequestResponse): string {
  const set = res.headers['set-cookie']
  const list = Array.isArray(set) ? set : set ? [set] : []
  return list.map((c) => c.split(';')[0]).join('; ')
}
