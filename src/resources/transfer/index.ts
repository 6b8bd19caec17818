import { Readable } from 'node:stream'
import type { FastifyPluginAsync, FastifyReply } from 'fastify'
import { and, eq } from 'drizzle-orm'
import { z } from 'zod'
import type { ZodTypeProvider } from '../../http/zod.js'
import { links } from '../../db/schema/index.js'
import { requireFeature } from '../../http/auth.js'
import { ApiError, notFound } from '../../http/errors.js'
import { idParam, optional } from '../../http/fields.js'
import { parseTimestamp, toDay } from '../../http/format.js'
import { clicksCsv, linksCsv } from './export.js'
import { IMPORT_FORMATS } from './formats.js'
import { importLinks } from './import.js'

/** An import file may be large; every other body stays at the 1 MiB of DECISIONS §2. */
export const IMPORT_BODY_LIMIT = 20 * 1024 * 1024

const day = (field: string) =>
  z.string({ message: `${field} must be a date like 2030-12-31.` }).transform((v, ctx) => {
    const d = /^\d{4}-\d{2}-\d{2}$/.test(v) ? parseTimestamp(v) : null
    if (d) return d
    ctx.addIssue({ code: 'custom', message: `${field} must be a date like 2030-12-31.` })
    return z.NEVER
  })
const clicksQuery = z.object({ from: optional(day('from')), to: optional(day('to')) })
const importQuery = z.object({
  format: optional(z.enum(IMPORT_FORMATS, { message: `must be one of ${IMPORT_FORMATS.join(', ')}.` })).transform((f) => f ?? 'csv'),
})

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
    const end = to ? new Date(to.getTime() + 86_400_000) : null
    return sendCsv(reply, `kurz-clicks-${link.id}`, clicksCsv(app.db, link.id, from ?? null, end))
  })

  // POST /api/urls/import?format=csv|bitly|yourls|shlink|kutt – the file as the body (text/csv or application/json)
  r.post('/api/urls/import', { schema: { querystring: importQuery }, bodyLimit: IMPORT_BODY_LIMIT }, async (req) => {
    const type = String(req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase()
    if (type !== 'text/csv' && type !== 'application/json') {
      throw new ApiError(415, 'Send the file as text/csv or application/json.')
    }
    if (req.body === undefined || req.body === null || req.body === '') throw new ApiError(400, 'The file is empty: send it as the request body.')
    const result = await importLinks(app, req.user, req.query.format, req.body)
    return { error: 0, ...result }
  })
}
export default transfer
