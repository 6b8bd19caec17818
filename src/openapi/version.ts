import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'

/** Kurz's version from its package.json, found upward from here (src/ when run with tsx, dist/src/ when built). */
export function packageVersion(): string {
  let dir = import.meta.dirname
  for (let i = 0; i < 5; i++, dir = dirname(dir)) {
    const file = join(dir, 'package.json')
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string }
      if (pkg.name === 'kurz' && pkg.version) return pkg.version
    }
  }
  return '0.0.0'
}
