#!/usr/bin/env node
// `npm start` runs this first (prestart): it runs `npm run build` only when a source is newer than
// the build, so a start after the first one takes seconds instead of a full compile.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const at = (...p) => join(root, ...p)
const hasWeb = existsSync(at('web'))

const inputs = ['src', ...(hasWeb ? ['web'] : []), 'tsconfig.json', 'tsconfig.build.json', 'vite.config.ts', 'package.json', 'package-lock.json']
// what `npm run build` writes last in each part; missing means never built
const outputs = ['dist/src/server.js', ...(hasWeb ? ['dist/web/index.html'] : [])]

function newest(path) {
  if (!existsSync(path)) return 0
  const s = statSync(path)
  if (!s.isDirectory()) return s.mtimeMs
  let max = 0
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules' || entry.startsWith('.')) continue
    max = Math.max(max, newest(join(path, entry)))
  }
  return max
}

const source = Math.max(...inputs.map((p) => newest(at(p))))
const built = Math.min(...outputs.map((p) => (existsSync(at(p)) ? statSync(at(p)).mtimeMs : 0)))

if (built > 0 && built >= source) {
  console.log('build is current (dist/ is newer than every source); skipping npm run build')
  process.exit(0)
}
console.log(built === 0 ? 'no build yet: npm run build' : 'sources changed since the last build: npm run build')
const npm = process.env.npm_execpath
const run = npm ? spawnSync(process.execPath, [npm, 'run', 'build'], { cwd: root, stdio: 'inherit' }) : spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' })
process.exit(run.status ?? 1)
