import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { afterAll, describe, expect, it } from 'vitest'
import { count, eq } from 'drizzle-orm'
import { createDb } from '../../src/db/client.js'
import { clicks, links } from '../../src/db/schema/index.js'
import { emptyPostgres, TEST_SECRET } from '../helpers/app.js'

const ADMIN_KEY = 'durabilityTestAdminKey0123456789'
const N = 400

/** Starts `src/server.ts` as its own process, as production does; resolves with its port. */
function startServer(env: Record<string, string>): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: process.cwd(),
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', SECRET_KEY: TEST_SECRET, ADMIN_EMAIL: 'ops@example.com', ADMIN_API_KEY: ADMIN_KEY, RATE_LIMIT_MAX: '100000', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! })
    lines.on('line', (line) => {
      const m = /listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(line)
      if (m) resolve({ child, port: Number(m[1]) })
    })
    child.on('exit', (code) => reject(new Error(`server exited with ${code} before listening`)))
  })
}

function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<number | null> {
  return new Promise((resolve) => {
    child.on('exit', (code) => resolve(code))
    child.kill(signal)
  })
}

/** N visits with 25 in flight at a time; every one must be answered with the redirect. */
async function visits(port: number, alias: string, n: number) {
  let next = 0
  const statuses: number[] = []
  await Promise.all(
    Array.from({ length: 25 }, async () => {
      while (next < n) {
        next++
        const res = await fetch(`http://127.0.0.1:${port}/${alias}`, { redirect: 'manual', headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/125.0' } })
        statuses.push(res.status)
        await res.arrayBuffer()
      }
    }),
  )
  return statuses
}

describe('no click is lost on SIGTERM', () => {
  const cleanup: (() => Promise<void> | void)[] = []
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c()
  })

  it(`${N} visits to a real server, SIGTERM, reopen: ${N} clicks`, { timeout: 180_000 }, async () => {
    let env: Record<string, string>
    let reopen: () => ReturnType<typeof createDb>
    const base = process.env.TEST_DATABASE_URL
    if (base) {
      const fresh = await emptyPostgres(base)
      env = { DATABASE_URL: fresh.url, DATA_DIR: mkdtempSync(join(tmpdir(), 'kurz-dur-')) }
      reopen = () => createDb({ kind: 'pg', url: fresh.url })
      cleanup.push(fresh.drop)
    } else {
      const dir = mkdtempSync(join(tmpdir(), 'kurz-dur-'))
      env = { DATA_DIR: dir }
      reopen = () => createDb({ kind: 'pglite', dir })
      cleanup.push(() => rmSync(dir, { recursive: true, force: true }))
    }

    const { child, port } = await startServer(env)
    cleanup.push(() => {
      if (child.exitCode === null) child.kill('SIGKILL')
    })
    const created = await fetch(`http://127.0.0.1:${port}/api/url/add`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://example.com/durable', custom: 'durable1' }),
    })
    expect(created.status).toBe(200)
    const id = (await created.json()).id as number

    const statuses = await visits(port, 'durable1', N)
    expect(statuses.length).toBe(N)
    expect(statuses.every((s) => s === 302)).toBe(true)
    // no flush was asked for: whatever is still buffered must be written on the way out
    expect(await stop(child, 'SIGTERM')).toBe(0)

    const handle = await reopen()
    try {
      const [{ n }] = await handle.db.select({ n: count() }).from(clicks).where(eq(clicks.linkId, id))
      const [row] = await handle.db.select({ clicks: links.clicks }).from(links).where(eq(links.id, id))
      expect({ rows: n, counter: row.clicks }).toEqual({ rows: N, counter: N })
    } finally {
      await handle.close()
    }
  })
})
