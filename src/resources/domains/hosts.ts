import type { Db, Tx } from '../../db/client.js'
import { domains } from '../../db/schema/index.js'
import { comparableHost } from '../../lib/url.js'

/**
 * Every branded host of the service, whoever owns it, as the link self-loop check compares hosts
 * (no port, case, trailing dot or `www.`). Link creates read it on every write, so it is kept per
 * database for a few seconds; this instance drops it when a domain is added or deleted, and other
 * instances see the change when their copy expires.
 */
const TTL = 5_000

interface HostSet {
  at: number
  set: ReadonlySet<string> | null
  /** bumped by forgetBrandedHosts: a load that raced it is used once but not kept */
  generation: number
}

const byDb = new WeakMap<Db, HostSet>()

const comparable = (host: string) => comparableHost(host.toLowerCase().split(':')[0])

/** `via` is the caller's transaction, when it holds one: on PGlite's one connection a query outside it would wait for it. */
export async function brandedHosts(db: Db, via: Db | Tx = db): Promise<ReadonlySet<string>> {
  let state = byDb.get(db)
  if (!state) byDb.set(db, (state = { at: 0, set: null, generation: 0 }))
  if (state.set && Date.now() - state.at < TTL) return state.set
  const generation = state.generation
  const set = new Set((await via.select({ host: domains.host }).from(domains)).map((d) => comparable(d.host)))
  if (generation === state.generation) Object.assign(state, { at: Date.now(), set })
  return set
}

/** After a domain was added or deleted on this instance. */
export function forgetBrandedHosts(db: Db): void {
  const state = byDb.get(db)
  if (state) Object.assign(state, { set: null, generation: state.generation + 1 })
}
