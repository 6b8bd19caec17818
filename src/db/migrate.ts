import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { sql } from 'drizzle-orm'
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator'
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator'
import type { PgliteDatabase } from 'drizzle-orm/pglite'
import type { DbHandle } from './client.js'

/** The migrations folder sits at the project root, both from src/ (tsx) and from dist/src/ (built). */
function migrationsFolder(): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  for (let i = 0; i < 5; i++) {
    const candidate = join(dir, 'migrations')
    if (existsSync(join(candidate, 'meta', '_journal.json'))) return candidate
    dir = dirname(dir)
  }
  throw new Error('migrations folder not found')
}

// Any constant works; it only has to be the same for every instance sharing the database.
const MIGRATION_LOCK = 72_801_311

export async function runMigrations(handle: DbHandle): Promise<void> {
  const folder = migrationsFolder()
  if (handle.kind === 'pglite') {
    await migratePglite(handle.db as unknown as PgliteDatabase, { migrationsFolder: folder })
    return
  }
  // Several instances may start at once against one Postgres: only one migrates at a time.
  await handle.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${MIGRATION_LOCK})`)
    await migratePg(tx as unknown as typeof handle.db, { migrationsFolder: folder })
  })
}
