import type { FastifyPluginAsync } from 'fastify'
import { z } from 'zod'
import { QR_TYPES, type QrType } from '../../db/schema/index.js'
import type { ZodTypeProvider } from '../../http/zod.js'
import { idParam, name, optional, clearable } from '../../http/fields.js'
import { pageQuery, listResponse } from '../../http/pagination.js'
import { badRequest, notFound } from '../../http/errors.js'
import { toDay } from '../../http/format.js'
import { qrStats } from '../../clicks/stats.js'
import { parseRange, statsQuery, statsSeries } from '../../clicks/series.js'
import { parseQrData } from './content.js'
import { checkQrUrls } from './urls.js'
import { loadLogo } from './logo.js'
import { contrastRatio, MIN_CONTRAST, parseColour } from '../../lib/colour.js'
import { assertFits, errorLevelFor, formatColour } from './render.js'
import { presentQr, qrImageUrl, qrScanUrl } from './present.js'
import * as repo from './repo.js'
import { enqueueEvent } from '../webhooks/outbox.js'

const DEFAULT_BACKGROUND = 'rgb(255,255,255)'
const DEFAULT_FOREGROUND = 'rgb(0,0,0)'

const type = z
  .string({ message: `type must be one of: ${QR_TYPES.join(', ')}.` })
  .transform((v) => v.trim().toLowerCase())
  .pipe(z.enum(QR_TYPES, { message: `type must be one of: ${QR_TYPES.join(', ')}.` }))

const colour = (field: string) =>
  z.string({ message: `${field} must be a string like rgb(255,255,255).` }).transform((v, ctx) => {
    const c = parseColour(v)
    if (c) return formatColour(c)
    ctx.addIssue({ code: 'custom', message: `${field} must be a colour like rgb(255,255,255), each value from 0 to 255.` })
    return z.NEVER
  })

// a data: URL of 256 KiB is about 350,000 characters of base64; loadLogo checks the decoded size
const logo = z.string({ message: 'logo must be a string: an https:// URL or a data: URL of a PNG or JPEG image.' }).max(600_000, 'logo must be at most 256 KiB.')

const createBody = z.object({
  type,
  data: z.unknown().optional(),
  background: optional(colour('background')),
  foreground: optional(colour('foreground')),
  logo: optional(logo),
  name: optional(name()),
})

const updateBody = z.object({
  type: optional(type),
  data: z.unknown().optional(),
  background: clearable(colour('background')),
  foreground: clearable(colour('foreground')),
  logo: clearable(logo),
  name: clearable(name()),
})

/** `name` default (DECISIONS §7): the type and the creation date. */
const defaultName = (t: QrType, createdAt: Date) => `${t} ${toDay(createdAt)}`

function assertContrast(foreground: string, background: string) {
  if (contrastRatio(parseColour(foreground)!, parseColour(background)!) < MIN_CONTRAST) {
    throw badRequest('foreground and background are too similar for a scanner to tell apart; pick colours with more contrast.', 'foreground')
  }
}

function assertContentFits(content: string, hasLogo: boolean) {
  try {
    assertFits(content, errorLevelFor(hasLogo))
  } catch {
    throw badRequest(`data is too long to fit in a QR code${hasLogo ? ' with a logo' : ''}; shorten it${hasLogo ? ' or drop the logo' : ''}.`, 'data')
  }
}

const qr: FastifyPluginAsync = async (app) => {
  const r = app.withTypeProvider<ZodTypeProvider>()

  // GET /api/qr – the caller's QR codes, newest first, paginated
  r.get('/api/qr', { schema: { querystring: pageQuery } }, async (req) => {
    const { rows, total } = await repo.listQrs(app.db, req.user.id, req.query)
    return listResponse('qrs', rows.map((row) => presentQr(app.config, row)), total, req.query)
  })

  // GET /api/qr/:id – one QR code with its scan statistics
  r.get('/api/qr/:id', { schema: { params: idParam } }, async (req) => {
    const row = await repo.findOwnedQr(app.db, req.user.id, req.params.id)
    if (!row) throw notFound('QR code not found.')
    return { error: 0, details: presentQr(app.config, row), data: await qrStats(app.db, row) }
  })

  // GET /api/qr/:id/design – (extension) what the code was made from, so an editor can start from it;
  // the logo itself stays on the server (only whether there is one)
  r.get('/api/qr/:id/design', { schema: { params: idParam } }, async (req) => {
    const row = await repo.findOwnedQr(app.db, req.user.id, req.params.id)
    if (!row) throw notFound('QR code not found.')
    return { error: 0, data: { type: row.type, data: row.data, background: row.background, foreground: row.foreground, logo: row.logoHash !== null, name: row.name } }
  })

  // GET /api/qr/:id/stats – scans over time, range totals and top lists, from rollups (DECISIONS §10.2)
  r.get('/api/qr/:id/stats', { schema: { params: idParam, querystring: statsQuery } }, async (req) => {
    const row = await repo.findOwnedQr(app.db, req.user.id, req.params.id)
    if (!row) throw notFound('QR code not found.')
    return { error: 0, data: await statsSeries(app.db, `q${row.id}`, parseRange(req.query)) }
  })

  // POST /api/qr/add – create a QR code
  r.post('/api/qr/add', { schema: { body: createBody } }, async (req) => {
    const body = req.body
    const parsed = parseQrData(body.type, body.data)
    await checkQrUrls(app, parsed)
    const background = body.background ?? DEFAULT_BACKGROUND
    const foreground = body.foreground ?? DEFAULT_FOREGROUND
    assertContrast(foreground, background)
    if (parsed.content !== null) assertContentFits(parsed.content, body.logo !== undefined)
    const stored = body.logo !== undefined ? await loadLogo(body.logo, { allowPrivate: app.config.allowPrivateTargets }) : null
    const createdAt = new Date()
    // the qr.created outbox row commits with the QR code (webhooks/outbox.ts)
    const { id, alias } = await app.db.transaction(async (tx) => {
      const made = await repo.insertQr(
        tx,
        {
          userId: req.user.id,
          type: body.type,
          data: parsed.data,
          target: parsed.target,
          name: body.name ?? defaultName(body.type, createdAt),
          background,
          foreground,
          logo: stored?.dataUrl ?? null,
          logoHash: stored?.hash ?? null,
          createdAt,
        },
        (a) => parsed.content ?? qrScanUrl(app.config, a),
      )
      await enqueueEvent(tx, req.user.id, 'qr.created', { ...presentQr(app.config, { ...made, scans: 0, name: body.name ?? defaultName(body.type, createdAt), createdAt }), type: body.type })
      return made
    })
    return { error: 0, id, link: qrImageUrl(app.config, alias) }
  })

  // PUT /api/qr/:id/update – new data (required), colours, logo, name; the type may change
  r.put('/api/qr/:id/update', { schema: { params: idParam, body: updateBody } }, async (req) => {
    const body = req.body
    const row = await repo.findOwnedQr(app.db, req.user.id, req.params.id)
    if (!row) throw notFound('QR code not found.')
    const newType = body.type ?? row.type
    const parsed = parseQrData(newType, body.data)
    await checkQrUrls(app, parsed)
    const background = body.background === undefined ? row.background : (body.background ?? DEFAULT_BACKGROUND)
    const foreground = body.foreground === undefined ? row.foreground : (body.foreground ?? DEFAULT_FOREGROUND)
    assertContrast(foreground, background)
    const hasLogo = body.logo === undefined ? row.logoHash !== null : body.logo !== null
    if (parsed.content !== null) assertContentFits(parsed.content, hasLogo)
    const stored = typeof body.logo === 'string' ? await loadLogo(body.logo, { allowPrivate: app.config.allowPrivateTargets }) : null
    const updated = await repo.updateQr(app.db, req.user.id, row.id, {
      type: newType,
      data: parsed.data,
      target: parsed.target,
      content: parsed.content ?? qrScanUrl(app.config, row.alias),
      background,
      foreground,
      ...(body.logo === undefined ? {} : { logo: stored?.dataUrl ?? null, logoHash: stored?.hash ?? null }),
      ...(body.name === undefined ? {} : { name: body.name ?? defaultName(newType, row.createdAt) }),
    })
    if (!updated) throw notFound('QR code not found.')
    return { error: 0, message: 'QR code has been updated successfully.' }
  })

  // DELETE /api/qr/:id/delete – the QR code, its scans and its channel items
  r.delete('/api/qr/:id/delete', { schema: { params: idParam } }, async (req) => {
    if (!(await repo.deleteQr(app.db, req.user.id, req.params.id))) throw notFound('QR code not found.')
    return { error: 0, message: 'QR code has been deleted successfully.' }
  })
}
export default qr
