/**
 * npx tsx bench/compare.ts <other checkout> – this build's cached redirect against another
 * checkout's build (its `npm ci && npm run build` done), both beside a bare Fastify 302, interleaved
 * round by round in one run, on PGlite and Postgres (fresh data each). For questions such as "is
 * the redirect as fast as before the spool?" that ratios from runs on other days cannot answer.
 * The other build may predate /metrics, so rounds are spaced by a pause rather than a drain.
 */
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { SIZES, api, burst, fmt, log, median, sleep } from './lib.js'
import { backends, build, kurzEnv, pinLoadGenerator, start, stop, type Backend, type Server } from './servers.js'
import { CACHED_ALIAS } from './redirect.js'

const other = resolve(process.argv[2] ?? '')
const PAUSE_MS = Number(process.env.COMPARE_PAUSE_MS ?? 3_000)

async function kurz(name: string, root: string, b: Backend): Promise<Server> {
  const env: Record<string, string> = { DATA_DIR: resolve(b.dataDir, name) }
  if (b.pgUrl) env.DATABASE_URL = b.pgUrl.replace(/\/([^/]+)$/, `/$1_${name}`)
  const s = await start(`${name}-${b.label}`, [resolve(root, 'dist/src/server.js')], kurzEnv(env))
  await api(s.url, 'POST', '/api/url/add', { url: 'https://example.com/landing', custom: CACHED_ALIAS })
  return s
}

async function main() {
  if (!existsSync(resolve(other, 'dist/src/server.js'))) throw new Error(`usage: npx tsx bench/compare.ts <checkout with dist/src/server.js> (got ${other})`)
  const cleanup: (() => unknown)[] = []
  const servers: Server[] = []
  try {
    log(pinLoadGenerator())
    await build()
    const list = await backends(cleanup)
    for (const b of list) {
      if (b.pgUrl) {
        // one database each, beside the throwaway one backends() made
        const pg = (await import('pg')).default
        for (const name of ['this', 'other']) {
          const c = new pg.Client({ connectionString: b.pgUrl })
          await c.connect()
          await c.query(`create database ${b.dbName}_${name}`)
          await c.end()
          cleanup.push(async () => {
            const d = new pg.Client({ connectionString: b.pgUrl })
            await d.connect()
            await d.query(`drop database if exists ${b.dbName}_${name} with (force)`)
            await d.end()
          })
        }
      }
    }
    const bare = await start('bare', ['--import', 'tsx', 'bench/bare.ts'])
    servers.push(bare)
    const rows: { label: string; s: Server }[] = [{ label: 'bare', s: bare }]
    for (const b of list) {
      rows.push({ label: `this, ${b.label}`, s: await kurz('this', process.cwd(), b) })
      rows.push({ label: `other, ${b.label}`, s: await kurz('other', other, b) })
    }
    servers.push(...rows.slice(1).map((r) => r.s))
    for (const r of rows) await burst(r.s.url, 20_000, `/${CACHED_ALIAS}`)
    const rps = new Map(rows.map((r) => [r.label, [] as number[]]))
    for (let i = 0; i < SIZES.rounds; i++) {
      for (let k = 0; k < rows.length; k++) {
        const r = rows[(k + i) % rows.length]
        await sleep(PAUSE_MS)
        const m = await burst(r.s.url, SIZES.redirects, `/${CACHED_ALIAS}`)
        if (m.other) log(`${r.label}: ${m.other} answers that were not 302`)
        rps.get(r.label)!.push(m.rps)
      }
      log(`round ${i + 1}: ${rows.map((r) => `${r.label} ${fmt(rps.get(r.label)![i])}/s`).join(', ')}`)
    }
    const bareRps = rps.get('bare')!
    for (const r of rows.slice(1)) {
      const ratio = median(rps.get(r.label)!.map((v, i) => v / bareRps[i]))
      console.log(`${r.label.padEnd(20)} ${fmt(median(rps.get(r.label)!)).padStart(8)}/s  ratio to bare ${ratio.toFixed(3)}`)
    }
    console.log(`${'bare'.padEnd(20)} ${fmt(median(bareRps)).padStart(8)}/s  (medians of ${SIZES.rounds} rounds of ${fmt(SIZES.redirects)})`)
  } finally {
    for (const s of servers) await stop(s, 'SIGKILL').catch(() => {})
    for (const f of cleanup.reverse()) await Promise.resolve(f()).catch(() => {})
  }
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
