import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { z } from 'zod'
import type { ZodTypeProvider } from '../../http/zod.js'
import { badRequest } from '../../http/errors.js'
import { optional } from '../../http/fields.js'
import { messagePage, notFoundPage } from '../../lib/html.js'
import { Throttle } from '../../lib/throttle.js'
import { addressBlock } from '../../lib/address-block.js'
import { MINUTE } from '../../lib/time.js'
import { answerWhenSpooled } from '../../visit/answer.js'
import { visitorFromRequest } from '../../visit/visitor.js'
import { parseColour, type Rgb } from '../../lib/colour.js'
import { DEFAULT_SIZE, etagOf, isRendered, MAX_SIZE, MIN_SIZE, renderKey, renderQr, type ImageFormat, type RenderOptions } from './render.js'
import * as repo from './repo.js'

/**
 * Images drawn (not served from the cache) per visitor address a minute. Every colour and size is
 * another image, so without it one client could keep both render slots busy for everyone.
 */
export const QR_RENDERS_PER_MINUTE = 60

const SIZE_MESSAGE = `size must be a whole number of pixels from ${MIN_SIZE} to ${MAX_SIZE}.`

function parseSize(v: string): number | null {
  if (!/^\d{1,6}$/.test(v)) return null
  const n = Number(v)
  return n >= MIN_SIZE && n <= MAX_SIZE ? n : null
}

const colour = (field: string) =>
  z.string().transform((v, ctx) => {
    const c = parseColour(v)
    if (c) return c
    ctx.addIssue({ code: 'custom', message: `${field} must be a colour like rgb(255,255,255) or #ffffff.` })
    return z.NEVER
  })

const imageQuery = z.object({
  size: optional(
    z.string({ message: SIZE_MESSAGE }).transform((v, ctx) => {
      const n = parseSize(v.trim())
      if (n !== null) return n
      ctx.addIssue({ code: 'custom', message: SIZE_MESSAGE })
      return z.NEVER
    }),
  ),
  format: optional(
    z
      .string({ message: 'format must be png or svg.' })
      .transform((v) => v.trim().toLowerCase())
      .pipe(z.enum(['png', 'svg'], { message: 'format must be png or svg.' })),
  ),
  foreground: optional(colour('foreground')),
  background: optional(colour('background')),
})
type ImageQuery = z.output<typeof imageQuery>

const QR_ALIAS = /^[A-Za-z0-9]{1,64}$/
const LINK_ALIAS = /^[A-Za-z0-9_-]{1,64}$/
const BLACK: Rgb = { r: 0, g: 0, b: 0 }
const WHITE: Rgb = { r: 255, g: 255, b: 255 }

/** host[:port] as stored in domains.host: lower-case, no trailing dot, no default port. */
function requestHost(req: FastifyRequest): string {
  return (req.host ?? '').toLowerCase().replace(/\.(?=:|$)/, '').replace(/:(80|443)$/, '')
}

function matchesEtag(req: FastifyRequest, etag: string): boolean {
  const header = req.headers['if-none-match']
  if (!header) return false
  return header.split(',').some((t) => {
    const tag = t.trim().replace(/^W\//, '')
    return tag === etag || tag === '*'
  })
}

/**
 * Serves a rendered image with validators; a matching If-None-Match is a 304 without rendering, a
 * cached image is served to anyone, and a new one counts against the address's render budget.
 */
async function sendImage(req: FastifyRequest, reply: FastifyReply, renders: Throttle, content: string, o: RenderOptions, filename: string) {
  const etag = etagOf(renderKey(content, o))
  reply.header('etag', etag).header('cache-control', 'public, max-age=300').header('x-content-type-options', 'nosniff')
  if (matchesEtag(req, etag)) return reply.code(304).send()
  if (!isRendered(content, o) && !(await renders.take(addressBlock(req.ip)))) {
    reply.header('retry-after', 60).header('cache-control', 'no-store').removeHeader('etag')
    return messagePage(reply, 429, 'Too many QR images', 'This address has asked for many different QR images in the last minute. Try again in a minute.')
  }
  const image = await renderQr(content, o)
  reply.type(image.contentType).header('content-disposition', `inline; filename="${filename}.${o.format}"`)
  // an SVG opened on its own is a document: it may show its embedded logo, and nothing else
  if (o.format === 'svg') reply.header('content-security-policy', "default-src 'none'; img-src data:; style-src 'unsafe-inline'")
  return reply.send(image.body)
}

/** A size given in the path (`/qr/<alias>/<size>`), refused with the same message as `?size=`. */
function pathSize(param: string | undefined): number | undefined {
  if (param === undefined) return undefined
  const n = parseSize(param)
  if (n === null) throw badRequest(SIZE_MESSAGE, 'size')
  return n
}

function options(q: ImageQuery, size: number | undefined, stored: { foreground?: string; background?: string } = {}): Omit<RenderOptions, 'logo'> {
  return {
    size: size ?? q.size ?? DEFAULT_SIZE,
    format: (q.format ?? 'png') as ImageFormat,
    foreground: q.foreground ?? (stored.foreground ? parseColour(stored.foreground) : null) ?? BLACK,
    background: q.background ?? (stored.background ? parseColour(stored.background) : null) ?? WHITE,
  }
}

/**
 * Public QR paths (DECISIONS §5): images of QR codes and of links, and the tracked scan.
 * Registered at the root, before the redirect plugin's /:alias routes.
 */
const qrPublic: FastifyPluginAsync = async (app) => {
  const r = app.withTypeProvider<ZodTypeProvider>()
  const renders = new Throttle('qr-render', QR_RENDERS_PER_MINUTE, MINUTE, app.redis)

  // GET /qr/:alias and /qr/:alias/:size – a QR code's image (PNG, ?format=svg, ?size=64..1024, colour overrides)
  const qrImage = async (req: FastifyRequest<{ Params: { alias: string; size?: string } }>, reply: FastifyReply) => {
    const size = pathSize(req.params.size)
    const alias = req.params.alias
    const qr = QR_ALIAS.test(alias) ? await repo.findQrByAlias(app.db, alias) : undefined
    if (!qr) return notFoundPage(reply)
    const logo = qr.logoHash ? { key: qr.logoHash, load: () => repo.qrLogo(app.db, qr.id) } : null
    return sendImage(req, reply, renders, qr.content, { ...options(req.query as ImageQuery, size, qr), logo }, `qr-${qr.alias}`)
  }
  r.get('/qr/:alias', { schema: { querystring: imageQuery } }, qrImage)
  r.get('/qr/:alias/:size', { schema: { querystring: imageQuery } }, qrImage)

  // GET /:alias/qr and /:alias/qr/:size – a link's QR code, encoding its short URL on this host
  const linkImage = async (req: FastifyRequest<{ Params: { alias: string; size?: string } }>, reply: FastifyReply) => {
    const query = req.query as ImageQuery
    const size = pathSize(req.params.size)
    const alias = req.params.alias
    const link = LINK_ALIAS.test(alias) ? await repo.findLinkOnHost(app.db, requestHost(req), app.config.defaultHost, alias) : undefined
    if (!link || link.disabled) return notFoundPage(reply)
    const shortUrl = `${link.origin ?? app.config.publicUrl}/${link.alias}`
    return sendImage(req, reply, renders, shortUrl, { ...options(query, size), logo: null }, `qr-${link.alias}`)
  }
  r.get('/:alias/qr', { schema: { querystring: imageQuery } }, linkImage)
  r.get('/:alias/qr/:size', { schema: { querystring: imageQuery } }, linkImage)

  // GET /q/:alias – a scan: 302 to the target (vcard: the contact card), counted through the click pipeline
  r.get<{ Params: { alias: string } }>('/q/:alias', async (req, reply) => {
    const alias = req.params.alias
    const qr = QR_ALIAS.test(alias) ? await repo.findQrByAlias(app.db, alias) : undefined
    if (!qr || !qr.target) return notFoundPage(reply) // text and wifi codes encode their content: nothing to scan to
    // HEAD is served but not counted; bots are recorded as bot hits, apart from scans
    if (req.method !== 'HEAD') app.clicks.record({ qrId: qr.id, userId: qr.userId, source: 'qr', visitor: visitorFromRequest(req) })
    return answerWhenSpooled(app.clicks, reply, () => answerScan(reply, qr)) ?? reply
  })
}

/** A scan's answer: a 302 to its target, or a vCard's contact card. */
function answerScan(reply: FastifyReply, qr: { name: string; type: string; target: string }) {
  reply.header('cache-control', 'private, max-age=0')
  if (qr.type === 'vcard') {
    // a phone opening a vCard shows "add contact" (iOS) or hands it to Contacts (Android)
    const file = qr.name.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'contact'
    return reply
      .type('text/vcard; charset=utf-8')
      .header('content-disposition', `inline; filename="${file}.vcf"`)
      .header('x-content-type-options', 'nosniff')
      .send(qr.target)
  }
  return reply.code(302).header('location', qr.target).send()
}
export default qrPublic
