import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { sql } from 'drizzle-orm'
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator'
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator'
import type { PgliteDatabase } from 'drizzle-orm/pglite'
import type { Db, DbHandle } from './client.js'
import { FROZEN_INIT, LEGACY_INIT_HASHES, upgradeLegacyInit } from './legacy-init.js'

/** The migrations folder sits at the project root, both from src/ (tsx) and from dist/src/ (built). */
export function migrationsFolder(): string {
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

interface JournalEntry {
  tag: string
  when: number
}

function journal(folder: string): JournalEntry[] {
  const { entries } = JSON.parse(readFileSync(join(folder, 'meta', '_journal.json'), 'utf8')) as { entries: { tag: string; when: number }[] }
  const list = entries.map((e) => ({ tag: e.tag, when: e.when }))
  // drizzle applies a migration only when its `when` is later than the last applied one's: a
  // migration generated on a machine whose clock is behind would be skipped without a word.
  for (let i = 1; i < list.length; i++) {
    if (list[i].when <= list[i - 1].when) {
      throw new Error(`migration ${list[i].tag} is dated before ${list[i - 1].tag} (meta/_journal.json "when"); it would never be applied`)
    }
  }
  return list
}

/**
 * Applies the pending migrations (forward only, each once). `folder` is for tests that build a
 * database with the migration history of an earlier version.
 */
export async function runMigrations(handle: DbHandle, folder = migrationsFolder()): Promise<void> {
  journal(folder)
  if (handle.kind === 'pglite') {
    await handle.db.transaction(async (tx) => {
      await upgradeLegacyInit(tx)
    })
    await migratePglite(handle.db as unknown as PgliteDatabase, { migrationsFolder: folder })
    return
  }
  // Several instances may start at once against one Postgres: only one migrates at a time.
  await handle.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${MIGRATION_LOCK})`)
    await upgradeLegacyInit(tx)
    await migratePg(tx as unknown as Db, { migrationsFolder: folder })
  })
}

export interface MigrationStatus {
  applied: string[]
  pending: string[]
  /** the database records an init that was regenerated before migrations were frozen */
  legacyInit: boolean
}

/** Which migrations of `folder` the database has applied, by drizzle's own rule (see legacy-init.ts). */
export async function migrationStatus(db: Db, folder = migrationsFolder()): Promise<MigrationStatus> {
  const entries = journal(folder)
  const table = await db.execute<{ t: string | null }>(sql`select to_regclass('drizzle.__drizzle_migrations')::text as t`)
  const rows = table.rows[0]?.t
    ? (await db.execute<{ hash: string; created_at: string }>(sql`select hash, created_at::text from drizzle.__drizzle_migrations order by created_at`)).rows
    : []
  const legacyInit = rows.some((r) => LEGACY_INIT_HASHES.has(r.hash))
  const last = legacyInit ? FROZEN_INIT.when - 1 : Math.max(0, ...rows.map((r) => Number(r.created_at)))
  const status: MigrationStatus = { applied: [], pending: [], legacyInit }
  for (const e of entries) {
    if (e.when <= last) status.applied.push(e.tag)
    else status.pending.push(e.tag)
  }
  return status
}
