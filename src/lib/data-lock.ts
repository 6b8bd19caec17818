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

const unusable = (dir: string, why: string) => new Error(`DATA_DIR (${dir}) ${why}. Set DATA_DIR to a directory Kurz may write.`)
const code = (err: unknown) => (err as NodeJS.ErrnoException).code ?? (err as Error).message

/**
 * DATA_DIR exists (made when missing) and is a directory Kurz may write: else one sentence that
 * names the variable, instead of Node's "EEXIST: file already exists, mkdir …" from deep inside.
 * It holds the database and its WAL (emails, password hashes) and secret.key, so it is private to
 * the user Kurz runs as, as PostgreSQL insists for its own: from here on this process makes
 * directories 0700 and files 0600 (umask 077; PGlite's files came out 0666). A directory that
 * already lets others in is left as the operator set it; the answer is a warning that says so.
 */
export function ensureDataDir(dir: string): string | undefined {
  process.umask(0o077)
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw unusable(dir, 'is a file, not a directory')
  try {
    mkdirSync(dir, { recursive: true })
    accessSync(dir, constants.W_OK)
  } catch (err) {
    throw unusable(dir, `cannot be used: ${code(err)}`)
  }
  const mode = statSync(dir).mode & 0o777
  if (mode & 0o077) return `DATA_DIR (${dir}) is open to other users of this machine (mode ${mode.toString(8)}) and holds the database and secret.key: chmod 700 ${dir}`
  return undefined
}

/** Claims DATA_DIR, already made ready by ensureDataDir, for this process; returns the release function. */
export function lockDataDir(dir: string): () => void {
  assertDataDirFree(dir)
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
