/**
 * npm run bench – the performance budget of DECISIONS §9 and issue 14, measured on this machine,
 * in one run (bench/lib.ts lists the BENCH_* sizes; BENCH_QUICK=1 is a smoke run of small numbers
 * whose figures mean nothing).
 *
 * Servers run as their own processes on loopback (as in production), pinned to one core with the
 * load generator (this process) on the other; compared servers are interleaved round by round and
 * each figure is the median of the rounds (BENCH_ROUNDS, at least 3). Postgres figures use
 * BENCH_DATABASE_URL or DATABASE_URL, else a Postgres on 127.0.0.1:5432 if one answers, in a
 * throwaway database. Exits 1 when a target is missed. Never run by the tests.
 */
import { SIZES, fmt, log, sleep, type Row } from './lib.js'
import { treeRssMb } from './proc.js'
import { seedLinks } from './seed.js'
import { backends, build, pinLoadGenerator, postgresSettled, startKurz, stopKurz, watchAutovacuum, type Backend } from './servers.js'
import { cachedRedirectRows, createCachedLink } from './redirect.js'
import { RANDOM_PREFIX, randomAliasRows } from './random.js'
import { CRASH_PREFIX, DURABILITY_LINKS, SUSTAIN_PREFIX, durabilityRows } from './durability.js'
import { createRows, healthUnderWritesRow, statsRows } from './links.js'
import { listRows } from './lists.js'

/** Idle memory of a fresh server, then the links the later figures visit, seeded while it is stopped. */
async function prepare(b: Backend): Promise<Row> {
  log(`starting Kurz on ${b.label} (fresh data)`)
  const s = await startKurz(b)
  await sleep(3_000)
  const rss = treeRssMb(s.child.pid!)
  await createCachedLink(b)
  await stopKurz(b)
  log(`${b.label}: seeding ${fmt(SIZES.links)} + ${2 * DURABILITY_LINKS} links`)
  await seedLinks(b, RANDOM_PREFIX, SIZES.links)
  await seedLinks(b, SUSTAIN_PREFIX, DURABILITY_LINKS)
  await seedLinks(b, CRASH_PREFIX, DURABILITY_LINKS)
  await startKurz(b)
  return { figure: `idle RSS after start, ${b.label} (fresh data)`, measured: `${rss.toFixed(0)} MB`, target: '< 250 MB', ok: rss < 250 }
}

function print(rows: Row[]) {
  const w = [Math.max(...rows.map((r) => r.figure.length), 6), Math.max(...rows.map((r) => r.measured.length), 8), Math.max(...rows.map((r) => r.target.length), 6)]
  const line = (a: string, b: string, c: string, d: string) => `| ${a.padEnd(w[0])} | ${b.padEnd(w[1])} | ${c.padEnd(w[2])} | ${d.padEnd(4)} |`
  console.log(line('Figure', 'Measured', 'Target', 'OK'))
  console.log(`|${'-'.repeat(w[0] + 2)}|${'-'.repeat(w[1] + 2)}|${'-'.repeat(w[2] + 2)}|------|`)
  for (const r of rows) console.log(line(r.figure, r.measured, r.target, r.ok === null ? '-' : r.ok ? 'yes' : 'NO'))
}

async function main() {
  const rows: Row[] = []
  const cleanup: (() => unknown)[] = []
  let list: Backend[] = []
  try {
    log(pinLoadGenerator())
    if (SIZES.quick) log('BENCH_QUICK: a smoke run, small numbers; the figures are not the real ones')
    await build()
    list = await backends(cleanup)
    for (const b of list) rows.push(await prepare(b))
    const pgBackend = list.find((b) => b.label === 'Postgres')
    // the seeded links' autovacuum is not the cached rounds' load
    await postgresSettled(pgBackend, { vacuum: true })
    const cachedVacuums = watchAutovacuum(pgBackend)
    rows.push(...(await cachedRedirectRows(list)))
    const seenCached = await cachedVacuums.stop()
    if (seenCached > 0) log(`${seenCached} autovacuum worker(s) of the Postgres server ran during the cached rows`)
    // the cached rows stored 450,000 clicks on Postgres: an autovacuum of them would share the
    // cores with every server's random-alias rounds, PGlite's too
    await postgresSettled(pgBackend, { vacuum: true })
    const randomVacuums = watchAutovacuum(pgBackend)
    rows.push(...(await randomAliasRows(list)))
    const seenRandom = await randomVacuums.stop()
    if (seenRandom > 0) log(`${seenRandom} autovacuum worker(s) of the Postgres server ran during the random-alias rows`)
    rows.push(...(await durabilityRows(list)))
    for (const b of list) await startKurz(b)
    // the durability rows stored millions of clicks on Postgres: their vacuum is not the next rows' load
    await postgresSettled(pgBackend, { vacuum: true })
    const vacuums = watchAutovacuum(pgBackend)
    rows.push(await healthUnderWritesRow(list[0]))
    const seen = await vacuums.stop()
    if (seen > 0) log(`${seen} autovacuum worker(s) of the Postgres server ran during the /healthz row`)
    rows.push(...(await listRows(list)))
    // each backend's creates with its server alone; Postgres's last, so its server stays up
    rows.push(...(await createRows(list)))
    // the statistics rows are Postgres's alone too: PGlite's server would share their core, and
    // its vacuum job (two minutes after start, over the millions of clicks the rows above stored)
    // falls in the middle of them
    for (const b of list) if (b !== pgBackend) await stopKurz(b)
    rows.push(...(await statsRows(pgBackend)))
  } catch (err) {
    print(rows)
    throw err
  } finally {
    for (const b of list) await stopKurz(b, 'SIGKILL').catch(() => {})
    for (const c of cleanup.reverse()) await Promise.resolve(c()).catch(() => {})
  }
  print(rows)
  process.exitCode = rows.every((r) => r.ok !== false) ? 0 : 1
}

await main()
