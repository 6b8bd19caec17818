import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

/**
 * scripts/build-if-stale.mjs (npm start's prestart) in a small project of its own: its
 * `npm run build` counts how often it ran, so the test sees when a build happened.
 */
const SCRIPT = resolve(import.meta.dirname, '../../scripts/build-if-stale.mjs')

describe('npm start builds only when the build is stale', () => {
  let root: string
  const builds = () => readFileSync(join(root, 'builds.txt'), 'utf8').length
  const run = () => {
    const res = spawnSync(process.execPath, [join(root, 'scripts/build-if-stale.mjs')], { cwd: root, encoding: 'utf8', env: { ...process.env, npm_execpath: '' } })
    expect(res.status, res.stdout + res.stderr).toBe(0)
    return res.stdout
  }
  const touch = (file: string, secondsAhead: number) => {
    const t = new Date(Date.now() + secondsAhead * 1000)
    utimesSync(join(root, file), t, t)
  }

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'kurz-stale-'))
    mkdirSync(join(root, 'scripts'))
    mkdirSync(join(root, 'src/lib'), { recursive: true })
    copyFileSync(SCRIPT, join(root, 'scripts/build-if-stale.mjs'))
    writeFileSync(join(root, 'src/lib/a.ts'), 'export const a = 1\n')
    writeFileSync(join(root, 'builds.txt'), '')
    const build = "const fs = require('fs'); fs.mkdirSync('dist/src', { recursive: true }); fs.writeFileSync('dist/src/server.js', ''); fs.appendFileSync('builds.txt', 'x')"
    writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'stale-test', private: true, scripts: { build: `node -e "${build}"` } }))
  })
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  it('builds when there is no build, skips while it is current, rebuilds after a source changes', () => {
    for (const f of ['src/lib/a.ts', 'package.json']) touch(f, -7200)
    expect(run()).toMatch(/no build yet/)
    expect(builds()).toBe(1)
    expect(run()).toMatch(/build is current/)
    expect(builds()).toBe(1)
    // an edit after the last build: the build an hour old, the source a minute
    touch('dist/src/server.js', -3600)
    touch('src/lib/a.ts', -60)
    expect(run()).toMatch(/sources changed/)
    expect(builds()).toBe(2)
    expect(run()).toMatch(/build is current/)
    touch('dist/src/server.js', -3600)
    touch('package.json', -60)
    expect(run()).toMatch(/sources changed/)
    expect(builds()).toBe(3)
  })

  it('with a web/ folder, a missing dashboard build counts as stale too', () => {
    mkdirSync(join(root, 'web'), { recursive: true })
    writeFileSync(join(root, 'web/index.html'), '<!doctype html>')
    touch('web/index.html', -3600)
    expect(run()).toMatch(/no build yet/) // dist/web/index.html was never written
  })
})
