/**
 * Operator commands that work on the database itself rather than through the services: they must
 * not migrate on open (db:status reports what is pending; restore needs an empty DATA_DIR).
 */
import type { Config } from '../config.js'
import { createDb } from '../db/client.js'
import { migrationStatus, runMigrations } from '../db/migrate.js'
import { backupDataDir, restoreDataDir } from '../db/backup.js'
import { assertDataDirFree, ensureDataDir } from '../lib/data-lock.js'

export class OpsError extends Error {}

export const OPS_HELP = `  db:status               list the migrations the database has applied and those pending
  db:migrate              apply the pending migrations without starting the server
  backup <file>           embedded database only: write DATA_DIR's database to <file>, a .tgz that
                          holds a generated secret.key too (keep it private); the server must be stopped
  restore <file>          embedded database only: load <file> into an empty DATA_DIR, its secret.key
                          included. PostgreSQL: use pg_dump / pg_restore`

async function withDb<T>(config: Config, fn: (handle: Awaited<ReturnType<typeof createDb>>) => Promise<T>): Promise<T> {
  if (config.db.kind === 'pglite') {
    assertDataDirFree(config.dataDir)
    ensureDataDir(config.dataDir) // db:migrate on a new DATA_DIR makes the database: private from the start
  }
  const handle = await createDb(config.db)
  try {
    return await fn(handle)
  } finally {
    await handle.close()
  }
}

function embeddedOnly(config: Config, command: string): void {
  if (config.db.kind === 'pg') {
    throw new OpsError(`${command} is for the embedded database; with DATABASE_URL use pg_dump / pg_restore (README, "Backups").`)
  }
}

export const OPS: Record<string, { positionals: number; run(config: Config, positionals: string[]): Promise<unknown> }> = {
  'db:status': {
    positionals: 0,
    run: (config) => withDb(config, (handle) => migrationStatus(handle.db)),
  },
  'db:migrate': {
    positionals: 0,
    run: (config) =>
      withDb(config, async (handle) => {
        const before = await migrationStatus(handle.db)
        await runMigrations(handle)
        const after = await migrationStatus(handle.db)
        return { applied: before.pending.filter((tag) => after.applied.includes(tag)), pending: after.pending }
      }),
  },
  backup: {
    positionals: 1,
    async run(config, [file]) {
      embeddedOnly(config, 'backup')
      return backupDataDir(config.dataDir, file)
    },
  },
  restore: {
    positionals: 1,
    async run(config, [file]) {
      embeddedOnly(config, 'restore')
      return restoreDataDir(config.dataDir, file)
    },
  },
}
