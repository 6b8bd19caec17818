import { createHmac, timingSafeEqual } from 'node:crypto'
import http from 'node:http'
import { buildApp } from '../../src/app.js'
import type { DbHandle } from '../../src/db/client.js'
import type { DeliveryOptions } from '../../src/resources/webhooks/deliver.js'
import { Api, testConfig, type TestApp } from '../helpers/app.js'
import { makeUser } from '../helpers/fixtures.js'
import { closeServer, listenLocally } from '../helpers/local-server.js'

/* A real receiver on 127.0.0.1 and apps whose deliveries retry in milliseconds, not minutes. */

export interface Received {
  headers: http.IncomingHttpHeaders
  raw: string
  body: { id: number; event: string; date: string; data: Record<string, any> }
}

export class Receiver {
  readonly got: Received[] = []
  /** status to answer the next request with */
  answer: (r: Received) => number = () => 200
  private server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8')
      const r: Received = { headers: req.headers, raw, body: JSON.parse(raw) }
      const status = this.answer(r)
      if (status >= 200 && status < 300) this.got.push(r)
      const location = status >= 300 && status < 400 ? { location: `${this.url}?followed` } : {}
      res.writeHead(status, { 'content-type': 'text/plain', ...location }).end('ok')
    })
  })
  url = ''
  async start() {
    this.url = `${await listenLocally(this.server)}/hook`
    return this
  }
  close() {
    return closeServer(this.server)
  }
  of(event: string) {
    return this.got.filter((r) => r.body.event === event)
  }
}

/** The README's recipe: HMAC-SHA256 of "<t>.<raw body>" with the secret, compared in constant time. */
export function verifySignature(secret: string, header: string, raw: string, toleranceSeconds = 300): boolean {
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=') as [string, string]))
  const expected = createHmac('sha256', secret).update(`${parts.t}.${raw}`).digest('hex')
  const fresh = Math.abs(Date.now() / 1000 - Number(parts.t)) <= toleranceSeconds
  return fresh && expected.length === parts.v1?.length && timingSafeEqual(Buffer.from(expected), Buffer.from(parts.v1))
}

export const FAST: Partial<DeliveryOptions> = { backoffMs: [20, 20, 20], pollMs: 10_000, leaseMs: 60_000 }

/** An app on an existing database, with ALLOW_PRIVATE_TARGETS and fast retries; close() leaves the database open. */
export async function hookApp(handle: DbHandle, webhooks: Partial<DeliveryOptions> = FAST, env: Record<string, string> = {}): Promise<TestApp> {
  const config = testConfig({ ALLOW_PRIVATE_TARGETS: 'true', ...env })
  const app = await buildApp(config, { db: handle, webhooks })
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

/** Sends what is due until `done()` holds (retries come due after their short backoff); fails after `rounds`. */
export async function deliverUntil(t: TestApp, done: () => boolean, rounds = 200): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    await t.app.clicks.flush()
    await t.app.webhooks.drain()
    if (done()) return
    await new Promise((r) => setTimeout(r, 15))
  }
  throw new Error('the expected deliveries did not arrive')
}
