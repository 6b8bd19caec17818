/** `npm run cli -- blocklist:import <file> [--reason <text>]` (DECISIONS §10.6). */
import { readFile } from 'node:fs/promises'
import { connectRedis } from '../lib/redis.js'
import { deploymentId } from '../db/deployment-settings.js'
import type { FastifyBaseLogger } from 'fastify'
import type { Config } from '../config.js'
import type { DbHandle } from '../db/client.js'
import { InvalidationBus } from '../redirect/invalidation.js'
import { importBlocklist } from '../resources/blocklist/import.js'

export const BLOCKLIST_HELP = `  blocklist:import <file> [--reason <text>]
                          add the domains of a hosts-format file (0.0.0.0 evil.example) or of a
                          one-domain-per-line file to the blocklist; # starts a comment. Links
                          that match a new entry are quarantined (servers sharing REDIS_URL are
                          told at once; others within 5 minutes)`

/** publish() logs nothing; the bus wants a logger for its subscription side, unused here */
const noLog = { warn() {}, info() {}, error() {} } as unknown as FastifyBaseLogger

/** The largest file read: a few million hosts lines. */
const MAX_BYTES = 256 * 1024 * 1024

export async function runBlocklistImport(handle: DbHandle, config: Config, file: string, reason: string | undefined) {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (err) {
    throw new Error(`Cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}.`)
  }
  if (Buffer.byteLength(text) > MAX_BYTES) throw new Error(`${file} is larger than 256 MiB; split it.`)
  // running servers drop the quarantined links from their caches when they share Redis
  const redis = config.redisUrl ? connectRedis(config.redisUrl, await deploymentId(handle.db), { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false }) : null
  await redis?.connect().catch(() => {})
  const bus = new InvalidationBus(redis?.status === 'ready' ? redis : null, noLog)
  try {
    return await importBlocklist(handle.db, text, reason ?? `imported from ${file.split('/').pop()}`, async (ids) => {
      for (const id of ids) await bus.publish({ kind: 'link', id })
    })
  } finally {
    redis?.disconnect()
  }
}
