import type { FastifyPluginAsync } from 'fastify'
import formbody from '@fastify/formbody'
import { BODY_LIMIT } from '../../http/body.js'
import { ApiError, nameField, notFound } from '../../http/errors.js'
import type { AuthUser } from '../../http/auth.js'
import type { ZodTypeProvider } from '../../http/zod.js'
import { createLink } from '../links/create.js'
import { deleteLink } from '../links/delete.js'
import type { LinkInput } from '../links/model.js'
import { findOwnedLink, type Link } from '../links/repo.js'
import { updateLink } from '../links/update.js'
import { v1ErrorHandler } from './errors.js'
import { readV1Body, v1Name, type V1Names } from './fields.js'
import { parseForm } from './form.js'
import { presentV1Links } from './present.js'
import { listLinks, targetCounts } from './repo.js'
import { idParams, LIST_PARAMS, listQuery } from './schemas.js'

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

  const owned = async (user: AuthUser, id: number) => {
    const link = await findOwnedLink(db, user.id, id)
    if (!link) throw notFound('Link not found.')
    return link
  }
  const present = async (link: Link) => (await presentV1Links(db, config, [link]))[0]

  // GET /api/v1/links – the caller's links, filtered, sorted and paginated (Laravel's shape)
  r.get('/api/v1/links', { schema: { querystring: listQuery } }, async (req) => {
    const q = req.query
    const { rows, total } = await listLinks(db, req.user.id, q)
    const data = await presentV1Links(db, config, rows)
    const lastPage = Math.max(1, Math.ceil(total / q.per_page))
    const from = (q.page - 1) * q.per_page
    const path = `${config.publicUrl}/api/v1/links`
    const pageUrl = (page: number) => `${path}?${pageQueryString(req.raw.url ?? '', page)}`
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
    data: await present(await owned(req.user, req.params.id)),
    status: 200,
  }))

  // POST /api/v1/links – create a link through the one link write service
  r.post('/api/v1/links', async (req, reply) => {
    const { input, names } = readV1Body(req.body, 'create')
    input.disabled ??= false
    input.privacy ??= 0
    requirePrivacyPassword(input, names, null)
    const link = await createLink(app, req.user, input).catch((err: unknown) => {
      throw nameField(err, v1Name(names))
    })
    return reply.code(201).send({ error: 0, data: await present(link), status: 201 })
  })

  // PUT /api/v1/links/:id – change the fields sent, keep the others (no domain)
  r.put('/api/v1/links/:id', { schema: { params: idParams } }, async (req) => {
    // another account's link is a 404 before its body is even read
    const current = await owned(req.user, req.params.id)
    const { input, names } = readV1Body(req.body, 'update', {
      expiresAt: current.expiresAt,
      targetCounts: await targetCounts(db, current.id),
    })
    requirePrivacyPassword(input, names, current)
    const link = await updateLink(app, req.user, current.id, input).catch((err: unknown) => {
      throw nameField(err, v1Name(names))
    })
    return { error: 0, data: await present(link), status: 200 }
  })

  // DELETE /api/v1/links/:id (the original product's path) and DELETE /links/:id/destroy (SPEC.md's)
  for (const path of ['/api/v1/links/:id', '/links/:id/destroy']) {
    r.delete(path, { schema: { params: idParams } }, async (req) => {
      if (!(await deleteLink(app, req.user, req.params.id))) throw notFound('Link not found.')
      return { error: 0, id: req.params.id, object: 'link', deleted: true, message: 'Link has been deleted.', status: 200 }
    })
  }
}

/** Privacy 2 protects the statistics page with `privacy_password`: one must be set. */
function requirePrivacyPassword(input: LinkInput, names: V1Names, current: Link | null) {
  if (input.privacy === undefined && input.privacyPassword === undefined) return
  const privacy = input.privacy ?? current?.privacy ?? 0
  const hasPassword = input.privacyPassword !== undefined ? input.privacyPassword !== null : Boolean(current?.privacyPasswordHash)
  if (privacy !== 2 || hasPassword) return
  const as = names.privacyPassword ?? 'privacy_password'
  const message = `${as} is required when privacy is 2 (password).`
  throw new ApiError(422, message, { [as]: [message] })
}
export default v1Links

/** The filters the caller sent (as sent, blank ones dropped), then the page: Laravel's appends(). */
function pageQueryString(rawUrl: string, page: number): string {
  const sent = new URLSearchParams(rawUrl.split('?')[1] ?? '')
  const out = new URLSearchParams()
  for (const name of LIST_PARAMS) {
    const v = sent.get(name)
    if (v !== null && v !== '') out.set(name, v)
  }
  out.set('page', String(page))
  return out.toString()
}
