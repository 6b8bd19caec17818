import type { FastifyInstance } from 'fastify'
import type { Db, Tx } from '../../db/client.js'
import { TARGET_KINDS } from '../../db/schema/index.js'
import { comparableHost, isLoopback, visitedHosts } from '../../lib/url.js'
import { brandedHosts } from '../domains/hosts.js'
import { bad } from './checks.js'
import type { LinkField, LinkInput } from './model.js'

/** Every URL the input sets, with where it is in the input: what the self-loop and blocklist checks read. */
export function destinations(input: LinkInput): { field: LinkField; url: string }[] {
  const out: { field: LinkField; url: string }[] = []
  if (input.url) out.push({ field: { key: 'url' }, url: input.url })
  if (input.expirationUrl) out.push({ field: { key: 'expirationUrl' }, url: input.expirationUrl })
  if (input.deepLink?.apple) out.push({ field: { key: 'deepLink', path: ['apple'] }, url: input.deepLink.apple })
  if (input.deepLink?.google) out.push({ field: { key: 'deepLink', path: ['google'] }, url: input.deepLink.google })
  for (const kind of TARGET_KINDS) {
    for (const [i, t] of (input[kind] ?? []).entries()) out.push({ field: { key: kind, path: [i, 'url'] }, url: t.url })
  }
  const extra = input as { fallback?: string | null }
  if (typeof extra.fallback === 'string' && extra.fallback) out.push({ field: { key: 'fallback' as LinkField['key'] }, url: extra.fallback })
  if (input.metaImage) out.push({ field: { key: 'metaImage' }, url: input.metaImage })
  return out
}

/** `host` or `loopback:port`: every loopback name and address on one port is the same server. */
function hostKey(host: string, port: string): string {
  return isLoopback(host) ? `loopback:${port}` : comparableHost(host)
}

/** The keys of the hosts a visitor would reach from `url`, as the browser reads it (lib/url.ts). */
function keysOf(url: string): string[] {
  let port = ''
  try {
    const u = new URL(url)
    port = u.port || (u.protocol === 'https:' ? '443' : '80')
  } catch {
    /* app link: no port */
  }
  return visitedHosts(url).map((h) => hostKey(h, port))
}

/**
 * Which of `urls` would send a visitor back to a short link of this service (PUBLIC_URL's host,
 * any loopback form of it on its port, or any branded domain, whoever owns it); null when none.
 * `db` is the write's transaction when it holds one.
 */
export async function firstOwnUrl<T extends { url: string }>(app: FastifyInstance, db: Db | Tx, urls: T[]): Promise<T | null> {
  const withKeys = urls.map((u) => ({ u, keys: keysOf(u.url) })).filter((x) => x.keys.length)
  if (!withKeys.length) return null
  const own = keysOf(app.config.publicUrl)[0]
  const hit = withKeys.find((x) => x.keys.includes(own))
  if (hit) return hit.u
  const branded = await brandedHosts(app.db, db)
  return withKeys.find((x) => x.keys.some((k) => branded.has(k)))?.u ?? null
}

/**
 * A destination on this service's own hosts would send visitors round in circles: refused,
 * whatever the case, trailing dot, `www.`, IPv4-mapped or loopback spelling.
 */
export async function refuseSelfLoops(app: FastifyInstance, db: Db | Tx, input: LinkInput): Promise<void> {
  const own = await firstOwnUrl(app, db, destinations(input).filter((d) => d.field.key !== 'metaImage'))
  if (own) throw bad(own.field.key, 'points at a short link of this service; use the destination URL itself.', own.field.path)
}
