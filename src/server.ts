import { buildApp } from './app.js'
import { loadConfig } from './config.js'
import { lockDataDir } from './lib/data-lock.js'

let config: ReturnType<typeof loadConfig>
try {
  config = loadConfig()
  const release = config.db.kind === 'pglite' ? lockDataDir(config.dataDir) : () => {}
  process.on('exit', release)
} catch (err) {
  // a bad variable or a DATA_DIR in use is an operator's problem: say which, without a stack trace
  process.stderr.write(`${(err as Error).message}\n`)
  process.exit(1)
}

const app = await buildApp(config)

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
  app.log.error({ err }, 'could not listen')
  await app.close().catch(() => {})
  process.exit(1)
}
