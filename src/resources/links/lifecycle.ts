import { isIP } from 'node:net'
import type { FastifyPluginAsync } from 'fastify'
import { z } from 'zod'
import type { ZodTypeProvider } from '../../http/zod.js'
import { idParam, MAX_ID, optional } from '../../http/fields.js'
import { notFound } from '../../http/errors.js'
import { parseTimestamp } from '../../http/format.js'
import { normalizeCountry } from '../../lib/targets.js'
import { dryRun } from '../../redirect/dry-run.js'
import { invalidateLinks } from '../redirect-cache.js'
import { releaseAlias } from './alias-history.js'
import { presentHealth } from './present.js'
import { findOwnedLink, healthOfOwned } from './repo.js'

/*
 * The link lifecycle endpoints (DECISIONS §10.5) beside the link's own: release an earlier alias,
 * check the long URL now, and the dry-run of a visit.
 */

const aliasParam = idParam.extend({ alias: z.string().max(255, 'must be at most 255 characters.') })

const capped = (max: number) => z.string({ error: 'must be a string.' }).max(max, `must be at most ${max} characters.`)

/** Who the dry-run visitor is; every field optional (an anonymous desktop visit with no headers). */
export const resolveBody = z.object({
  ip: optional(capped(64).refine((v) => isIP(v.trim()) !== 0, 'must be an IPv4 or IPv6 address.').transform((v) => v.trim())),
  country: optional(
    capped(255).transform((v, ctx) => {
      const code = normalizeCountry(v)
      if (code) return code
      ctx.addIssue({ code: 'custom', message: 'is not a known country: use an ISO 3166-1 alpha-2 code such as FR.' })
      return z.NEVER
    }),
  ),
  useragent: optional(capped(512)),
  language: optional(capped(256)),
  referrer: optional(capped(1024)),
  query: optional(capped(8192)),
  at: optional(
    capped(64).transform((v, ctx) => {
      const d = parseTimestamp(v)
      if (d) return d
      ctx.addIssue({ code: 'custom', message: 'must be a date like 2030-12-31 23:59:59 (UTC) or ISO 8601.' })
      return z.NEVER
    }),
  ),
})

/** `ids=1,2,3`: up to 100 link ids, as the dashboard's list page holds them. */
const healthQuery = z.looseObject({
  ids: z
    .string({ error: 'must be a comma-separated list of link ids.' })
    .max(1200, 'must list at most 100 ids.')
    .transform((v, ctx) => {
      const ids = v.split(',').map((p) => p.trim()).filter(Boolean)
      if (ids.length <= 100 && ids.every((p) => /^\d{1,10}$/.test(p) && Number(p) >= 1 && Number(p) <= MAX_ID)) return [...new Set(ids.map(Number))]
      ctx.addIssue({ code: 'custom', message: 'must be a comma-separated list of at most 100 link ids.' })
      return z.NEVER
    }),
})

const lifecycle: FastifyPluginAsync = async (app) => {
  const r = app.withTypeProvider<ZodTypeProvider>()

  // GET /api/urls/health?ids= – details.health of several of the caller's links (the dashboard's list),
  // and whether each is quarantined (the v1 Link object the list reads has no such field); others' ids are left out
  r.get('/api/urls/health', { schema: { querystring: healthQuery } }, async (req) => {
    const rows = await healthOfOwned(app.db, req.user.id, req.query.ids)
    return { error: 0, data: { health: rows.map((row) => ({ id: row.id, ...presentHealth(row), quarantined: row.quarantined })) } }
  })

  // DELETE /api/url/:id/alias/:alias – release an earlier alias: it stops serving the link and is free again
  r.delete('/api/url/:id/alias/:alias', { schema: { params: aliasParam } }, async (req) => {
    const link = await findOwnedLink(app.db, req.user.id, req.params.id)
    if (!link) throw notFound('Link not found.')
    // no alias holds a NUL (Postgres text cannot): one in the path names none, as a bad id does
    const held = !req.params.alias.includes('\u0000') && (await releaseAlias(app.db, link.id, req.params.alias))
    if (!held) throw notFound('That is not an earlier alias of this link.')
    await invalidateLinks(app, [link.id])
    return { error: 0, message: 'The alias has been released.' }
  })

  // POST /api/url/:id/check – check the long URL now; answers details.health
  r.post('/api/url/:id/check', { schema: { params: idParam } }, async (req) => {
    const link = await findOwnedLink(app.db, req.user.id, req.params.id)
    if (!link) throw notFound('Link not found.')
    await app.healthChecker.checkNow(link.id, link.url)
    const after = await findOwnedLink(app.db, req.user.id, link.id)
    if (!after) throw notFound('Link not found.')
    const health = presentHealth(after)
    // "answers the same object" (DECISIONS 10.5): details.health itself beside `error`, and under
    // `data` as the other lifecycle answers carry theirs
    return { error: 0, ...health, data: health }
  })

  // POST /api/url/:id/resolve – what a visit by the described visitor would get; records nothing
  r.post('/api/url/:id/resolve', { schema: { params: idParam, body: resolveBody.optional() } }, async (req) => {
    const owned = await findOwnedLink(app.db, req.user.id, req.params.id)
    if (!owned) throw notFound('Link not found.')
    // the redirect's own copy of the link (its live clicks and rotation position included)
    const link = await app.linkCache.byId(owned.id)
    if (!link) throw notFound('Link not found.')
    return { error: 0, data: dryRun(link, req.body ?? {}, app.config.redirect.status) }
  })
}

export default lifecycle
