import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { buildApp } from '../../src/app.js'
import type { DbHandle } from '../../src/db/client.js'
import type { HealthOptions } from '../../src/link-health/checker.js'
import { Api, testConfig, type TestApp } from '../helpers/app.js'
import { makeUser } from '../helpers/fixtures.js'
import { closeServer, listenLocally } from '../helpers/local-server.js'

/* A destination of the test's own on 127.0.0.1 whose answer the test sets per path, and apps that check it. */

export class Destination {
  /** what each path answers: a status, or 'head-405' (HEAD refused, GET 200) */
  readonly answers = new Map<string, number | 'head-405'>()
  /** every request as "METHOD /path" */
  readonly seen: string[] = []
  private server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]
    this.seen.push(`${req.method} ${path}`)
    const answer = this.answers.get(path) ?? 200
    const status = answer === 'head-405' ? (req.method === 'HEAD' ? 405 : 200) : answer
    res.writeHead(status, { 'content-type': 'text/html' }).end(req.method === 'HEAD' ? undefined : '<p>page</p>')
  })
  origin = ''
  async start() {
    this.origin = await listenLocally(this.server)
    return this
  }
  close() {
    return closeServer(this.server)
  }
  hits(path: string) {
    return this.seen.filter((s) => s.endsWith(` ${path}`)).length
  }
}

/** A loopback address nothing listens on: a port that was free a moment ago. */
export async function refusingOrigin(): Promise<string> {
  const server = http.createServer()
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const port = (server.address() as AddressInfo).port
  await new Promise((r) => server.close(r))
  return `http://127.0.0.1:${port}`
}

/** An app on an existing database with ALLOW_PRIVATE_TARGETS; close() leaves the database open. */
export async function checkingApp(handle: DbHandle, env: Record<string, string> = {}, health: Partial<HealthOptions> = {}): Promise<TestApp> {
  const config = testConfig({ ALLOW_PRIVATE_TARGETS: 'true', ...env })
  const app = await buildApp(config, { db: handle, health })
  await app.ready()
  const t: TestApp = {
    app,
    handle,
    config,
    api: (key?: string) => new Api(app, key),
    makeUser: (o) => makeUser(t, o),
    close: () => app.close(),
  }
  return t
}

/** Waits until `done()` holds, polling; fails after `rounds` (a wait, not a timed assertion). */
export async function until(done: () => Promise<boolean>, what: string, rounds = 400): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    if (await done()) return
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new Error(`gave up waiting: ${what}`)
}
