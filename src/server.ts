import { sql } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { buildApp } from './app.js'
import { loadConfig } from './config.js'
import { ensureDataDir, lockDataDir } from './lib/data-lock.js'
import { diskFullMessage, isDiskFull } from './lib/disk-full.js'
import { DatabaseUnreachable, openDatabase } from './db/wait.js'
import { SecretMismatch } from './accounts/deployment-secret.js'
import type { CreatedAdmin } from './resources/admin/bootstrap.js'

let config: ReturnType<typeof loadConfig>
try {
  config = loadConfig()
  const open = ensureDataDir(config.dataDir)
  const release = config.db.kind === 'pglite' ? lockDataDir(config.dataDir) : () => {}
  if (open) process.stderr.write(`${open}\n`)
  process.on('exit', release)
} catch (err) {
  // a bad variable or a DATA_DIR in use is an operator's problem: say which, without a stack trace
  process.stderr.write(`${(err as Error).message}\n`)
  process.exit(1)
}

// a Postgres starting beside us (docker compose) gets 30 s; then one line naming the host, exit 1
const handle = await openDatabase(config.db, (line) => process.stderr.write(`${line}\n`)).catch((err) => {
  if (isDiskFull(err)) process.stderr.write(`${diskFullMessage(config.dataDir)}\n`)
  else process.stderr.write(`${err instanceof DatabaseUnreachable ? err.message : `Cannot open the database: ${(err as Error).message || (err as Error).name}`}\n`)
  process.exit(1)
})

// a full disk (migrations, secret.key, the click spool) or another deployment's secret is the
// operator's to fix: one sentence, no stack; anything else is a bug and keeps its stack
const app = await buildApp(config, { db: handle, spool: true }).catch(async (err) => {
  if (!isDiskFull(err) && !(err instanceof SecretMismatch)) throw err
  process.stderr.write(`${err instanceof SecretMismatch ? err.message : diskFullMessage(config.dataDir)}\n`)
  await handle.close().catch(() => {})
  process.exit(1)
})

// PGlite's worker thread stopped on its own: every query now fails, so one line and exit 1 for a
// supervisor to restart us (accepted clicks are in the spool)
void handle.lost?.then((err) => {
  app.log.error({ err }, 'the embedded database stopped; exiting')
  process.exit(1)
})

let closing = false
async function shutdown(signal: string) {
  if (closing) return
  closing = true
  // app.close() stops accepting connections, waits for requests in flight, then runs the onClose
  // hooks: the click pipeline flushes its buffer before the database closes.
  app.log.info({ signal }, 'shutting down: draining requests and buffered clicks')
  const timer = setTimeout(() => {
    app.log.error('shutdown took longer than 25 s; exiting')
    process.exit(1)
  }, 25_000)
  timer.unref()
  try {
    await app.close()
    await handle.close()
    process.exit(0)
  } catch (err) {
    app.log.error({ err }, 'error during shutdown')
    process.exit(1)
  }
}
process.on('SIGTERM', () => void shutdown('SIGTERM'))
process.on('SIGINT', () => void shutdown('SIGINT'))

try {
  await app.listen({ port: config.listen.port, host: config.listen.host })
} catch (err) {
  // the usual causes are the operator's settings: one sentence naming the variable, no stack
  const why = listenProblem((err as { code?: string }).code, config.listen)
  if (why) process.stderr.write(`${why}\n`)
  else app.log.error({ err }, 'could not listen')
  await app.close().catch(() => {})
  await handle.close().catch(() => {})
  process.exit(1)
}

await explainFirstStart(app)

/**
 * What a person starting Kurz for the first time needs: the credentials of the admin just created,
 * in a box on the console (stdout, never the JSON log, shown this once), or how to create a user.
 */
async function explainFirstStart(app: FastifyInstance): Promise<void> {
  if (app.createdAdmin) {
    process.stdout.write(adminBox(app.createdAdmin, app.config.publicUrl))
    return
  }
  const anyone = await app.db.execute(sql`select 1 from users limit 1`).catch(() => null)
  if (anyone && anyone.rows.length === 0) {
    const stop = app.config.db.kind === 'pglite' ? ' (stop the server first: only one process may open the embedded database)' : ''
    app.log.warn(
      `No user exists yet. Create an admin with: npm run cli -- users:create --email you@example.com --username you --admin${stop}; or start with ADMIN_EMAIL=you@example.com (and optionally ADMIN_API_KEY, ADMIN_PASSWORD)`,
    )
  }
}

function adminBox(admin: CreatedAdmin, publicUrl: string): string {
  const lines = [
    'Kurz: admin account created. Note these now: they are shown this once and never logged.',
    '',
    `  email      ${admin.email}`,
    `  username   ${admin.username}`,
    `  API key    ${admin.apiKey ?? '(the one in ADMIN_API_KEY)'}`,
    `  password   ${admin.password ?? '(the one in ADMIN_PASSWORD)'}`,
    '',
    `  API:        ${publicUrl}/api  (Authorization: Bearer <API key>)`,
    `  dashboard:  ${publicUrl}/login`,
    '',
    `A lost key is replaced with: npm run cli -- keys:rotate ${admin.email}`,
  ]
  const width = Math.max(...lines.map((l) => l.length))
  const rule = `+${'-'.repeat(width + 4)}+`
  return ['', rule, ...lines.map((l) => `|  ${l.padEnd(width)}  |`), rule, ''].join('\n') + '\n'
}

/** What an operator must change when the server cannot listen, or undefined for anything else. */
function listenProblem(code: string | undefined, { port, host }: { port: number; host: string }): string | undefined {
  if (code === 'EADDRINUSE') return `PORT ${port} is already in use on ${host}: stop what holds it, or set PORT to a free port.`
  if (code === 'EACCES') return `PORT ${port} needs privileges this process lacks: use a port above 1023 (with a proxy in front), or grant it the right to bind low ports.`
  if (code === 'ENOTFOUND' || code === 'EADDRNOTAVAIL' || code === 'EAI_AGAIN') {
    return `HOST (${host}) is not an address of this machine: set HOST to one of its addresses, 0.0.0.0 for all of them, or 127.0.0.1 for this machine only.`
  }
  return undefined
}
