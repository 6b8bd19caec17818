/**
 * `npm run cli -- import --user <email> --format <f> <file>`: POST /api/urls/import from the
 * shell, for files of any size the API would refuse or a migration done by the operator. It runs
 * the same import service, as that user, under the same plan rules.
 */
import { readFileSync } from 'node:fs'
import { Writable } from 'node:stream'
import { eq } from 'drizzle-orm'
import type { Config } from '../config.js'
import type { DbHandle } from '../db/client.js'
import { plans } from '../db/schema/index.js'
import { effectivePlan } from '../accounts/effective-plan.js'
import { findUserByEmail } from '../resources/admin/users.js'
import { IMPORT_FORMATS, type ImportFormat } from '../resources/transfer/formats.js'
import type { ImportFile } from '../resources/transfer/formats.js'
import { importLinks, type ImportProgress, type ImportResult } from '../resources/transfer/import.js'

export const IMPORT_HELP = `  import --user <email> --format <${IMPORT_FORMATS.join('|')}> <file>
                          create that user's links from an export file (.csv or .json), with
                          the rules and the answer of POST /api/urls/import; a progress bar on a
                          terminal. Formats: README "Import"`

export class ImportCliError extends Error {}

/** A one-line bar on stderr, redrawn in place; only on a terminal. */
function progressBar(total: number): ((p: ImportProgress) => void) | undefined {
  if (!process.stderr.isTTY) return undefined
  return (p) => {
    const share = total ? Math.min(1, p.rows / total) : 0
    const width = 30
    const done = Math.round(share * width)
    process.stderr.write(`\r[${'#'.repeat(done)}${'-'.repeat(width - done)}] ${Math.round(share * 100)}% ${p.rows} rows: ${p.imported} imported, ${p.skipped} skipped, ${p.failed - p.skipped} refused `)
  }
}

/** What POST /api/urls/import answers, `error: 0` first (DECISIONS §10.4: the CLI does the same). */
export type ImportAnswer = { error: 0 } & ImportResult

export async function runImport(handle: DbHandle, config: Config, file: string, values: Record<string, unknown>): Promise<ImportAnswer> {
  const email = values.user
  const format = values.format
  if (typeof email !== 'string') throw new ImportCliError('import needs --user <email> (the account that will own the links).')
  if (typeof format !== 'string' || !(IMPORT_FORMATS as readonly string[]).includes(format)) {
    throw new ImportCliError(`import needs --format, one of ${IMPORT_FORMATS.join(', ')}.`)
  }
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    throw new ImportCliError(`Cannot read ${file}.`)
  }
  let body: ImportFile = { csv: text }
  if (/^\s*[[{]/.test(text)) {
    try {
      body = { json: JSON.parse(text) }
    } catch {
      throw new ImportCliError(`${file} starts like JSON but is not valid JSON.`)
    }
  }
  const found = await findUserByEmail(handle.db, email)
  if (!found) throw new ImportCliError(`No user has the email ${email}.`)
  const [plan] = found.planId ? await handle.db.select().from(plans).where(eq(plans.id, found.planId)) : []
  const { user, plan: applies } = await effectivePlan(handle.db, found, plan ?? null)

  // the link service runs in an app (config, caches, webhooks); its logs go to stderr, stdout keeps the JSON answer
  const { buildApp } = await import('../app.js')
  const quiet = new Writable({ write: (_c, _e, cb) => cb() })
  const app = await buildApp(config, { db: handle, logStream: process.stderr.isTTY ? quiet : process.stderr })
  try {
    await app.ready()
    const total = 'csv' in body ? (body.csv.match(/\n/g)?.length ?? 1) : Array.isArray(body.json) ? body.json.length : 0
    const bar = progressBar(total)
    const result = await importLinks(app, { ...user, plan: applies, keyId: 0 }, format as ImportFormat, body, { onProgress: bar })
    if (bar) process.stderr.write('\n')
    return { error: 0, ...result }
  } finally {
    await app.close()
  }
}
