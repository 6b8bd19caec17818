import { readFileSync } from 'node:fs'
import type { FastifyInstance } from 'fastify'

/**
 * A cap on open connections that keeps file descriptors for Kurz's own work. Every client socket
 * takes a descriptor, and so do the click spool's files, PGlite's files, the Postgres and Redis
 * connections and outgoing webhook and health-check requests. Without a cap, enough clients
 * holding connections open (slowly sent headers, thousands of idle keep-alives) use them all: the
 * spool cannot open its next file (EMFILE), so answered clicks sit in memory only, and the database
 * cannot open a file either. Past the cap Node closes each new connection as it arrives (the
 * server's 'drop' event); the connections already open, and Kurz's own files, go on working, and
 * idle keep-alive connections are closed so that the next new ones fit.
 */

/** Descriptors kept for Kurz itself: at most this many, and at most a quarter of the limit. */
const RESERVE = 1024

/** The process's soft limit on open files (`ulimit -n`), read from /proc on Linux; null where it cannot be read. */
export function openFileLimit(read: () => string = () => readFileSync('/proc/self/limits', 'utf8')): number | null {
  try {
    const soft = /^Max open files\s+(\d+|unlimited)/m.exec(read())?.[1]
    return soft && soft !== 'unlimited' ? Number(soft) : null
  } catch {
    return null
  }
}

/** MAX_CONNECTIONS when set, else the file limit less its reserve; null (no cap) when neither is known. */
export function connectionCap(configured: number | undefined, limit: number | null): number | null {
  if (configured !== undefined) return configured
  if (limit === null) return null
  return Math.max(1, limit - Math.min(RESERVE, Math.floor(limit / 4)))
}

/** What /metrics reports: the cap in force and the connections refused by it since start. */
export interface ConnectionCounts {
  cap: number | null
  dropped: number
}

/** How often, at most, a refused connection is logged: a flood would otherwise be a flood of lines. */
const LOG_EVERY_MS = 60_000
/** How often, at most, idle keep-alive connections are closed to make room (each pass walks every connection). */
const SHED_EVERY_MS = 1_000

/** Puts the cap on the app's server and counts what it refuses (app.connections). */
export function limitConnections(app: FastifyInstance, cap: number | null): void {
  const counts: ConnectionCounts = { cap, dropped: 0 }
  app.decorate('connections', counts)
  if (cap === null) return
  app.server.maxConnections = cap
  let loggedAt = 0
  let shedAt = 0
  let unlogged = 0
  app.server.on('drop', () => {
    counts.dropped++
    unlogged++
    const now = Date.now()
    // idle keep-alive connections give way first: their clients reconnect on their next request,
    // while a connection in the middle of a request (a slow client's among them) is left alone
    if (now - shedAt >= SHED_EVERY_MS) {
      shedAt = now
      app.server.closeIdleConnections()
    }
    if (now - loggedAt < LOG_EVERY_MS) return
    app.log.warn({ refused: unlogged, cap }, 'connections refused: the cap on open connections (MAX_CONNECTIONS) is reached')
    loggedAt = now
    unlogged = 0
  })
}

declare module 'fastify' {
  interface FastifyInstance {
    connections: ConnectionCounts
  }
}
