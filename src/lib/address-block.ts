import { v4FromGroups, v6Groups } from './ssrf.js'

/**
 * The address block a client is counted by across many keys: an IPv4 address, or the /64 of an
 * IPv6 address, which one subscriber gets whole (a home, a phone, a virtual server), so taking a
 * new address of it for each request gains nothing. An IPv4 address written as IPv6
 * (`::ffff:192.0.2.1`) is the IPv4 address.
 */
export function addressBlock(ip: string): string {
  if (!ip.includes(':')) return ip
  // the SSRF guard's parser (8 groups of 16 bits); an address with a zone id is counted as sent
  const g = ip.includes('%') ? null : v6Groups(ip)
  if (!g) return ip
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return v4FromGroups(g[6], g[7])
  return `${g.slice(0, 4).map((x) => x.toString(16)).join(':')}::/64`
}
