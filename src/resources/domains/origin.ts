import { isIP } from 'node:net'
import { comparableHost } from '../../lib/url.js'

export type OriginCheck = { ok: true; origin: string; host: string; hostname: string } | { ok: false; message: string }

// A DNS name of at least two labels; the last (the TLD, possibly punycode) starts with a letter.
const HOSTNAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/

/**
 * A branded domain as sent: `http(s)://host[:port]` with at most a trailing slash (DECISIONS §7).
 * Returns the origin lower-cased (IDN hosts in punycode, default ports dropped) and the host[:port]
 * the Host header is matched against. IP addresses, credentials, paths, queries and fragments are
 * refused: a branded domain is a name visitors type.
 */
export function checkOrigin(input: string, publicHost: string): OriginCheck {
  const value = input.trim()
  if (value.length > 300) return { ok: false, message: 'domain must be at most 300 characters.' }
  // eslint-disable-next-line no-control-regex
  if (/[\s\u0000-\u001f\u007f]/.test(value)) return { ok: false, message: 'domain must not contain spaces or control characters.' }
  const m = /^(https?):\/\/([^/?#\\]+)\/?$/i.exec(value)
  if (!m) {
    return /^https?:\/\//i.test(value)
      ? { ok: false, message: 'domain must be an origin only, like https://go.example.com, with no path, query or fragment.' }
      : { ok: false, message: 'domain must start with http:// or https://, like https://go.example.com.' }
  }
  if (m[2].includes('@')) return { ok: false, message: 'domain must not contain a user name or password.' }
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return { ok: false, message: 'domain is not a valid URL.' }
  }
  const hostname = url.hostname.toLowerCase()
  if (hostname.startsWith('[') || isIP(hostname)) return { ok: false, message: 'domain must be a domain name, not an IP address.' }
  if (hostname.endsWith('.')) return { ok: false, message: `domain must not end with a dot: write ${hostname.replace(/\.+$/, '')}, without the dot after it.` }
  const long = hostname.split('.').find((label) => label.length > 63)
  if (long) return { ok: false, message: `domain has a part longer than 63 characters (${long.slice(0, 20)}…): each part between dots may have at most 63.` }
  if (!HOSTNAME.test(hostname)) return { ok: false, message: 'domain must be a full domain name such as go.example.com.' }
  // the URL parser takes :0, which no browser can open
  if (url.port === '0') return { ok: false, message: 'domain must not name port 0: leave the port out, or name one from 1 to 65535.' }
  const host = url.host.toLowerCase()
  if (comparableHost(hostname) === comparableHost(publicHost.replace(/:\d+$/, ''))) {
    return { ok: false, message: 'domain is the default domain of this service; add a domain of your own.' }
  }
  return { ok: true, origin: `${url.protocol}//${host}`, host, hostname }
}
