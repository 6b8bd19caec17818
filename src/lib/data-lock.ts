import { accessSync, constants, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * The embedded database (PGlite) must be opened by one process at a time: two writers corrupt it.
 * The server records its pid in DATA_DIR/server.pid; the CLI and a second server refuse to start
 * while that process lives. A pid file left by a crash names a dead process and is ignored.
 */
const pidFile = (dir: string) => join(dir, 'server.pid')

function holder(dir: string): number | null {
  const file = pidFile(dir)
  if (!existsSync(file)) return null
  const pid = Number(readFileSync(file, 'utf8').trim())
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return null
  try {
    process.kill(pid, 0)
    return pid
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM' ? pid : null
  }
}

export function assertDataDirFree(dir: string): void {
  const pid = holder(dir)
  if (pid) {
    throw new Error(
      `The embedded database in ${dir} is open in process ${pid} (a running Kurz server). Stop it first, or use the admin API.`,
    )
  }
}

/**
 * DATA_DIR exists (made when missing) and is a directory Kurz may write: else one sentence that
 * names the variable, instead of Node's "EEXIST: file already exists, mkdir …" from deep inside.
 */
const unusable = (dir: string, why: string) => new Error(`DATA_DIR (${dir}) ${why}. Set DATA_DIR to a directory Kurz may write.`)
const code = (err: unknown) => (err as NodeJS.ErrnoException).code ?? (err as Error).message

export function ensureDataDir(dir: string): void {
  const refuse = (why: string) => unusable(dir, why)
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw refuse('is a file, not a directory')
  try {
    mkdirSync(dir, { recursive: true })
    accessSync(dir, constants.W_OK)
  } catch (err) {
    throw refuse(`cannot be used: ${code(err)}`)
  }
}

/** Claims DATA_DIR for this process; returns the release function. */
export function lockDataDir(dir: string): () => void {
  assertDataDirFree(dir)
  mkdirSync(dir, { recursive: true })
  try {
    writeFileSync(pidFile(dir), `${process.pid}\n`)
  } catch (err) {
    // a directory that passes the access check but takes no files (root on /proc)
    throw unusable(dir, `cannot be used: ${code(err)} writing server.pid`)
  }
  return () => {
    try {
      if (readFileSync(pidFile(dir), 'utf8').trim() === String(process.pid)) rmSync(pidFile(dir))
    } catch {
      /* already gone */
    }
  }
}
