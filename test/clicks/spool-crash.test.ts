import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { afterAll, describe, expect, it } from 'vitest'
import { count, eq } from 'drizzle-orm'
import { createDb } from '../../src/db/client.js'
import { clicks, links } from '../../src/db/schema/index.js'
import { emptyPostgres, TEST_SECRET } from '../helpers/app.js'

/* The click spool (DECISIONS §10.7): kill -9 right after N answered visits loses none, twice over. */

const ADMIN_KEY = 'spoolCrashTestAdminKey0123456789'
const N = 600

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

function kill9(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.on('exit', () => resolve())
    child.kill('SIGKILL')
  })
}

/** n visits with 50 in flight at a time; resolves with how many were answered with the redirect. */
async function load(port: number, alias: string, n: number): Promise<number> {
  let next = 0
  let answered = 0
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      while (next < n) {
        next++
        const res = await fetch(`http://127.0.0.1:${port}/${alias}`, { redirect: 'manual', headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/125.0' } })
        if (res.status === 302) answered++
        await res.arrayBuffer()
      }
    }),
  )
  return answered
}

describe('the click spool survives kill -9', () => {
  const cleanup: (() => Promise<void> | void)[] = []
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c()
  })

  it(`${N} visits under load, kill -9, restart on the same DATA_DIR and database: exactly ${N} clicks; again: ${2 * N}`, { timeout: 240_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kurz-spool-'))
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }))
    let env: Record<string, string> = { DATA_DIR: dir }
    let reopen = () => createDb({ kind: 'pglite', dir })
    const base = process.env.TEST_DATABASE_URL
    if (base) {
      const fresh = await emptyPostgres(base)
      cleanup.push(fresh.drop)
      env = { ...env, DATABASE_URL: fresh.url }
      reopen = () => createDb({ kind: 'pg', url: fresh.url })
    }
    const servers: ChildProcess[] = []
    cleanup.push(() => servers.forEach((c) => c.exitCode === null && c.signalCode === null && c.kill('SIGKILL')))
    const start = async () => {
      const s = await startServer(env)
      servers.push(s.child)
      return s
    }

    let { child, port } = await start()
    const created = await fetch(`http://127.0.0.1:${port}/api/url/add`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://example.com/spooled', custom: 'spooled1' }),
    })
    expect(created.status).toBe(200)
    const id = (await created.json()).id as number

    // the last batches are still in memory when the process dies: only the spool has them
    expect(await load(port, 'spooled1', N)).toBe(N)
    await kill9(child)
    expect(readdirSync(join(dir, 'spool')).some((f) => f.endsWith('.spool'))).toBe(true)
    ;({ child, port } = await start())
    expect(await load(port, 'spooled1', N)).toBe(N)
    await kill9(child)

    // a last start replays the second crash's spool; a clean stop then leaves nothing behind
    ;({ child, port } = await start())
    await new Promise<void>((resolve) => {
      child.on('exit', () => resolve())
      child.kill('SIGTERM')
    })
    expect(readdirSync(join(dir, 'spool')).filter((f) => f.endsWith('.spool'))).toEqual([])

    const handle = await reopen()
    try {
      const [{ n }] = await handle.db.select({ n: count() }).from(clicks).where(eq(clicks.linkId, id))
      const [row] = await handle.db.select({ clicks: links.clicks }).from(links).where(eq(links.id, id))
      expect({ rows: n, counter: row.clicks }).toEqual({ rows: 2 * N, counter: 2 * N })
    } finally {
      await handle.close()
    }
  })
})
