/**
 * npx tsx bench/visit-path.ts – a quick look at the visit path alone (issue 14): one cached
 * redirect, and random aliases over VISIT_LINKS links (3,000) where every first visit is a cache
 * miss, on PGlite and Postgres, medians of BENCH_ROUNDS (3). Uses the built app (dist/), pinned as
 * `npm run bench` pins it. Prints one line per figure; no targets, `npm run bench` owns those.
 */
import { SIZES, burst, fmt, log, median } from './lib.js'
import { seedLinks } from './seed.js'
import { backends, build, pinLoadGenerator, startKurz, stopKurz, type Backend } from './servers.js'
import { createCachedLink, CACHED_ALIAS } from './redirect.js'

const LINKS = Number(process.env.VISIT_LINKS ?? 3_000)
const CACHED = Number(process.env.VISIT_REDIRECTS ?? 40_000)
const PREFIX = 'vp-'

function shuffled(n: number): number[] {
  const a = Array.from({ length: n }, (_, i) => i)
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1))
    ;[a[i], a[j]] = [a[j], a[i]]
  }
  return a
}

async function prepare(b: Backend) {
  await startKurz(b)
  await createCachedLink(b)
  await stopKurz(b)
  await seedLinks(b, PREFIX, LINKS * SIZES.rounds)
  await startKurz(b)
  await burst(b.server!.url, 5_000, `/${CACHED_ALIAS}`)
}

async function main() {
  const cleanup: (() => unknown)[] = []
  try {
    log(pinLoadGenerator())
    await build()
    const list = await backends(cleanup)
    for (const b of list) await prepare(b)
    const cached = new Map(list.map((b) => [b, [] as number[]]))
    const misses = new Map(list.map((b) => [b, [] as number[]]))
    const order = new Map(list.map((b) => [b, shuffled(LINKS * SIZES.rounds)]))
    for (let i = 0; i < SIZES.rounds; i++) {
      for (const b of i % 2 ? [...list].reverse() : list) {
        const c = await burst(b.server!.url, CACHED, `/${CACHED_ALIAS}`)
        cached.get(b)!.push(c.rps)
        // each round visits links never visited before: every request is a cache miss
        const ids = order.get(b)!.slice(i * LINKS, (i + 1) * LINKS)
        let next = 0
        const m = await burst(b.server!.url, ids.length, () => `/${PREFIX}${ids[next++ % ids.length]}`)
        if (m.other || c.other) log(`${b.label}: ${m.other + c.other} answers that were not 302`)
        misses.get(b)!.push(m.rps)
        log(`round ${i + 1} ${b.label}: cached ${fmt(c.rps)}/s, misses ${fmt(m.rps)}/s`)
      }
    }
    for (const b of list) {
      console.log(`${b.label}: cached redirect ${fmt(median(cached.get(b)!))}/s, cache misses ${fmt(median(misses.get(b)!))}/s (medians of ${SIZES.rounds})`)
    }
    for (const b of list) await stopKurz(b)
  } finally {
    for (const f of cleanup.reverse()) await f()
  }
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
