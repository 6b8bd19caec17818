import { chmodSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { PGLITE_CONF } from './client.js'
import { PgliteRemote } from './pglite-remote.js'
import { ensureDataDir, lockDataDir } from '../lib/data-lock.js'

/**
 * Backups of the embedded database: PGlite's own dump of its data directory, a gzipped tar. The
 * data directory is DATA_DIR itself, so a generated secret.key travels inside the dump; it must,
 * since API keys are sealed with it.
 */
const holdsDatabase = (dir: string) => existsSync(join(dir, 'PG_VERSION'))

export async function backupDataDir(dataDir: string, file: string): Promise<{ file: string; bytes: number }> {
  if (!holdsDatabase(dataDir)) throw new Error(`${dataDir} holds no embedded database (no PG_VERSION): nothing to back up.`)
  const target = resolve(file)
  ensureDataDir(dataDir)
  const release = lockDataDir(dataDir)
  try {
    // the same worker-thread PGlite the server uses
    const client = await PgliteRemote.open({ dir: dataDir, conf: PGLITE_CONF })
    let dump: Uint8Array
    try {
      dump = await client.dump('gzip')
    } finally {
      await client.close()
    }
    const bytes = Buffer.from(dump.buffer, dump.byteOffset, dump.byteLength)
    // a half-written backup must never replace a good one under the same name; it holds the secret
    const partial = `${target}.partial`
    writeFileSync(partial, bytes, { mode: 0o600 })
    renameSync(partial, target)
    return { file: target, bytes: bytes.length }
  } finally {
    release()
  }
}

export async function restoreDataDir(dataDir: string, file: string): Promise<{ dataDir: string; restored: string }> {
  const source = resolve(file)
  if (!existsSync(source) || !statSync(source).isFile()) throw new Error(`No backup file at ${source}.`)
  ensureDataDir(dataDir)
  const release = lockDataDir(dataDir)
  const pidFile = join(dataDir, 'server.pid')
  const ours = readFileSync(pidFile)
  try {
    // never merged into or written over a database: the operator moves the old one aside first
    if (holdsDatabase(dataDir)) throw new Error(`${dataDir} already holds a database; move it aside (or set DATA_DIR to an empty directory) and restore again.`)
    const leftovers = readdirSync(dataDir).filter((f) => f !== 'server.pid')
    if (leftovers.length) throw new Error(`${dataDir} is not empty (${leftovers.slice(0, 3).join(', ')}); restore into an empty directory.`)
    try {
      const client = await PgliteRemote.open({ dir: dataDir, conf: PGLITE_CONF, load: readFileSync(source) })
      await client.query('select 1')
      await client.close()
    } catch (err) {
      // leave no half-restored database behind for the server to open
      for (const f of readdirSync(dataDir)) if (f !== 'server.pid') rmSync(join(dataDir, f), { recursive: true, force: true })
      throw new Error(`${source} is not a backup PGlite can load (${(err as Error).message}).`)
    }
    // the dump brought the backing-up process's pid file and world-readable modes
    writeFileSync(pidFile, ours)
    if (existsSync(join(dataDir, 'secret.key'))) chmodSync(join(dataDir, 'secret.key'), 0o600)
    return { dataDir, restored: source }
  } finally {
    release()
  }
}
