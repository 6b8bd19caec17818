import type { FastifyPluginAsync } from 'fastify'
import { z } from 'zod'
import type { ZodTypeProvider } from '../../http/zod.js'
import { PIXEL_TYPES, pixels } from '../../db/schema/index.js'
import { requireCount } from '../../http/auth.js'
import { badRequest, notFound } from '../../http/errors.js'
import { idParam, isBlank, name } from '../../http/fields.js'
import { pageQuery, listResponse } from '../../http/pagination.js'
import { invalidateLinks } from '../redirect-cache.js'
import { lockOwner } from '../../db/lock.js'
import { presentPixel } from './present.js'
import * as repo from './repo.js'
import { checkTag } from './tags.js'

const tag = z.preprocess((v) => v ?? '', z.string({ message: 'tag must be a string.' }).trim().min(1, 'tag is required.'))

const createBody = z.object({
  type: z.enum(PIXEL_TYPES, { message: `type must be one of: ${PIXEL_TYPES.join(', ')}.` }),
  name: z.preprocess((v) => v ?? '', name()),
  tag,
})
const updateBody = z.object({
  name: z.preprocess((v) => (isBlank(v) ? undefined : v), name().optional()),
  tag,
})

const pixelsPlugin: FastifyPluginAsync = async (app) => {
  const r = app.withTypeProvider<ZodTypeProvider>()

  // GET /api/pixels – the caller's pixels, newest first
  r.get('/api/pixels', { schema: { querystring: pageQuery } }, async (req) => {
    const { rows, total } = await repo.listPixels(app.db, req.user.id, req.query)
    return listResponse('pixels', rows.map(presentPixel), total, req.query)
  })

  // POST /api/pixel/add – create a pixel (feature `pixels` with its count); the tag must fit the type
  r.post('/api/pixel/add', { schema: { body: createBody } }, async (req) => {
    const problem = checkTag(req.body.type, req.body.tag)
    if (problem) throw badRequest(problem, 'tag')
    const pixel = await app.db.transaction(async (tx) => {
      await lockOwner(tx, req.user.id)
      await requireCount(tx, req.user, 'pixels', pixels)
      return repo.insertPixel(tx, req.user.id, req.body)
    })
    return { error: 0, id: pixel.id }
  })

  // PUT /api/pixel/:id/update – change the tag (required) and the name
  r.put('/api/pixel/:id/update', { schema: { params: idParam, body: updateBody } }, async (req) => {
    const pixel = await repo.findOwnedPixel(app.db, req.user.id, req.params.id)
    if (!pixel) throw notFound('Pixel not found.')
    const problem = checkTag(pixel.type, req.body.tag)
    if (problem) throw badRequest(problem, 'tag')
    const changes = { tag: req.body.tag, ...(req.body.name !== undefined ? { name: req.body.name } : {}) }
    if (!(await repo.updatePixel(app.db, req.user.id, req.params.id, changes))) throw notFound('Pixel not found.')
    await invalidateLinks(app, await repo.linksOfPixel(app.db, req.params.id))
    return { error: 0, message: 'Pixel has been updated successfully.' }
  })

  // DELETE /api/pixel/:id/delete – delete a pixel; it is detached from every link
  r.delete('/api/pixel/:id/delete', { schema: { params: idParam } }, async (req) => {
    const linkIds = await repo.deletePixel(app.db, req.user.id, req.params.id)
    if (!linkIds) throw notFound('Pixel not found.')
    await invalidateLinks(app, linkIds)
    return { error: 0, message: 'Pixel has been deleted successfully.' }
  })
}
export default pixelsPlugin
