import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'

/**
 * README.md's "Use it" walkthrough, run as written: its ```sh blocks in order, in one bash with
 * `set -euo pipefail`, against a fresh server (PGlite in a new DATA_DIR, an admin from ADMIN_EMAIL
 * and ADMIN_API_KEY, default rate limits). Only the two placeholder lines are filled in.
 */
const ROOT = resolve(import.meta.dirname, '../..')
const KEY = 'Readme_walkthrough_key_0123456789'

export function walkthrough(readme: string): string[] {
  const start = readme.indexOf('\n## Use it\n')
  expect(start, 'README has a "## Use it" section').toBeGreaterThan(-1)
  const end = readme.indexOf('\n## ', start + 1)
  const section = readme.slice(start, end < 0 ? undefined : end)
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1])
}

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

function bash(script: string, env: Record<string, string | undefined>): Promise<{ code: number | null; out: string }> {
  return new Promise((done) => {
    const child = spawn('bash', ['-c', script], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (c) => (out += c))
    child.stderr.on('data', (c) => (out += c))
    child.on('exit', (code) => done({ code, out }))
  })
}

describe("README's walkthrough", () => {
  let server: ChildProcess
  let log = ''
  let dataDir: string
  let base: string
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'kurz-readme-'))
    const port = await freePort()
    base = `http://127.0.0.1:${port}`
    const env = { ...process.env }
    for (const name of ['DATABASE_URL', 'REDIS_URL', 'SECRET_KEY', 'PUBLIC_URL', 'TRUST_PROXY', 'RATE_LIMIT_MAX', 'V1_RATE_LIMIT_MAX']) delete env[name]
    server = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      cwd: ROOT,
      env: { ...env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, ADMIN_EMAIL: 'you@example.com', ADMIN_API_KEY: KEY, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    server.stdout!.on('data', (c) => (log += c))
    server.stderr!.on('data', (c) => (log += c))
    const deadline = Date.now() + 90_000
    while (Date.now() < deadline && server.exitCode === null) {
      if (await fetch(`${base}/readyz`).then((r) => r.ok, () => false)) return
      await new Promise((r) => setTimeout(r, 200))
    }
    throw new Error(`server did not come up:\n${log}`)
  }, 120_000)
  afterAll(async () => {
    if (server.exitCode === null) {
      const exited = new Promise((r) => server.once('exit', r))
      server.kill('SIGTERM')
      await exited
    }
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('runs top to bottom on a fresh install', async () => {
    const blocks = walkthrough(readFileSync(join(ROOT, 'README.md'), 'utf8'))
    expect(blocks.length).toBeGreaterThan(3)
    const script = blocks.join('\n')
    // the two lines a reader edits; everything else runs as printed
    expect(script).toContain('BASE=http://localhost:3000\n')
    expect(script).toContain('KEY=your-api-key\n')
    const filled = script.replace('BASE=http://localhost:3000\n', `BASE=${base}\n`).replace('KEY=your-api-key\n', `KEY=${KEY}\n`)
    const env = { PATH: `${dirname(process.execPath)}:${process.env.PATH ?? '/usr/bin:/bin'}`, HOME: process.env.HOME, LANG: 'C.UTF-8' }
    const { code, out } = await bash(`set -euo pipefail\n${filled}`, env)
    expect(code, `the walkthrough failed:\n${out}\n--- server log ---\n${log}`).toBe(0)
    // it did real work: links, the rotated key, jane's SSO URL, the v1 link and its deletion
    expect(out).toContain('"shorturl":"http://localhost:')
    expect(out).toMatch(/"url":"http:\/\/localhost:\d+\/sso\//)
    expect(out).toContain('"deleted":true')
    expect(out).not.toContain('"error":1')
  }, 120_000)
})
