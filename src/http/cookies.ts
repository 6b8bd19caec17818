import type { FastifyRequest } from 'fastify'

/**
 * One cookie of the request, read from its Cookie header only when a route asks for it: the
 * visit routes and the API read at most one cookie (a password unlock, a dashboard session), so
 * they carry no cookie plugin and no per-request parsing hook. Same reading as @fastify/cookie's
 * parser (the `cookie` package): `;`-separated pairs, spaces and tabs trimmed, the first pair of a
 * name wins, a value with `%` is URI-decoded when it decodes.
 */
export function readCookie(req: FastifyRequest, name: string): string | undefined {
  const header = req.headers.cookie
  return header ? cookieFrom(header, name) : undefined
}

export function cookieFrom(header: string, name: string): string | undefined {
  let start = 0
  while (start < header.length) {
    let end = header.indexOf(';', start)
    if (end === -1) end = header.length
    const eq = header.indexOf('=', start)
    if (eq !== -1 && eq < end && trimmed(header, start, eq) === name) return decoded(trimmed(header, eq + 1, end))
    start = end + 1
  }
  return undefined
}

function trimmed(s: string, from: number, to: number): string {
  while (from < to && (s.charCodeAt(from) === 0x20 || s.charCodeAt(from) === 0x09)) from++
  while (to > from && (s.charCodeAt(to - 1) === 0x20 || s.charCodeAt(to - 1) === 0x09)) to--
  return s.slice(from, to)
}

function decoded(v: string): string {
  if (!v.includes('%')) return v
  try {
    return decodeURIComponent(v)
  } catch {
    return v
  }
}
