/**
 * npx tsx bench/heap-profile.ts [PGlite|Postgres|bare] – where a cached redirect's garbage comes
 * from: the server (the build, pinned as `npm run bench` pins it) under V8's sampling heap profiler
 * for HEAP_REDIRECTS (100,000) visits of one link after a warm-up, until their clicks are written;
 * prints bytes allocated per request by allocation site (with its two callers) and by file or
 * package. Objects that young-generation collections free are counted too: allocation is what sets
 * how often a scavenge runs, and what a buffered hit keeps alive is what each scavenge copies.
 * `bare` measures the bare Fastify route the same way; the difference is what Kurz adds. The main
 * thread only: on PGlite, the database's worker thread has a heap of its own.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { burst, fmt, frameSource, log, sleep } from './lib.js'
import { drained, pinLoadGenerator, start, startKurz, stop, type Server } from './servers.js'
import { CACHED_ALIAS, backendWithCachedLink } from './redirect.js'

const REDIRECTS = Number(process.env.HEAP_REDIRECTS ?? 100_000)
const TOP = Number(process.env.PROFILE_TOP ?? 30)
const WARM_UP = 20_000
const SAMPLER = ['--import', './bench/heap-sampler.mjs']

interface Node {
  callFrame: { functionName: string; url: string; lineNumber: number }
  selfSize: number
  children: Node[]
}

/** Bytes per request by allocation site (the function and its two callers) and by file or package. */
function summarise(file: string, requests: number) {
  const sites = new Map<string, number>()
  const groups = new Map<string, number>()
  let total = 0
  const walk = (n: Node, callers: string[]) => {
    const { name, group } = frameSource(n.callFrame)
    if (n.selfSize > 0) {
      total += n.selfSize
      const site = [name, ...callers.slice(0, 2)].join(' < ')
      sites.set(site, (sites.get(site) ?? 0) + n.selfSize)
      groups.set(group, (groups.get(group) ?? 0) + n.selfSize)
    }
    for (const c of n.children) walk(c, [name, ...callers])
  }
  walk((JSON.parse(readFileSync(file, 'utf8')) as { head: Node }).head, [])
  const top = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, TOP)
      .map(([k, v]) => `${fmt(v / requests).padStart(6)} B  ${k}`)
      .join('\n')
  console.log(`\nallocated: ${fmt(total / requests)} bytes per request (sampled)`)
  console.log(`\nby site:\n${top(sites)}\n\nby file or package:\n${top(groups)}`)
}

/** Warm-up, then the sampled visits, until their clicks are written (Kurz) or answered (bare). */
async function sample(s: Server, out: string, kurz: boolean) {
  await burst(s.url, WARM_UP, `/${CACHED_ALIAS}`)
  if (kurz) await drained(s)
  s.child.kill('SIGUSR2')
  await sleep(200)
  const r = await burst(s.url, REDIRECTS, `/${CACHED_ALIAS}`)
  if (kurz) await drained(s)
  log(`${fmt(r.rps)} redirects/s under the heap profiler`)
  s.child.kill('SIGUSR2')
  for (let i = 0; i < 600 && !existsSync(out); i++) await sleep(100)
  await sleep(500) // the write may still be under way
  await stop(s)
  summarise(out, REDIRECTS)
}

async function main() {
  const want = process.argv[2] ?? 'Postgres'
  const out = join(mkdtempSync(join(tmpdir(), 'kurz-heap-')), 'heap.json')
  const cleanup: (() => unknown)[] = []
  try {
    log(pinLoadGenerator())
    if (want === 'bare') {
      const s = await start('bare-heap', [...SAMPLER, '--import', 'tsx', 'bench/bare.ts'], { HEAP_PROFILE_OUT: out })
      return await sample(s, out, false)
    }
    const b = await backendWithCachedLink(want, cleanup)
    await sample(await startKurz(b, SAMPLER, { HEAP_PROFILE_OUT: out }), out, true)
  } finally {
    for (const f of cleanup.reverse()) await f()
  }
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
