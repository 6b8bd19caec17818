import type { FastifyInstance } from 'fastify'
import { eq } from 'drizzle-orm'
import { domains, links } from '../../db/schema/index.js'
import type { AuthUser } from '../../http/auth.js'
import { ApiError, nameField, zodToApiError } from '../../http/errors.js'
import { createLinkIn } from '../links/create.js'
import { requireCreateRoom } from '../links/create-limit.js'
import { createBody, managementName, toLinkInput } from '../links/schemas.js'
import { invalidateLinks } from '../redirect-cache.js'
import { readImport, type ImportFile, type ImportFormat, type ImportRecord, type ReadError } from './formats.js'

/*
 * Import: every row goes through /api/url/add's own body rules (createBody) and the link write
 * service (createLinkIn), so an imported link is exactly a link a client could have made. Rows are
 * written a chunk at a time, one transaction per chunk and a savepoint per row: a refused row
 * leaves nothing, a good row is whole (its link, and the source's clicks and date), and the event
 * loop is free between chunks for the redirects served meanwhile. Through the API each row counts
 * toward the account's CREATE_LIMIT_PER_HOUR like a create (DECISIONS §10.6): once the hour's room
 * is spent the rest of the file is refused in one line; an import that could write nothing is the
 * create's 429. The CLI's import, an operator's act, is not counted.
 */

const CHUNK = 200
/** errors listed in the answer; beyond, one line says how many more */
const MAX_ERRORS = 1_000

export interface ImportResult {
  imported: number
  /** rows whose alias was already taken (never overwritten) */
  skipped: number
  errors: { line: number; message: string }[]
}

export interface ImportProgress {
  /** rows read so far */
  rows: number
  imported: number
  skipped: number
  failed: number
}

export interface ImportOptions {
  /** each row counts toward CREATE_LIMIT_PER_HOUR (the API's imports) */
  counted?: boolean
  onProgress?: (p: ImportProgress) => void
  /** aborted when the client went away (the dashboard's Cancel): no chunk is started after it */
  signal?: AbortSignal
}

/** The import's standing with the create limit, across its chunks. */
interface Room {
  counted: boolean
  /** the create limit's refusal, once a row met it: that row and the rows after it are not tried */
  refusal: ApiError | null
  /** the line of the row that met it */
  line: number
  /** rows not tried because of it */
  untried: number
}

const isReadError = (r: ImportRecord | ReadError): r is ReadError => 'message' in r

export async function importLinks(app: FastifyInstance, user: AuthUser, format: ImportFormat, file: ImportFile, options: ImportOptions = {}): Promise<ImportResult> {
  const { onProgress } = options
  const owned = await app.db.select({ domain: domains.domain, host: domains.host }).from(domains).where(eq(domains.userId, user.id))
  const domainOf = new Map(owned.map((d) => [d.host, d.domain]))
  const result: ImportResult = { imported: 0, skipped: 0, errors: [] }
  let failed = 0
  let rows = 0
  const refuse = (line: number, message: string) => {
    failed++
    if (result.errors.length < MAX_ERRORS) result.errors.push({ line, message })
  }

  const room: Room = { counted: options.counted === true, refusal: null, line: 0, untried: 0 }
  let chunk: ImportRecord[] = []
  const flush = async () => {
    if (chunk.length === 0) return
    if (room.refusal) room.untried += chunk.length
    const written = room.refusal ? [] : await writeChunk(app, user, chunk, domainOf, result, refuse, room)
    await invalidateLinks(app, written)
    chunk = []
    onProgress?.({ rows, imported: result.imported, skipped: result.skipped, failed })
    await new Promise((r) => setImmediate(r))
  }
  for (const rec of readImport(format, file)) {
    if (options.signal?.aborted) break
    rows++
    if (isReadError(rec)) refuse(rec.line, rec.message)
    else chunk.push(rec)
    if (chunk.length >= CHUNK) await flush()
  }
  if (!options.signal?.aborted) await flush()
  if (room.refusal) {
    // nothing tried before it: the create's own 429 (with Retry-After), and nothing was written
    if (result.imported === 0 && result.skipped === 0 && failed === 0) throw room.refusal
    // one listed line stands for the untried rows
    failed++
    const rest = room.untried - 1
    result.errors.push({ line: room.line, message: `${room.refusal.message} ${rest ? `This row and the ${rest} after it were` : 'This row was'} not imported.` })
  }
  // a row the reader refused is listed at once, a row the link rules refused when its chunk is written
  result.errors.sort((a, b) => a.line - b.line)
  if (failed > result.errors.length) result.errors.push({ line: 0, message: `${failed - result.errors.length} more rows were refused; fix the ones listed and import the file again.` })
  return result
}

async function writeChunk(
  app: FastifyInstance,
  user: AuthUser,
  chunk: ImportRecord[],
  domainOf: Map<string, string>,
  result: ImportResult,
  refuse: (line: number, message: string) => void,
  room: Room,
): Promise<number[]> {
  const written: number[] = []
  await app.db.transaction(async (tx) => {
    for (const [i, rec] of chunk.entries()) {
      const host = rec.host && domainOf.get(rec.host)
      const parsed = createBody.safeParse({ ...rec.body, ...(host ? { domain: host } : {}) })
      if (!parsed.success) {
        refuse(rec.line, zodToApiError(parsed.error).message)
        continue
      }
      if (room.counted) {
        try {
          await requireCreateRoom(app, user)
        } catch (err) {
          if (!(err instanceof ApiError) || err.status !== 429) throw err
          room.refusal = err
          room.line = rec.line
          room.untried = chunk.length - i
          break
        }
      }
      try {
        const id = await tx.transaction(async (sp) => {
          const link = await createLinkIn(app, sp, user, toLinkInput(parsed.data))
          const past: Partial<typeof links.$inferInsert> = {}
          if (rec.clicks !== undefined) past.clicks = rec.clicks
          if (rec.uniqueClicks !== undefined) past.uniqueClicks = Math.min(rec.uniqueClicks, rec.clicks ?? rec.uniqueClicks)
          if (rec.createdAt) past.createdAt = rec.createdAt
          if (Object.keys(past).length) await sp.update(links).set(past).where(eq(links.id, link.id))
          return link.id
        })
        written.push(id)
        result.imported++
      } catch (err) {
        const named = nameField(err, managementName)
        if (!(named instanceof ApiError) || named.status >= 500) throw err
        if (named.status === 409) {
          result.skipped++
          refuse(rec.line, `${named.message} Skipped.`)
        } else refuse(rec.line, named.message)
      }
    }
  })
  return written
}
