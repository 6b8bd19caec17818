import { Readable } from 'node:stream'
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { and, eq } from 'drizzle-orm'
import { z } from 'zod'
import type { ZodTypeProvider } from '../../http/zod.js'
import { links } from '../../db/schema/index.js'
import { requireFeature } from '../../http/auth.js'
import { ApiError, badRequest, conflict, errorHandler, notFound } from '../../http/errors.js'
import { NOT_JSON } from '../../http/body.js'
import { idParam, optional } from '../../http/fields.js'
import { parseTimestamp, toDay } from '../../http/format.js'
import { whenRequestEnds } from '../../http/request-end.js'
import { clicksCsv, linksCsv } from './export.js'
import { IMPORT_FORMATS } from './formats.js'
import { importLinks } from './import.js'

/** An import file may be large; every other body stays at the 1 MiB of DECISIONS §2. */
export const IMPORT_BODY_LIMIT = 20 * 1024 * 1024

// the shared error formatter puts the field first ("from: must be…")
const day = z.string({ message: 'must be a date like 2030-12-31.' }).transform((v, ctx) => {
  const d = /^\d{4}-\d{2}-\d{2}$/.test(v) ? parseTimestamp(v) : null
  if (d) return d
  ctx.addIssue({ code: 'custom', message: 'must be a date like 2030-12-31.' })
  return z.NEVER
})
const clicksQuery = z.object({
  from: optional(day).meta({ description: 'first day, YYYY-MM-DD (UTC)' }),
  to: optional(day).meta({ description: 'last day, YYYY-MM-DD (UTC), included' }),
})
const importQuery = z.object({
  format: optional(z.enum(IMPORT_FORMATS, { message: `must be one of ${IMPORT_FORMATS.join(', ')}.` })).transform((f) => f ?? 'csv'),
})

const mediaType = (req: FastifyRequest) => String(req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase()
const unsupportedType = (type: string) =>
  new ApiError(415, `${type ? `Unsupported Content-Type "${type.slice(0, 100)}"` : 'No Content-Type'}: send the file as text/csv or application/json.`)

/**
 * The import route's words for the two body failures the shared handler words for every other
 * route (its 1 MiB limit, its application/json); everything else, and the answer itself, is the
 * shared errorHandler's.
 */
function importErrorHandler(err: unknown, req: FastifyRequest, reply: FastifyReply) {
  const code = (err as FastifyError | null)?.code
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    const limit = `${IMPORT_BODY_LIMIT / 1024 / 1024} MiB`
    return errorHandler(new ApiError(413, `Request body is too large: the limit for an import is ${limit}; npm run cli -- import takes a file of any size.`), req, reply)
  }
  if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || (err instanceof ApiError && err.status === 415)) {
    return errorHandler(unsupportedType(mediaType(req)), req, reply)
  }
  // text/plain (or no type) is read as JSON by the shared parser: a CSV file sent so is not bad
  // JSON but the wrong type, so say which types the import takes
  const type = mediaType(req)
  if (err instanceof ApiError && err.status === 400 && err.message === NOT_JSON && type !== 'application/json') {
    return errorHandler(unsupportedType(type), req, reply)
  }
  return errorHandler(err, req, reply)
}

function sendCsv(reply: FastifyReply, name: string, rows: AsyncGenerator<string>) {
  return reply
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${name}-${toDay(new Date())}.csv"`)
    .header('cache-control', 'no-store')
    .send(Readable.from(rows))
}

const transfer: FastifyPluginAsync = async (app) => {
  const r = app.withTypeProvider<ZodTypeProvider>()
  // encapsulated: text/csv bodies exist only for the import route of this plugin
  app.addContentTypeParser('text/csv', { parseAs: 'string', bodyLimit: IMPORT_BODY_LIMIT }, (_req, body, done) => done(null, body))

  // GET /api/urls/export – the caller's links as CSV (plan feature `export`)
  r.get('/api/urls/export', async (req, reply) => {
    requireFeature(req.user, 'export')
    return sendCsv(reply, 'kurz-links', linksCsv(app.db, app.config.publicUrl, req.user.id))
  })

  // GET /api/url/:id/clicks/export – one link's click rows as CSV (`from`, `to`: days, UTC, `to` included)
  r.get('/api/url/:id/clicks/export', { schema: { params: idParam, querystring: clicksQuery } }, async (req, reply) => {
    const [link] = await app.db.select({ id: links.id }).from(links).where(and(eq(links.id, req.params.id), eq(links.userId, req.user.id)))
    if (!link) throw notFound('Link not found.')
    requireFeature(req.user, 'export')
    const { from, to } = req.query
    // as the statistics say it: an upside-down range is a mistake, not an empty file
    if (from && to && to < from) throw badRequest('to must be the same day as from or later.', 'to')
    const end = to ? new Date(to.getTime() + 86_400_000) : null
    return sendCsv(reply, `kurz-clicks-${link.id}`, clicksCsv(app.db, link.id, from ?? null, end))
  })

  // One import at a time per account (on this instance), refused before its body is read: each
  // holds its file as text and parses it whole, so ten at once from one key took 1.4 GB.
  const importing = new Set<number>()
  const holders = new WeakSet<FastifyRequest>()
  const release = async (req: FastifyRequest) => {
    if (holders.delete(req)) importing.delete(req.user.id)
  }
  const claim = async (req: FastifyRequest, reply: FastifyReply) => {
    if (importing.has(req.user.id)) throw conflict('An import is already running for this account: wait for it to finish (or cancel it), then send this file.')
    // a client already gone takes no place: it would never be given back
    if (!whenRequestEnds(req, reply, () => void release(req))) return
    importing.add(req.user.id)
    holders.add(req)
  }

  // POST /api/urls/import?format=csv|bitly|yourls|shlink|kutt – the file as the body (text/csv or application/json)
  const once = { onRequest: claim, onResponse: release }
  r.post('/api/urls/import', { schema: { querystring: importQuery }, bodyLimit: IMPORT_BODY_LIMIT, errorHandler: importErrorHandler, ...once }, async (req, reply) => {
    const type = mediaType(req)
    if (type !== 'text/csv' && type !== 'application/json') throw unsupportedType(type)
    if (req.body === undefined || req.body === null || req.body === '') throw new ApiError(400, 'The file is empty: send it as the request body.')
    // a client that goes away (the dashboard's Cancel) stops the import after the chunk being written
    const gone = new AbortController()
    reply.raw.once('close', () => {
      if (!reply.raw.writableEnded) gone.abort()
    })
    const file = type === 'text/csv' ? { csv: req.body as string } : { json: req.body }
    const result = await importLinks(app, req.user, req.query.format, file, { counted: true, signal: gone.signal })
    if (gone.signal.aborted) req.log.info({ imported: result.imported, skipped: result.skipped }, 'import stopped: the client went away')
    return { error: 0, ...result }
  })
}
export default transfer
