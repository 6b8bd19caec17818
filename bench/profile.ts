/**
 * npx tsx bench/profile.ts [PGlite|Postgres] – where a cached redirect's CPU goes: Kurz (the build,
 * pinned as `npm run bench` pins it) under V8's sampling profiler for PROFILE_REDIRECTS (200,000)
 * visits of one link, until their clicks are written; prints, for each thread (PGlite's worker
 * too), self time by function and by file as shares of its busy time and as µs per request (the
 * warm-up's requests and the start's module loading included). The figure the bench's budget rows
 * point at when missed.
 * PROFILE_MISSES=1 profiles cache misses instead: PROFILE_REDIRECTS links seeded, each visited once.
 * PROFILE_SPREAD=1 profiles cached visits spread over many links (the bench's warm random row):
 * 20,000 links seeded and each visited once as the warm-up, then PROFILE_REDIRECTS visits at random.
 * PROFILE_CREATES=1 profiles link creates (POST /api/url/add, 10 clients) instead of visits.
 * `npx tsx bench/profile.ts bare` profiles the bare Fastify yardstick under the same load: its µs per
 * request beside Kurz's, line by line, is what Kurz adds to any Fastify 302.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { burst, cannon, fmt, frameSource, log } from './lib.js'
import { createOptions } from './links.js'
import { seedLinks } from './seed.js'
import { drained, pinLoadGenerator, start, startKurz, stop, type Server } from './servers.js'
import { CACHED_ALIAS, backendWithCachedLink } from './redirect.js'

const REDIRECTS = Number(process.env.PROFILE_REDIRECTS ?? 200_000)
const TOP = Number(process.env.PROFILE_TOP ?? 30)
const MISSES = process.env.PROFILE_MISSES === '1'
const CREATES = process.env.PROFILE_CREATES === '1'
const SPREAD = process.env.PROFILE_SPREAD === '1'
/** requests before the measured ones, inside the profile too: the µs per request count them */
const WARM_UP = 20_000
const CREATE_WARM_UP = 500

interface Node {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
}

interface Profile {
  nodes: Node[]
  samples: number[]
  /** µs since the previous sample, one per sample */
  timeDeltas: number[]
}

/**
 * Self time by function and by file or package, for every thread the process ran (the main one,
 * and PGlite's worker): as shares of the thread's busy (non-idle) time and as µs per request, so
 * two runs, or Kurz and the bare yardstick, compare line by line. On a pinned core the threads take
 * turns: time a thread spent waiting for the core lands on whatever it was running.
 */
function summarise(dir: string, requests: number) {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).sort()
  if (files.length === 0) throw new Error('no profile written')
  for (const [thread, file] of files.entries()) {
    const prof = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile
    const byId = new Map(prof.nodes.map((n) => [n.id, n]))
    const fn = new Map<string, number>()
    const groups = new Map<string, number>()
    let busy = 0
    for (let i = 0; i < prof.samples.length; i++) {
      const f = byId.get(prof.samples[i])!.callFrame
      if (f.functionName === '(idle)' || f.functionName === '(program)') continue
      const us = prof.timeDeltas[i] ?? 0
      busy += us
      const { name, group } = frameSource(f)
      fn.set(name, (fn.get(name) ?? 0) + us)
      groups.set(group, (groups.get(group) ?? 0) + us)
    }
    const top = (m: Map<string, number>) =>
      [...m]
        .sort((a, b) => b[1] - a[1])
        .slice(0, TOP)
        .map(([k, v]) => `${((v / busy) * 100).toFixed(1).padStart(5)}% ${(v / requests).toFixed(2).padStart(7)} µs  ${k}`)
        .join('\n')
    const title = thread === 0 ? 'main thread' : `thread ${thread} (a worker: PGlite's, on PGlite)`
    console.log(`\n${title}: busy ${fmt(busy / 1000)} ms, ${(busy / requests).toFixed(2)} µs per request`)
    console.log(`\nself time by function (share of busy, µs per request):\n${top(fn)}\n\nself time by file or package:\n${top(groups)}`)
  }
}

/** The profiled load: visits of the cached link, each seeded miss once, or (spread) the seeded links at random after one pass over them; until their clicks are written. */
async function profileVisits(s: Server) {
  let next = 0
  const path = MISSES || SPREAD ? () => `/miss-${next++}` : `/${CACHED_ALIAS}`
  await burst(s.url, WARM_UP, path)
  await drained(s)
  const r = await burst(s.url, REDIRECTS, SPREAD ? () => `/miss-${Math.floor(Math.random() * WARM_UP)}` : path)
  await drained(s)
  log(`${fmt(r.rps)} redirects/s under the profiler`)
}

/** The profiled load of PROFILE_CREATES=1: link creates, 10 clients. */
async function profileCreates(s: Server) {
  await cannon({ ...createOptions(s), connections: 10, amount: CREATE_WARM_UP })
  const t0 = Date.now()
  const r = await cannon({ ...createOptions(s), connections: 10, amount: REDIRECTS })
  log(`${fmt((r['2xx'] / (Date.now() - t0)) * 1000)} creates/s under the profiler`)
}

/** The yardstick under the profiler: what every Fastify 302 costs, beside Kurz's shares. */
async function profileBare() {
  const dir = mkdtempSync(join(tmpdir(), 'kurz-prof-'))
  const s = await start('bare-profiled', ['--cpu-prof', '--cpu-prof-dir', dir, '--import', 'tsx', 'bench/bare.ts'])
  await burst(s.url, WARM_UP, `/${CACHED_ALIAS}`)
  const r = await burst(s.url, REDIRECTS, `/${CACHED_ALIAS}`)
  log(`${fmt(r.rps)} redirects/s under the profiler`)
  await stop(s)
  summarise(dir, WARM_UP + REDIRECTS)
}

async function main() {
  const want = process.argv[2] ?? 'Postgres'
  const cleanup: (() => unknown)[] = []
  try {
    log(pinLoadGenerator())
    if (want === 'bare') return await profileBare()
    const b = await backendWithCachedLink(want, cleanup)
    if (MISSES || SPREAD) await seedLinks(b, 'miss-', SPREAD ? WARM_UP : WARM_UP + REDIRECTS)
    const dir = mkdtempSync(join(tmpdir(), 'kurz-prof-'))
    const s = await startKurz(b, ['--cpu-prof', '--cpu-prof-dir', dir])
    if (CREATES) await profileCreates(s)
    else await profileVisits(s)
    await stop(s)
    summarise(dir, (CREATES ? CREATE_WARM_UP : WARM_UP) + REDIRECTS)
  } finally {
    for (const f of cleanup.reverse()) await f()
  }
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
