import type { FastifyPluginAsync } from 'fastify'
import { z } from 'zod'
import type { ZodTypeProvider } from '../../http/zod.js'
import { domains } from '../../db/schema/index.js'
import { requireCount, requireFeature } from '../../http/auth.js'
import { badRequest, notFound } from '../../http/errors.js'
import { clearable, idParam, optional, urlField } from '../../http/fields.js'
import { pageQuery, listResponse } from '../../http/pagination.js'
import { comparableHost } from '../../lib/url.js'
import { lockOwner } from '../../db/lock.js'
import { invalidateDomain, invalidateLinks } from '../redirect-cache.js'
import { forgetBrandedHosts } from './hosts.js'
import { refuseBlocked } from '../blocklist/check.js'
import { checkOrigin } from './origin.js'
import { presentDomain } from './present.js'
import * as repo from './repo.js'

const createBody = z.object({
  domain: z.string({ message: 'domain must be a string like https://go.example.com.' }),
  redirectroot: optional(urlField('redirectroot')),
  redirect404: optional(urlField('redirect404')),
})
const updateBody = z.object({
  redirectroot: clearable(urlField('redirectroot')),
  redirect404: clearable(urlField('redirect404')),
})

/** A redirect back onto the domain itself would send visitors round in circles. */
function refuseLoop(field: string, url: string | null | undefined, hostname: string) {
  if (!url || !/^https?:/i.test(url)) return
  if (comparableHost(new URL(url).hostname) === comparableHost(hostname)) {
    throw badRequest(`${field} must not point back at the domain itself.`, field)
  }
}

const domainsPlugin: FastifyPluginAsync = async (app) => {
  const r = app.withTypeProvider<ZodTypeProvider>()

  // GET /api/domains – the caller's branded domains, newest first
  r.get('/api/domains', { schema: { querystring: pageQuery } }, async (req) => {
    const { rows, total } = await repo.listDomains(app.db, req.user.id, req.query)
    return listResponse('domains', rows.map(presentDomain), total, req.query)
  })

  // POST /api/domain/add – add a branded domain (feature `domain` with its count; a second one needs `multiple`)
  r.post('/api/domain/add', { schema: { body: createBody } }, async (req) => {
    const checked = checkOrigin(req.body.domain, app.config.defaultHost)
    if (!checked.ok) throw badRequest(checked.message, 'domain')
    const { redirectroot, redirect404 } = req.body
    refuseLoop('redirectroot', redirectroot, checked.hostname)
    refuseLoop('redirect404', redirect404, checked.hostname)
    await refuseBlocked(app.db, [{ field: 'redirectroot', url: redirectroot }, { field: 'redirect404', url: redirect404 }])
    requireFeature(req.user, 'domain')
    const domain = await app.db.transaction(async (tx) => {
      await lockOwner(tx, req.user.id)
      if ((await repo.countDomains(tx, req.user.id)) >= 1) requireFeature(req.user, 'multiple')
      await requireCount(tx, req.user, 'domain', domains)
      return repo.insertDomain(tx, req.user.id, {
        domain: checked.origin,
        host: checked.host,
        redirectRoot: redirectroot ?? null,
        redirect404: redirect404 ?? null,
      })
    })
    // the host may be cached as "not a branded domain" from an earlier visit
    forgetBrandedHosts(app.db)
    await invalidateDomain(app, domain.id)
    return { error: 0, id: domain.id }
  })

  // PUT /api/domain/:id/update – change redirectroot / redirect404 ("" or null clears)
  r.put('/api/domain/:id/update', { schema: { params: idParam, body: updateBody } }, async (req) => {
    const current = await repo.findOwnedDomain(app.db, req.user.id, req.params.id)
    if (!current) throw notFound('Domain not found.')
    const hostname = new URL(current.domain).hostname
    refuseLoop('redirectroot', req.body.redirectroot, hostname)
    refuseLoop('redirect404', req.body.redirect404, hostname)
    await refuseBlocked(app.db, [{ field: 'redirectroot', url: req.body.redirectroot }, { field: 'redirect404', url: req.body.redirect404 }])
    const changes: { redirectRoot?: string | null; redirect404?: string | null } = {}
    if (req.body.redirectroot !== undefined) changes.redirectRoot = req.body.redirectroot
    if (req.body.redirect404 !== undefined) changes.redirect404 = req.body.redirect404
    if (!(await repo.updateDomain(app.db, req.user.id, req.params.id, changes))) throw notFound('Domain not found.')
    await invalidateDomain(app, req.params.id)
    return { error: 0, message: 'Domain has been updated successfully.' }
  })

  // DELETE /api/domain/:id/delete – delete a domain; its links move to the default domain
  r.delete('/api/domain/:id/delete', { schema: { params: idParam } }, async (req) => {
    const deleted = await repo.deleteDomain(app.db, req.user.id, req.params.id)
    if (!deleted) throw notFound('Domain not found.')
    forgetBrandedHosts(app.db)
    await invalidateDomain(app, req.params.id)
    await invalidateLinks(app, deleted.movedLinkIds)
    const renamed = deleted.renamed.length
    return {
      error: 0,
      message:
        'Domain has been deleted successfully; its links moved to the default domain' +
        (renamed ? ` (${renamed} of them got a new alias because theirs was already taken there).` : '.'),
    }
  })
}
export default domainsPlugin
