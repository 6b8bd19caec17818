import { randomBytes } from 'node:crypto'

/*
 * Client addresses for throttle tests. Throttles count an IPv6 client by its /64 (lib/address-block),
 * so each address here is in a /64 of its own. Redis keeps counts between runs for up to an hour
 * while ids restart with each test database: the /64s start at a random point (32 bits under the
 * documentation prefix 2001:db8::/32) so one run does not inherit another's counts.
 */
let next = randomBytes(4).readUInt32BE(0)

/** An IPv6 address in a /64 no other call of this run has used. */
export function freshAddress(): string {
  const n = next++ >>> 0
  return `2001:db8:${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}::1`
}

/** Another address in the same /64 as `address` (as one subscriber would take). */
export function sameBlock(address: string, host: number): string {
  return address.replace(/::1$/, `::${host.toString(16)}`)
}
