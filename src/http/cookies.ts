import type { FastifyRequest } from 'fastify'
import { parse } from 'cookie'

/**
 * One cookie of the request, read from its Cookie header only when a route asks for it: the
 * visit routes and the API read at most one cookie (a password unlock, a dashboard session), so
 * they carry no cookie plugin and no per-request parsing hook. The parsing is the `cookie`
 * package's, as @fastify/cookie's (whose own `parse` works only once the plugin is registered).
 */
export function readCookie(req: FastifyRequest, name: string): string | undefined {
  const header = req.headers.cookie
  return header ? cookieFrom(header, name) : undefined
}

export function cookieFrom(header: string, name: string): string | undefined {
  return parse(header)[name]
}
