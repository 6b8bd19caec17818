import type { FastifyInstance } from 'fastify'
import type { Db, Tx } from '../../db/client.js'
import { TARGET_KINDS } from '../../db/schema/index.js'
import { comparableHost } from '../../lib/url.js'
import { brandedHosts } from '../domains/hosts.js'
import { bad } from './checks.js'
import type { LinkField, LinkInput } from './model.js'

/** Every destination the input sets, with where it is in the input. */
function destinations(input: LinkInput): { field: LinkField; url: string }[] {
  const out: { field: LinkField; url: string }[] = []
  if (input.url) out.push({ field: { key: 'url' }, url: input.url })
  if (input.expirationUrl) out.push({ field: { key: 'expirationUrl' }, url: input.expirationUrl })
  if (input.deepLink?.apple) out.push({ field: { key: 'deepLink', path: ['apple'] }, url: input.deepLink.apple })
  if (input.deepLink?.google) out.push({ field: { key: 'deepLink', path: ['google'] }, url: input.deepLink.google })
  for (const kind of TARGET_KINDS) {
    for (const [i, t] of (input[kind] ?? []).entries()) out.push({ field: { key: kind, path: [i, 'url'] }, url: t.url })
  }
  return out
}

/**
 * The host an http(s) destination would send a visitor to, as hosts are compared here (case,
 * trailing dot and `www.` dropped). The door already checked the URL; app links (`tg:`) have none.
 */
const hostOf = (url: string) => (/^https?:\/\//i.test(url) ? comparableHost(new URL(url).hostname) : null)

/**
 * A destination on this service's own hosts (PUBLIC_URL or any branded domain, whoever owns it)
 * would send visitors round in circles: refused, whatever the case, trailing dot or `www.`.
 * `db` is the write's transaction when it holds one.
 */
export async function refuseSelfLoops(app: FastifyInstance, db: Db | Tx, input: LinkInput): Promise<void> {
  const byHost = new Map<string, LinkField>()
  for (const d of destinations(input)) {
    const host = hostOf(d.url)
    if (host !== null && !byHost.has(host)) byHost.set(host, d.field)
  }
  if (!byHost.size) return
  const loop = (field: LinkField) => bad(field.key, 'points at a short link of this service; use the destination URL itself.', field.path)
  const own = byHost.get(comparableHost(new URL(app.config.publicUrl).hostname))
  if (own) throw loop(own)
  const branded = await brandedHosts(app.db, db)
  for (const [host, field] of byHost) if (branded.has(host)) throw loop(field)
}
