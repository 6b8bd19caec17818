import type { IncomingMessage } from 'node:http'
import proxyAddr from '@fastify/proxy-addr'

/** Whether the hop `hop` away, at `address`, is a proxy of ours (proxy-addr's trust function). */
export type TrustProxy = (address: string, hop: number) => boolean

/**
 * TRUST_PROXY as one function: Fastify gets it as `trustProxy`, and the cached visit path
 * (redirect/fast-path.ts) reads the client's address and host with it, so both always agree. Null
 * when no proxy is trusted. A hop count trusts that many proxies nearest to us.
 */
export function trustProxyOf(setting: boolean | number | string): TrustProxy | null {
  if (setting === false) return null
  if (setting === true) return () => true
  if (typeof setting === 'number') return (_address, hop) => hop < setting
  return proxyAddr.compile(setting.split(',').map((s) => s.trim()))
}

/** The client's address as Fastify's `req.ip` reads it: the nearest hop not trusted. */
export function clientAddress(req: IncomingMessage, trust: TrustProxy | null): string | undefined {
  if (trust === null) return req.socket.remoteAddress
  const hops = proxyAddr.all(req, trust)
  return hops[hops.length - 1]
}

/** The Host as Fastify's `req.host` reads it: a trusted proxy's last X-Forwarded-Host, else Host. */
export function clientHost(req: IncomingMessage, trust: TrustProxy | null): string {
  // Node joins a repeated header into one string; the type allows an array
  const sent = req.headers['x-forwarded-host']
  const forwarded = Array.isArray(sent) ? sent.join(',') : sent
  if (forwarded && trust !== null && trust(req.socket.remoteAddress ?? '', 0)) {
    const comma = forwarded.lastIndexOf(',')
    return (comma === -1 ? forwarded : forwarded.slice(comma + 1)).trim()
  }
  return req.headers.host ?? ''
}
