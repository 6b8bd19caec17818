#!/usr/bin/env node
// `npm run cli`: the TypeScript source through tsx in a checkout; the compiled CLI where there is no
// source and no tsx (the Docker image installs production dependencies and dist/ only).
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const source = join(root, 'src', 'cli.ts')
if (existsSync(source)) {
  const run = spawnSync(process.execPath, ['--import', 'tsx', source, ...process.argv.slice(2)], { stdio: 'inherit' })
  process.exit(run.status ?? 1)
}
// imported, the compiled CLI does not run itself: its main() takes the arguments
const { main } = await import(pathToFileURL(join(root, 'dist', 'src', 'cli.js')).href)
process.exitCode = await main(process.argv.slice(2))
