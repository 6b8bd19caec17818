import { execFileSync } from 'node:child_process'
import { mkdirSync, readdirSync, rmdirSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'

const ROOT = resolve(import.meta.dirname, '../..')
const OUT = join(ROOT, 'dist', 'web', 'index.html')

function newest(dir: string): number {
  let t = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name)
    t = Math.max(t, entry.isDirectory() ? newest(p) : statSync(p).mtimeMs)
  }
  return t
}

const builtAt = () => {
  try {
    return statSync(OUT).mtimeMs
  } catch {
    return 0
  }
}

/**
 * The dashboard tests need the built web app: build it when dist/web is missing or older than
 * web/ and vite.config.ts. A lock directory keeps two test files from building at once.
 */
export async function ensureWebBuild(): Promise<void> {
  const sources = Math.max(newest(join(ROOT, 'web')), statSync(join(ROOT, 'vite.config.ts')).mtimeMs)
  if (builtAt() >= sources) return
  const lock = join(ROOT, 'dist', '.web-build-lock')
  mkdirSync(join(ROOT, 'dist'), { recursive: true })
  for (let waited = 0; ; waited += 250) {
    try {
      mkdirSync(lock)
      break
    } catch {
      if (waited > 120_000) rmdirSync(lock) // left behind by a killed run
      await new Promise((r) => setTimeout(r, 250))
      if (builtAt() >= sources) return
    }
  }
  try {
    if (builtAt() < sources) execFileSync(join(ROOT, 'node_modules', '.bin', 'vite'), ['build', '--logLevel', 'warn'], { cwd: ROOT, stdio: 'inherit' })
  } finally {
    rmdirSync(lock)
  }
}
