import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import formbody from '@fastify/formbody'
import { Throttle } from '../../lib/throttle.js'
import { addressBlock } from '../../lib/address-block.js'
import { HOUR, MINUTE } from '../../lib/time.js'
import { shortUrlOf } from '../../lib/short-url.js'
import { messagePage } from '../../lib/html.js'
import { REPORT_REASONS, reportForm, reportThanks, type ReportReason } from './page.js'
import { insertReport } from './repo.js'
import { CONTROL_CHARS } from '../../http/fields.js'

/** Stored aliases are [A-Za-z0-9_-] (DECISIONS §4): anything else can only be a miss. */
const ALIAS = /^[A-Za-z0-9_-]{1,128}$/
/** Reports per address (lib/address-block) an hour: enough for an honest visitor, too few to flood the admins' list. */
export const REPORTS_PER_HOUR = 5
/**
 * Reports of one link kept waiting: enough for an admin to see it is reported by many, where
 * thousands of addresses reporting it would add rows and nothing else.
 */
export const REPORTS_PER_LINK = 20
/**
 * Reports stored a minute, from everyone: the per-IP budget alone let 5,000 addresses store
 * 18,933 reports in 20 s. A day of this is 86,400 rows at most, and honest reports come far slower.
 */
export const REPORTS_PER_MINUTE = 60
const MAX_COMMENT = 2000

function field(body: unknown, name: string): string {
  const v = body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined
  return typeof v === 'string' ? v : ''
}

/**
 * `/<alias>/report`: anyone can report a short link (DECISIONS §10.6). GET shows the form, POST
 * stores the report (throttled per address). A path that names no link gets exactly what it got before
 * this route existed (the not-found handler), so reserved paths such as `/api/report` are unchanged.
 */
const reportPages: FastifyPluginAsync = async (app) => {
  await app.register(formbody, { bodyLimit: 16 * 1024 })
  const throttle = new Throttle('link-report', REPORTS_PER_HOUR, HOUR, app.redis)
  const everyone = new Throttle('link-report-all', REPORTS_PER_MINUTE, MINUTE, app.redis)

  async function linkOf(req: FastifyRequest<{ Params: { alias: string } }>) {
    const alias = req.params.alias
    if (!ALIAS.test(alias)) return null
    const domain = await app.linkCache.domainFor(req.host)
    const link = await app.linkCache.byAlias(domain?.id ?? null, alias)
    if (!link || link.disabled) return null
    return { link, shortUrl: shortUrlOf(app.config, link, domain ? { domain: domain.origin } : null) }
  }

  const action = (req: FastifyRequest<{ Params: { alias: string } }>) => `/${req.params.alias}/report`

  // GET /:alias/report – the report form
  app.get<{ Params: { alias: string } }>('/:alias/report', async (req, reply) => {
    const found = await linkOf(req)
    if (!found) return reply.callNotFound()
    return reportForm(reply, 200, { shortUrl: found.shortUrl, action: action(req) })
  })

  // POST /:alias/report – store a report
  app.post<{ Params: { alias: string } }>('/:alias/report', async (req, reply: FastifyReply) => {
    const found = await linkOf(req)
    if (!found) return reply.callNotFound()
    const values = { reason: field(req.body, 'reason'), comment: field(req.body, 'comment').trim(), email: field(req.body, 'email').trim() }
    const form = { shortUrl: found.shortUrl, action: action(req), values }
    if (!Object.hasOwn(REPORT_REASONS, values.reason)) return reportForm(reply, 400, { ...form, error: 'Choose what is wrong with the link.' })
    if (values.comment.length > MAX_COMMENT) return reportForm(reply, 400, { ...form, error: `Details must be at most ${MAX_COMMENT} characters.` })
    // line breaks are welcome in the details; other control characters (a NUL above all, which Postgres cannot store) are not
    if (CONTROL_CHARS.test(values.comment)) {
      return reportForm(reply, 400, { ...form, error: 'Details must not contain control characters.' })
    }
    if (values.email && (values.email.length > 254 || !/^[^\s@\u0000-\u001f\u007f]+@[^\s@\u0000-\u001f\u007f]+$/.test(values.email))) {
      return reportForm(reply, 400, { ...form, error: 'That email address does not look right.' })
    }
    // counted before it is stored, so a burst cannot slip past the budget
    const address = addressBlock(req.ip)
    if (!(await throttle.take(address))) {
      reply.header('retry-after', Math.ceil(HOUR / 1000))
      return messagePage(reply, 429, 'Too many reports', 'You have sent many reports in a short time. Try again in an hour.')
    }
    const all = await everyone.attempt('all')
    if (!all.ok) {
      // not this visitor's doing: their own budget is kept for when there is room
      await throttle.giveBack(address)
      reply.header('retry-after', Math.ceil(all.retryMs / 1000))
      return messagePage(reply, 429, 'Too many reports', 'Many reports are arriving right now. Try again in a minute.')
    }
    const report = {
      linkId: found.link.id,
      shortUrl: found.shortUrl,
      reason: values.reason as ReportReason,
      comment: values.comment || null,
      email: values.email || null,
    }
    const stored = await insertReport(app.db, report, REPORTS_PER_LINK)
    // a report of a link already reported enough takes no room from other links' reports
    if (!stored) await everyone.giveBack('all')
    return reportThanks(reply, stored)
  })
}
export default reportPages
