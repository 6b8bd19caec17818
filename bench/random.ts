/**
 * Random aliases over many links (BENCH_LINKS, 100,000) against the cached single link, on the same
 * server in the same round. Cold rounds visit aliases never visited before (slices of one shuffled
 * pass over every link, so each is a cache miss); the rest of that pass is the warm-up; warm rounds
 * then pick aliases at random. Every burst, the cached single link's included, starts once the
 * clicks before it are written.
 */
import { SIZES, burst, fmt, log, median, type Row } from './lib.js'
import { BackendSampler, coreShares, coreTimes, treeCpu } from './proc.js'
import { CACHED_ALIAS } from './redirect.js'
import { drained, type Backend } from './servers.js'

export const RANDOM_PREFIX = 'rnd-'

function shuffled(n: number): number[] {
  const a = Array.from({ length: n }, (_, i) => i)
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1))
    ;[a[i], a[j]] = [a[j], a[i]]
  }
  return a
}

/** Visits `ids` in order (each once) and answers the rate. */
async function pass(url: string, ids: number[]) {
  let next = 0
  return burst(url, ids.length, () => `/${RANDOM_PREFIX}${ids[next++ % ids.length]}`)
}

export async function randomAliasRows(list: Backend[]): Promise<Row[]> {
  const n = SIZES.links
  const coldTotal = SIZES.coldVisits * SIZES.rounds
  if (coldTotal > n) throw new Error(`BENCH_COLD_VISITS x BENCH_ROUNDS (${coldTotal}) must not exceed BENCH_LINKS (${n})`)
  const order = new Map(list.map((b) => [b, shuffled(n)]))
  const cold = new Map(list.map((b) => [b, [] as number[]]))
  const warm = new Map(list.map((b) => [b, [] as number[]]))
  // every burst starts with no click backlog on any server: the clicks before it (a cold click
  // writes about twenty rows) are written first, or their writes would share the core with it
  const settled = async () => {
    for (const x of list) await drained(x.server!)
  }
  const settledBurst = async (b: Backend, amount: number, path: string | (() => string)) => {
    await settled()
    return burst(b.server!.url, amount, path)
  }

  for (let i = 0; i < SIZES.rounds; i++) {
    for (const b of i % 2 ? [...list].reverse() : list) {
      const ids = order.get(b)!.slice(i * SIZES.coldVisits, (i + 1) * SIZES.coldVisits)
      await settled()
      const r = await pass(b.server!.url, ids)
      if (r.other) log(`${b.label}: ${r.other} cold answers that were not 302`)
      const ref = await settledBurst(b, SIZES.coldVisits * 4, `/${CACHED_ALIAS}`)
      cold.get(b)!.push(r.rps / ref.rps)
      log(`cold round ${i + 1}, ${b.label}: ${fmt(r.rps)}/s random vs ${fmt(ref.rps)}/s one link`)
    }
  }
  for (const b of list) {
    log(`${b.label}: warm-up pass over the other ${fmt(n - coldTotal)} links`)
    const t0 = Date.now()
    const r = await pass(b.server!.url, order.get(b)!.slice(coldTotal))
    log(`${b.label}: warm-up pass ${fmt(r.rps)}/s, ${((Date.now() - t0) / 1000).toFixed(0)} s`)
  }
  // where a warm burst's CPU went, its clicks' writes included: the row's explanation when missed
  const accounted = async (b: Backend, path: string | (() => string)) => {
    await settled()
    const sampler = b.dbName ? new BackendSampler(b.dbName) : null
    const cpu0 = treeCpu(b.server!.child.pid!)
    const cores0 = coreTimes()
    sampler?.begin()
    const r = await burst(b.server!.url, SIZES.warmVisits, path)
    const cores = coreShares(cores0, coreTimes())
    await drained(b.server!)
    const kurz = ((treeCpu(b.server!.child.pid!) - cpu0) / r.answered) * 1e6
    const db = sampler ? `, backends ${((sampler.end().total / r.answered) * 1e6).toFixed(1)} µs` : ''
    return { r, spent: `Kurz ${kurz.toFixed(1)} µs${db} a visit; ${cores}` }
  }
  for (let i = 0; i < SIZES.rounds; i++) {
    for (const b of i % 2 ? [...list].reverse() : list) {
      const { r, spent } = await accounted(b, () => `/${RANDOM_PREFIX}${Math.floor(Math.random() * n)}`)
      if (r.other) log(`${b.label}: ${r.other} warm answers that were not 302`)
      const ref = await accounted(b, `/${CACHED_ALIAS}`)
      warm.get(b)!.push(r.rps / ref.r.rps)
      log(`warm round ${i + 1}, ${b.label}: ${fmt(r.rps)}/s random vs ${fmt(ref.r.rps)}/s one link`)
      log(`  random: ${spent}`)
      log(`  one link: ${ref.spent}`)
    }
  }
  // the clicks of these rounds are written before the next row measures anything
  await settled()
  return list.flatMap((b) => {
    const w = median(warm.get(b)!)
    const c = median(cold.get(b)!)
    return [
      { figure: `random aliases over ${fmt(n)} links vs one cached link, after a warm-up pass, ${b.label}`, measured: w.toFixed(3), target: '>= 0.5', ok: w >= 0.5 },
      { figure: `random aliases over ${fmt(n)} links vs one cached link, cold cache, ${b.label}`, measured: c.toFixed(3), target: '>= 0.2', ok: c >= 0.2 },
    ]
  })
}
