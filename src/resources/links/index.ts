import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import { queryError, type ZodTypeProvider } from '../../http/zod.js'
import type { AuthUser } from '../../http/auth.js'
import { idParam } from '../../http/fields.js'
import { nameField, notFound } from '../../http/errors.js'
import { listResponse } from '../../http/pagination.js'
import { linkStats } from '../../clicks/stats.js'
import { parseRange, statsQuery, statsSeries } from '../../clicks/series.js'
import { createBody, detailQuery, listQuery, managementName, toLinkInput, updateBody, urlsQuery } from './schemas.js'
import { createLink } from './create.js'
import { deleteLink } from './delete.js'
import { updateLink } from './update.js'
import * as repo from './repo.js'
import { shortUrlOf } from '../../lib/short-url.js'
import { presentLinkDetails, presentLinkListItem } from './present.js'
import { aliasesOf } from './alias-history.js'
import lifecycle from './lifecycle.js'

/** The write service names fields by LinkInput key; this interface's callers know them by its body's names. */
const named = (err: unknown) => {
  throw nameField(err, managementName)
}

/** SPEC.md single link form: `{id, details, data}` (the caller adds `error`). */
async function singleForm(app: FastifyInstance, link: repo.Link, full = false) {
  const [rel, data, aliases] = await Promise.all([
    repo.linkRelations(app.db, link),
    linkStats(app.db, link),
    full ? aliasesOf(app.db, link.id) : [],
  ])
  return { id: link.id, details: presentLinkDetails(app.config, link, rel, full, aliases), data }
}

/**
 * `short` as a client sends it: a full short URL on any of the caller's domains, `host/alias`
 * without a scheme, or a bare alias (the default domain's first).
 */
async function findByShort(app: FastifyInstance, user: AuthUser, short: string): Promise<repo.Link | undefined> {
  const value = short.trim()
  if (!value.includes('/')) return repo.findOwnedLinkOnAnyDomain(app.db, user.id, value.replace(/\+$/, ''))
  let parsed: URL
  try {
    parsed = new URL(/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(value) ? value : `http://${value}`)
  } catch {
    return undefined
  }
  if (parsed.search || parsed.hash) return undefined
  let alias: string
  try {
    alias = decodeURIComponent(parsed.pathname.replace(/^\/+/, '').replace(/\/+$/, '')).replace(/\+$/, '')
  } catch {
    return undefined
  }
  if (!alias || alias.includes('/')) return undefined
  const host = parsed.host.toLowerCase().replace(/\.(?=$|:)/, '')
  if (host === app.config.defaultHost) return repo.findOwnedLinkByAlias(app.db, user.id, null, alias)
  const domain = (await repo.ownedDomains(app.db, user.id)).find((d) => d.host === host)
  return domain ? repo.findOwnedLinkByAlias(app.db, user.id, domain.id, alias) : undefined
}

const links: FastifyPluginAsync = async (app) => {
  const r = app.withTypeProvider<ZodTypeProvider>()
  await app.register(lifecycle)

  // GET /api/urls – the caller's links (limit, page, order, q), or one link by `short`
  r.get('/api/urls', { schema: { querystring: urlsQuery } }, async (req) => {
    if (req.query.short !== undefined) {
      const link = await findByShort(app, req.user, req.query.short)
      if (!link) throw notFound('No link of yours has that short URL.')
      return { error: '0' as const, ...(await singleForm(app, link)) }
    }
    const parsed = listQuery.safeParse(req.query)
    if (!parsed.success) throw queryError(parsed.error, req.query)
    const { rows, total } = await repo.listLinks(app.db, req.user.id, parsed.data)
    return listResponse('urls', rows.map((row) => presentLinkListItem(app.config, row.link, row.domain)), total, parsed.data)
  })

  // GET /api/url/:id – one link with its statistics (`full=1` adds the stored settings)
  r.get('/api/url/:id', { schema: { params: idParam, querystring: detailQuery } }, async (req) => {
    const link = await repo.findOwnedLink(app.db, req.user.id, req.params.id)
    if (!link) throw notFound('Link not found.')
    return { error: 0, ...(await singleForm(app, link, req.query.full ?? false)) }
  })

  // GET /api/url/:id/stats – clicks over time, range totals and top lists, from rollups (DECISIONS §10.2)
  r.get('/api/url/:id/stats', { schema: { params: idParam, querystring: statsQuery } }, async (req) => {
    const link = await repo.findOwnedLink(app.db, req.user.id, req.params.id)
    if (!link) throw notFound('Link not found.')
    return { error: 0, data: await statsSeries(app.db, `l${link.id}`, parseRange(req.query)) }
  })

  // POST /api/url/add – shorten a URL
  r.post('/api/url/add', { schema: { body: createBody } }, async (req) => {
    const link = await createLink(app, req.user, toLinkInput(req.body)).catch(named)
    const short = shortUrlOf(app.config, link, await repo.findDomain(app.db, link.domainId))
    return { error: 0, id: link.id, shorturl: short, short }
  })

  // PUT /api/url/:id/update – change the fields sent, keep the others
  r.put('/api/url/:id/update', { schema: { params: idParam, body: updateBody } }, async (req) => {
    const link = await updateLink(app, req.user, req.params.id, toLinkInput(req.body)).catch(named)
    return { error: 0, id: link.id, short: shortUrlOf(app.config, link, await repo.findDomain(app.db, link.domainId)) }
  })

  // DELETE /api/url/:id/delete – the link, its clicks and its channel items
  r.delete('/api/url/:id/delete', { schema: { params: idParam } }, async (req) => {
    if (!(await deleteLink(app, req.user, req.params.id))) throw notFound('Link not found.')
    return { error: 0, message: 'Link has been deleted successfully.' }
  })
}

export default links
