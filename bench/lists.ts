/**
 * A large account's link list: the bench admin owns the BENCH_LINKS seeded links, so a search and a
 * sort by clicks go through all of them. p95 with 8 in flight (as the statistics rows), rounds
 * interleaved. No target: DECISIONS §9 and the issue set none, and the rows are there to show a
 * search that reads every link again, or a sort that carries whole rows. Every seeded alias starts
 * with the same prefix, whose trigrams are in every row: this search reads more of its index than
 * a search for a word that few links hold.
 */
import { SIZES, fmt, log, median, type Row } from './lib.js'
import { p95 } from './links.js'
import { RANDOM_PREFIX } from './random.js'
import type { Backend } from './servers.js'

const SEARCH = `/api/urls?q=${RANDOM_PREFIX}4242`
const BY_CLICKS = '/api/v1/links?sort=max&per_page=20'

export async function listRows(list: Backend[]): Promise<Row[]> {
  const search = new Map(list.map((b) => [b, [] as number[]]))
  const sorted = new Map(list.map((b) => [b, [] as number[]]))
  for (const b of list) for (const path of [SEARCH, BY_CLICKS]) await p95(b.server!, path, 20) // warm-up
  for (let i = 0; i < SIZES.rounds; i++) {
    for (const b of i % 2 ? [...list].reverse() : list) {
      search.get(b)!.push(await p95(b.server!, SEARCH, SIZES.listRequests))
      sorted.get(b)!.push(await p95(b.server!, BY_CLICKS, SIZES.listRequests))
      log(`list round ${i + 1}, ${b.label}: search p95 ${search.get(b)![i].toFixed(1)} ms, by clicks p95 ${sorted.get(b)![i].toFixed(1)} ms`)
    }
  }
  return list.flatMap((b) => {
    const s = median(search.get(b)!)
    const c = median(sorted.get(b)!)
    return [
      { figure: `GET /api/urls?q= p95, ${fmt(SIZES.links)} links in the account, ${b.label}`, measured: `${s.toFixed(1)} ms`, target: '(none)', ok: null },
      { figure: `GET /api/v1/links?sort=max p95, ${fmt(SIZES.links)} links in the account, ${b.label}`, measured: `${c.toFixed(1)} ms`, target: '(none)', ok: null },
    ]
  })
}
