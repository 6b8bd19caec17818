import type { FastifyPluginAsync } from 'fastify'
import formbody from '@fastify/formbody'
import { BODY_LIMIT } from '../../http/body.js'
import { notFound } from '../../http/errors.js'
import type { ZodTypeProvider } from '../../http/zod.js'
import { v1ErrorHandler } from './errors.js'
import { parseForm } from './form.js'
import { presentV1Links } from './present.js'
import { findLink, listLinks } from './repo.js'
import { idParams, LIST_PARAMS, listQuery, type ListQuery } from './schemas.js'

/**
 * Link interface v1: another door to the same links, accounts and keys (DECISIONS §8). Bodies
 * are form-encoded with bracketed arrays, or JSON with the same names; failures carry `status`,
 * and validation failures are 422 with `errors`.
 */
const v1Links: FastifyPluginAsync = async (app) => {
  app.setErrorHandler(v1ErrorHandler)
  await app.register(formbody, { bodyLimit: BODY_LIMIT, parser: parseForm })
  const r = app.withTypeProvider<ZodTypeProvider>()
  const { config, db } = app

  const one = async (userId: number, id: number) => {
    const link = await findLink(db, userId, id)
    if (!link) throw notFound('Link not found.')
    const [data] = await presentV1Links(db, config, [link])
    return data
  }

  // GET /api/v1/links – the caller's links, filtered, sorted and paginated (Laravel's shape)
  r.get('/api/v1/links', { schema: { querystring: listQuery } }, async (req) => {
    const q = req.query
    const { rows, total } = await listLinks(db, req.user.id, q)
    const data = await presentV1Links(db, config, rows)
    const lastPage = Math.max(1, Math.ceil(total / q.per_page))
    const from = (q.page - 1) * q.per_page
    const path = `${config.publicUrl}/api/v1/links`
    const pageUrl = (page: number) => `${path}?${pageQueryString(req.query as ListQuery, req.raw.url ?? '', page)}`
    return {
      error: '0',
      data,
      links: {
        first: pageUrl(1),
        last: pageUrl(lastPage),
        prev: q.page > 1 ? pageUrl(Math.min(q.page - 1, lastPage)) : null,
        next: q.page < lastPage ? pageUrl(q.page + 1) : null,
      },
      meta: {
        current_page: q.page,
        from: data.length ? from + 1 : null,
        last_page: lastPage,
        path,
        per_page: q.per_page,
        to: data.length ? from + data.length : null,
        total,
      },
      status: 200,
    }
  })

  // GET /api/v1/links/:id – one of the caller's links
  r.get('/api/v1/links/:id', { schema: { params: idParams } }, async (req) => ({
    error: 0,
    data: await one(req.user.id, req.params.id),
    status: 200,
  }))
}
export default v1Links

/** The filters the caller sent (as sent, blank ones dropped), then the page: Laravel's appends(). */
function pageQueryString(_q: ListQuery, rawUrl: string, page: number): string {
  const sent = new URLSearchParams(rawUrl.split('?')[1] ?? '')
  const out = new URLSearchParams()
  for (const name of LIST_PARAMS) {
    const v = sent.get(name)
    if (v !== null && v !== '') out.set(name, v)
  }
  out.set('page', String(page))
  return out.toString()
}
