/**
 * npx tsx bench/profile.ts [PGlite|Postgres] – where a cached redirect's CPU goes: Kurz (the build,
 * pinned as `npm run bench` pins it) under V8's sampling profiler for PROFILE_REDIRECTS (200,000)
 * visits of one link, until their clicks are written; prints self time by function and by file,
 * as shares of the busy (non-idle) samples. The figure the bench's budget rows point at when missed.
 * PROFILE_MISSES=1 profiles cache misses instead: PROFILE_REDIRECTS links seeded, each visited once.
 * PROFILE_CREATES=1 profiles link creates (POST /api/url/add, 10 clients) instead of visits.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { burst, cannon, fmt, log } from './lib.js'
import { createOptions } from './links.js'
import { seedLinks } from './seed.js'
import { backends, build, drained, kurzEnv, pinLoadGenerator, start, startKurz, stop, stopKurz, type Server } from './servers.js'
import { CACHED_ALIAS, createCachedLink } from './redirect.js'

const REDIRECTS = Number(process.env.PROFILE_REDIRECTS ?? 200_000)
const TOP = Number(process.env.PROFILE_TOP ?? 30)
const MISSES = process.env.PROFILE_MISSES === '1'
const CREATES = process.env.PROFILE_CREATES === '1'

interface Node {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  hitCount?: number
}

function summarise(file: string) {
  const prof = JSON.parse(readFileSync(file, 'utf8')) as { nodes: Node[]; samples: number[] }
  const byId = new Map(prof.nodes.map((n) => [n.id, n]))
  const hits = new Map<number, number>()
  for (const s of prof.samples) hits.set(s, (hits.get(s) ?? 0) + 1)
  const fn = new Map<string, number>()
  const files = new Map<string, number>()
  let busy = 0
  for (const [id, n] of hits) {
    const f = byId.get(id)!.callFrame
    if (f.functionName === '(idle)' || f.functionName === '(program)') continue
    busy += n
    const where = f.url.replace(/^file:\/\//, '').replace(process.cwd() + '/', '') || '(native)'
    const name = `${f.functionName || '(anonymous)'} ${where}:${f.lineNumber + 1}`
    fn.set(name, (fn.get(name) ?? 0) + n)
    const group = where.includes('node_modules/') ? where.replace(/.*node_modules\/((?:@[^/]+\/)?[^/]+).*/, 'npm:$1') : where
    files.set(group, (files.get(group) ?? 0) + n)
  }
  const top = (m: Map<string, number>) =>
    [...m].sort((a, b) => b[1] - a[1]).slice(0, TOP).map(([k, v]) => `${((v / busy) * 100).toFixed(1).padStart(5)}%  ${k}`).join('\n')
  console.log(`busy samples: ${fmt(busy)} of ${fmt(prof.samples.length)}\n\nself time by function:\n${top(fn)}\n\nself time by file or package:\n${top(files)}`)
}

/** The profiled load: visits of the cached link, or each seeded miss once, until their clicks are written. */
async function profileVisits(s: Server) {
  let next = 0
  const path = MISSES ? () => `/miss-${next++}` : `/${CACHED_ALIAS}`
  await burst(s.url, 20_000, path)
  await drained(s)
  const r = await burst(s.url, REDIRECTS, path)
  await drained(s)
  log(`${fmt(r.rps)} redirects/s under the profiler`)
}

/** The profiled load of PROFILE_CREATES=1: link creates, 10 clients. */
async function profileCreates(s: Server) {
  await cannon({ ...createOptions(s), connections: 10, amount: 500 })
  const t0 = Date.now()
  const r = await cannon({ ...createOptions(s), connections: 10, amount: REDIRECTS })
  log(`${fmt((r['2xx'] / (Date.now() - t0)) * 1000)} creates/s under the profiler`)
}

async function main() {
  const want = process.argv[2] ?? 'Postgres'
  const cleanup: (() => unknown)[] = []
  try {
    log(pinLoadGenerator())
    await build()
    const b = (await backends(cleanup)).find((x) => x.label === want)
    if (!b) throw new Error(`no ${want} backend here`)
    await startKurz(b)
    await createCachedLink(b)
    await stopKurz(b)
    if (MISSES) await seedLinks(b, 'miss-', REDIRECTS + 20_000)
    const dir = mkdtempSync(join(tmpdir(), 'kurz-prof-'))
    const env: Record<string, string> = { DATA_DIR: b.dataDir }
    if (b.pgUrl) env.DATABASE_URL = b.pgUrl
    const s = await start(`kurz-${want.toLowerCase()}-profiled`, ['--cpu-prof', '--cpu-prof-dir', dir, 'dist/src/server.js'], kurzEnv(env))
    if (CREATES) await profileCreates(s)
    else await profileVisits(s)
    await stop(s)
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))
    if (!file) throw new Error('no profile written')
    summarise(join(dir, file))
  } finally {
    for (const f of cleanup.reverse()) await f()
  }
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
