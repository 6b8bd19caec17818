import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { resolve } from 'node:path'
import { sql } from 'drizzle-orm'
import { buildApp } from '../../src/app.js'
import type { Db } from '../../src/db/client.js'
import { migrationsFolder, migrationStatus, runMigrations } from '../../src/db/migrate.js'
import { FROZEN_INIT } from '../../src/db/legacy-init.js'
import { allFeatures } from '../../src/resources/admin/plans.js'
import { rotateApiKey } from '../../src/resources/admin/users.js'
import { deriveKeys, encrypt, hmac } from '../../src/lib/crypto.js'
import { TEST_SECRET, testConfig, testDatabase } from '../helpers/app.js'

const OLD_KEY = 'the-api-key-of-user-2-from-before'
const OLD_KEYS = deriveKeys(TEST_SECRET)

const fixture = (commit: string) => resolve(import.meta.dirname, `../fixtures/migrations-${commit}`)

/**
 * Rows as the earlier version wrote them: plain SQL against its own schema, so the test does not
 * depend on today's code being able to write an old database.
 */
async function seedOldDatabase(db: Db) {
  const features = JSON.stringify(allFeatures('1', '0'))
  const statements = [
    sql`insert into plans (id, name, free, is_default, max_links, retention_days, features) values (1, 'Free', true, true, 1000, 90, ${features}::jsonb), (2, 'Pro', false, false, 0, 730, ${features}::jsonb)`,
    sql`select setval('plans_id_seq', 2)`,
    sql`insert into users (id, email, username, password_hash, admin, plan_id) values (1, 'old@example.com', 'olduser', 'not-a-real-hash', true, 2), (2, 'other@example.com', 'other', 'not-a-real-hash', false, 1)`,
    sql`select setval('users_id_seq', 2)`,
    // sealed as every version sealed keys: with the server's SECRET_KEY (today's start proves its secret by opening one)
    sql`insert into api_keys (user_id, key_hash, key_encrypted) values (2, ${hmac(OLD_KEYS.apiKeyLookup, OLD_KEY)}, ${encrypt(OLD_KEYS.apiKeySeal, OLD_KEY)})`,
    sql`insert into domains (id, user_id, domain, host, redirect_root) values (1, 1, 'https://go.example.com', 'go.example.com', 'https://example.com')`,
    sql`insert into campaigns (id, user_id, name, slug, public) values (1, 1, 'Spring', 'spring', true)`,
    sql`insert into channels (id, user_id, name, color, starred) values (1, 1, 'Newsletter', '#1a2b3c', true)`,
    sql`insert into pixels (id, user_id, type, name, tag) values (1, 1, 'gtmpixel', 'Tag Manager', 'GTM-ABC123')`,
    sql`insert into links (id, user_id, alias, custom_alias, url, title, campaign_id, clicks, unique_clicks) values (1, 1, 'spring', true, 'https://example.com/spring-sale', 'Spring sale', 1, 3, 2), (2, 1, 'fr', true, 'https://example.com/', null, null, 0, 0)`,
    sql`select setval('links_id_seq', 2)`,
    sql`insert into link_targets (link_id, kind, key, url, position) values (2, 'country', 'FR', 'https://example.fr/', 0)`,
    sql`insert into link_pixels (link_id, pixel_id) values (2, 1)`,
    sql`insert into channel_items (channel_id, item_type, item_id) values (1, 'links', 1)`,
    sql`insert into qr_codes (id, user_id, alias, type, data, target, content, name) values (1, 1, 'qr1', 'link', '{"url":"https://example.com"}'::jsonb, 'https://example.com', 'https://example.com', 'Poster')`,
    sql`insert into clicks (link_id, source, country, browser, os, device, visitor_hash, created_at) values (1, 'link', 'FR', 'Firefox', 'Linux', 'Desktop', 'v1', '2026-11-01T10:00:00Z'), (1, 'link', 'FR', 'Firefox', 'Linux', 'Desktop', 'v1', '2026-11-01T11:00:00Z'), (1, 'link', 'DE', 'Chrome', 'Windows', 'Desktop', 'v2', '2026-11-02T10:00:00Z')`,
    sql`insert into click_rollups (subject, link_id, day, dimension, label, count) values ('l1', 1, '2026-11-01', 'country', 'FR', 2), ('l1', 1, '2026-11-02', 'country', 'DE', 1)`,
    sql`insert into click_visitors (subject, link_id, day, visitor_hash) values ('l1', 1, '2026-11-01', 'v1'), ('l1', 1, '2026-11-02', 'v2')`,
    sql`insert into click_quota (user_id, month, count) values (1, '2026-11', 3)`,
    sql`insert into pages (id, user_id, kind, name, title, message) values (1, 1, 'splash', 'Welcome', 'Hello', 'One moment')`,
    sql`insert into sessions (token_hash, user_id, expires_at) values ('old-session', 1, now() + interval '1 day')`,
  ]
  for (const statement of statements) await db.execute(statement)
  // versions from 0f66f26 on also kept all-time totals beside the daily rollups
  const totals = await db.execute<{ t: string | null }>(sql`select to_regclass('click_totals')::text as t`)
  if (totals.rows[0].t) await db.execute(sql`insert into click_totals (subject, link_id, dimension, label, count) values ('l1', 1, 'country', 'FR', 2), ('l1', 1, 'country', 'DE', 1)`)
}

/** Every row of every table, as JSON objects. */
async function snapshot(db: Db): Promise<Record<string, Record<string, unknown>[]>> {
  const tables = await db.execute<{ name: string }>(sql`select tablename as name from pg_tables where schemaname = 'public' order by 1`)
  const out: Record<string, Record<string, unknown>[]> = {}
  for (const { name } of tables.rows) {
    out[name] = (await db.execute<{ row: Record<string, unknown> }>(sql`select to_jsonb(t) as row from ${sql.identifier(name)} t`)).rows.map((r) => r.row)
  }
  return out
}

describe('forward-only migrations', () => {
  it('keeps 0000_init.sql frozen, and every later migration is dated after the one before', () => {
    const folder = migrationsFolder()
    const init = readFileSync(resolve(folder, '0000_init.sql'), 'utf8')
    expect(createHash('sha256').update(init).digest('hex')).toBe(FROZEN_INIT.hash)
    const { entries } = JSON.parse(readFileSync(resolve(folder, 'meta/_journal.json'), 'utf8')) as { entries: { idx: number; tag: string; when: number }[] }
    expect(entries[0]).toMatchObject({ idx: 0, tag: '0000_init', when: FROZEN_INIT.when })
    entries.forEach((e, i) => {
      expect(e.idx).toBe(i)
      expect(e.tag.startsWith(String(i).padStart(4, '0') + '_')).toBe(true)
      if (i) expect(e.when).toBeGreaterThan(entries[i - 1].when)
    })
  })

  // e9e93c1: the frozen init; a9fd59b and 696be53: inits regenerated in place before the freeze,
  // which made today's start fail with `relation "plans" already exists`
  it.each(['e9e93c1', '696be53', 'a9fd59b'])('a database made by the migrations of %s keeps every row when today\'s app starts on it', async (commit) => {
    const database = await testDatabase()
    try {
      await runMigrations(database.handle, fixture(commit))
      await seedOldDatabase(database.handle.db)
      const before = await snapshot(database.handle.db)
      expect((await migrationStatus(database.handle.db)).pending.length).toBeGreaterThanOrEqual(commit === 'e9e93c1' ? 0 : 1)

      const app = await buildApp(testConfig(), { db: database.handle })
      try {
        await app.ready()
        const after = await snapshot(app.db)
        for (const [table, rows] of Object.entries(before)) {
          expect(after[table], table).toBeDefined()
          expect(after[table].length, table).toBe(rows.length)
          // later migrations may add columns; every value the old version stored is unchanged
          for (const row of rows) expect(after[table], table).toContainEqual(expect.objectContaining(row))
        }
        expect(await migrationStatus(app.db)).toEqual({ applied: expect.arrayContaining(['0000_init']), pending: [], legacyInit: false })

        // and today's code serves them: the statistics include the old clicks, the short link redirects
        const old = await app.inject({ method: 'GET', url: '/api/account', headers: { authorization: `Bearer ${OLD_KEY}` } })
        expect(old.json().data).toMatchObject({ id: 2, email: 'other@example.com' })
        const key = await rotateApiKey(app.db, app.keys, 1)
        const link = await app.inject({ method: 'GET', url: '/api/url/1', headers: { authorization: `Bearer ${key}` } })
        expect(link.statusCode).toBe(200)
        expect(link.json().data).toMatchObject({ clicks: 3, uniqueClicks: 2 })
        // the old totals count once: migration 0011 marks every day up to today as folded into them
        expect(link.json().data.topCountries).toEqual({ France: '2', Germany: '1' })
        const [folded] = (await app.db.execute<{ day: string }>(sql`select day::text as day from click_totals_through`)).rows
        expect(folded.day).toBe(new Date().toISOString().slice(0, 10))
        // visited after the statistics are read: its own click, written whenever its batch goes, is not in them
        const visit = await app.inject({ method: 'GET', url: '/spring', headers: { host: 'kurz.test' } })
        expect(visit.statusCode).toBe(302)
        expect(visit.headers.location).toBe('https://example.com/spring-sale')
      } finally {
        await app.close()
      }
    } finally {
      await database.drop()
    }
  }, 120_000)

  it('db:status reports a regenerated init as pending and db:migrate-style runMigrations upgrades it once', async () => {
    const database = await testDatabase()
    try {
      await runMigrations(database.handle, fixture('a9fd59b'))
      const status = await migrationStatus(database.handle.db)
      expect(status).toMatchObject({ applied: [], legacyInit: true })
      expect(status.pending[0]).toBe('0000_init') // and every migration after it
      await runMigrations(database.handle)
      await runMigrations(database.handle) // a second start changes nothing
      expect(await migrationStatus(database.handle.db)).toMatchObject({ pending: [], legacyInit: false })
      const recorded = await database.handle.db.execute<{ hash: string }>(sql`select hash from drizzle.__drizzle_migrations order by created_at`)
      const { entries } = JSON.parse(readFileSync(resolve(migrationsFolder(), 'meta/_journal.json'), 'utf8')) as { entries: unknown[] }
      expect(recorded.rows).toHaveLength(entries.length) // each migration once
      expect(recorded.rows[0]).toEqual({ hash: FROZEN_INIT.hash })
    } finally {
      await database.drop()
    }
  }, 120_000)
})
