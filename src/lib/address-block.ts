/**
 * The address block a client is counted by across many keys: an IPv4 address, or the /64 of an
 * IPv6 address, which one subscriber gets whole (a home, a phone, a virtual server), so taking a
 * new address of it for each request gains nothing. An IPv4 address written as IPv6
 * (`::ffff:192.0.2.1`) is the IPv4 address.
 */
export function addressBlock(ip: string): string {
  if (!ip.includes(':')) return ip
  let host: string
  try {
    // the URL parser's canonical form: lower case, one `::` at most, a dotted tail as two groups
    host = new URL(`http://[${ip}]/`).hostname.slice(1, -1)
  } catch {
    return ip // not an address the parser takes (a zone id): counted as sent
  }
  const [head, tail] = host.split('::')
  const left = head ? head.split(':') : []
  const right = tail ? tail.split(':') : []
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
  if (groups.slice(0, 6).every((g, i) => (i < 5 ? g === '0' : g === 'ffff'))) {
    const [hi, lo] = groups.slice(6).map((g) => parseInt(g, 16))
    return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.')
  }
  return `${groups.slice(0, 4).join(':')}::/64`
}
