import { sql } from 'drizzle-orm'
import type { Tx } from './client.js'

/**
 * Before migrations were forward-only, `migrations/0000_init.sql` was regenerated in place three
 * times. drizzle's migrator only compares the `created_at` of the last applied migration with each
 * journal entry's `when`, so a database made by one of those earlier versions saw today's init as a
 * new migration and ran it again: `relation "plans" already exists`.
 *
 * Each earlier init is known by its SHA-256 (the hash drizzle recorded when it applied it). A
 * database that recorded one gets the statements that bring its schema to the frozen init, in
 * order, and its record then names the frozen init, so later migrations apply as usual.
 */
export const FROZEN_INIT = { hash: '775dce84370adb60c2866eba57ed7f7ef74610082ae1d903d0b8654ec0056bf2', when: 1795311613797 }

interface Step {
  /** the init this step starts from (commit that landed it, for the record) */
  from: string
  hash: string
  statements: string[]
}

const STEPS: Step[] = [
  {
    from: 'a9fd59b',
    hash: '5f5a25a8cd75c23e6b7cc02c6f4445726fc4b5b92443a0e0f9b1b47e67603c5e',
    statements: ['ALTER TABLE "qr_codes" ADD COLUMN IF NOT EXISTS "logo_hash" text'],
  },
  {
    from: 'a585689',
    hash: 'c6f2012155bca245d37b17aea762749a5dd25b5fd8a8e950fdf20002c1cb6ba9',
    statements: [
      'DROP INDEX IF EXISTS "clicks_link_created_idx"',
      'DROP INDEX IF EXISTS "clicks_qr_created_idx"',
      'CREATE INDEX "clicks_link_created_idx" ON "clicks" USING btree ("link_id","created_at") WHERE "clicks"."link_id" is not null',
      'CREATE INDEX "clicks_qr_created_idx" ON "clicks" USING btree ("qr_id","created_at") WHERE "clicks"."qr_id" is not null',
    ],
  },
  {
    from: '696be53',
    hash: '5e1e2a7e1999d54e0bb0a67d5f594a7403d42a63d466af1b25aa749516ce9629',
    statements: [
      `CREATE TABLE IF NOT EXISTS "click_totals" (
        "subject" text NOT NULL,
        "link_id" integer,
        "qr_id" integer,
        "dimension" text NOT NULL,
        "label" text NOT NULL,
        "count" integer DEFAULT 0 NOT NULL,
        CONSTRAINT "click_totals_subject_dimension_label_pk" PRIMARY KEY("subject","dimension","label")
      )`,
      'ALTER TABLE "click_totals" ADD CONSTRAINT "click_totals_link_id_links_id_fk" FOREIGN KEY ("link_id") REFERENCES "public"."links"("id") ON DELETE cascade ON UPDATE no action',
      'ALTER TABLE "click_totals" ADD CONSTRAINT "click_totals_qr_id_qr_codes_id_fk" FOREIGN KEY ("qr_id") REFERENCES "public"."qr_codes"("id") ON DELETE cascade ON UPDATE no action',
      // the all-time totals those versions read from the daily rollups
      `INSERT INTO "click_totals" ("subject", "link_id", "qr_id", "dimension", "label", "count")
        SELECT "subject", max("link_id"), max("qr_id"), "dimension", "label", sum("count")::integer
        FROM "click_rollups" GROUP BY "subject", "dimension", "label"
        ON CONFLICT DO NOTHING`,
    ],
  },
]

export const LEGACY_INIT_HASHES = new Set(STEPS.map((s) => s.hash))

/** Upgrades a database that recorded a regenerated init; returns the commit that init came from, or null. */
export async function upgradeLegacyInit(tx: Tx): Promise<string | null> {
  const table = await tx.execute<{ t: string | null }>(sql`select to_regclass('drizzle.__drizzle_migrations')::text as t`)
  if (!table.rows[0]?.t) return null
  const rows = (await tx.execute<{ id: number; hash: string }>(sql`select id, hash from drizzle.__drizzle_migrations order by created_at`)).rows
  const legacy = rows.find((r) => LEGACY_INIT_HASHES.has(r.hash))
  if (!legacy) return null
  const start = STEPS.findIndex((s) => s.hash === legacy.hash)
  for (const step of STEPS.slice(start)) {
    for (const statement of step.statements) await tx.execute(sql.raw(statement))
  }
  await tx.execute(sql`update drizzle.__drizzle_migrations set hash = ${FROZEN_INIT.hash}, created_at = ${FROZEN_INIT.when} where id = ${legacy.id}`)
  return STEPS[start].from
}
