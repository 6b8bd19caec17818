/**
 * Whether an error is a full disk: Node's ENOSPC, or PGlite's file system error for it (an
 * Emscripten ErrnoError without a message, errno 51 in Emscripten's numbering), however wrapped.
 */
export function isDiskFull(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 4) return false
  const e = err as { code?: unknown; errno?: unknown; name?: unknown; message?: unknown; cause?: unknown }
  if (e.code === 'ENOSPC') return true
  if (e.name === 'ErrnoError' && e.errno === 51) return true
  if (typeof e.message === 'string' && /\bENOSPC\b|no space left on device|could not extend file/i.test(e.message)) return true
  return isDiskFull(e.cause, depth + 1)
}

/** The sentence a person gets instead of a stack trace. */
export const diskFullMessage = (dataDir: string) =>
  `Cannot start: the disk that holds DATA_DIR (${dataDir}) is full (no space left on device). Free some space, then start Kurz again.`
