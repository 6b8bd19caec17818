import type { FastifyPluginAsync } from 'fastify'
import { z } from 'zod'
import type { ZodTypeProvider } from '../../http/zod.js'
import { CHANNEL_ITEM_TYPES, type ChannelItemType } from '../../db/schema/index.js'
import { badRequest, notFound } from '../../http/errors.js'
import { boolish, description, hexColor, idParam, isBlank, name, optional, pathId } from '../../http/fields.js'
import { pageQuery, listResponse } from '../../http/pagination.js'
import { presentChannel, presentChannelItem } from './present.js'
import * as repo from './repo.js'

const DEFAULT_COLOR = '#000000'
// null or "" read as absent for booleans too: `starred` keeps its value (or defaults to false)
const starredFlag = z.preprocess((v) => (v === null || v === '' ? undefined : v), boolish('starred').optional())
/** On update, a blank field keeps the value where clearing makes no sense (name) and clears it elsewhere. */
const keepIfBlank = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (isBlank(v) ? undefined : v), schema.optional())
const clearIfBlank = <T extends z.ZodType>(schema: T, cleared: string) =>
  z.preprocess((v) => (isBlank(v) ? cleared : v), schema.optional())

const createBody = z.object({
  name: z.preprocess((v) => v ?? '', name()),
  description: optional(description()),
  color: optional(hexColor()),
  starred: starredFlag,
})
const updateBody = z.object({
  name: keepIfBlank(name()),
  description: clearIfBlank(description(), ''),
  color: clearIfBlank(hexColor(), DEFAULT_COLOR),
  starred: starredFlag,
})
// `type` is checked in the handler: an unknown type is a 400 (DECISIONS §2), not a path that names nothing
const assignParams = z.object({ channelid: pathId, type: z.string(), itemid: pathId })

const channelsPlugin: FastifyPluginAsync = async (app) => {
  const r = app.withTypeProvider<ZodTypeProvider>()

  // GET /api/channels – the caller's channels, newest first
  r.get('/api/channels', { schema: { querystring: pageQuery } }, async (req) => {
    const { rows, total } = await repo.listChannels(app.db, req.user.id, req.query)
    return listResponse('channels', rows.map(presentChannel), total, req.query)
  })

  // GET /api/channel/:id – the channel's items (links and QR codes), newest assignment first
  r.get('/api/channel/:id', { schema: { params: idParam, querystring: pageQuery } }, async (req) => {
    if (!(await repo.findOwnedChannel(app.db, req.user.id, req.params.id))) throw notFound('Channel not found.')
    const { rows, total } = await repo.listChannelItems(app.db, req.user.id, req.params.id, req.query)
    return listResponse('items', rows.map((row) => presentChannelItem(app.config, row)), total, req.query)
  })

  // POST /api/channel/add – create a channel
  r.post('/api/channel/add', { schema: { body: createBody } }, async (req) => {
    const channel = await repo.createChannel(app.db, req.user.id, {
      name: req.body.name,
      description: req.body.description ?? '',
      color: req.body.color ?? DEFAULT_COLOR,
      starred: req.body.starred ?? false,
    })
    return { error: 0, ...presentChannel(channel) }
  })

  // POST /api/channel/:channelid/assign/:type/:itemid – put a link or QR code in the channel (twice is a no-op)
  r.post('/api/channel/:channelid/assign/:type/:itemid', { schema: { params: assignParams } }, async (req) => {
    const { channelid, type, itemid } = req.params
    if (!(CHANNEL_ITEM_TYPES as readonly string[]).includes(type)) {
      throw badRequest(`type must be one of: ${CHANNEL_ITEM_TYPES.join(', ')}.`, 'type')
    }
    const result = await repo.assignItem(app.db, req.user.id, channelid, type as ChannelItemType, itemid)
    if (result === 'no-channel') throw notFound('Channel not found.')
    if (result === 'no-item') {
      throw notFound(type === 'bio' ? 'Bio page not found.' : type === 'qr' ? 'QR code not found.' : 'Link not found.')
    }
    return { error: 0, message: 'Item has been added to the channel successfully.' }
  })

  // PUT /api/channel/:id/update – change any of name, description, color, starred
  r.put('/api/channel/:id/update', { schema: { params: idParam, body: updateBody } }, async (req) => {
    const changes: Partial<repo.ChannelFields> = {}
    for (const key of ['name', 'description', 'color', 'starred'] as const) {
      if (req.body[key] !== undefined) Object.assign(changes, { [key]: req.body[key] })
    }
    if (!(await repo.updateChannel(app.db, req.user.id, req.params.id, changes))) throw notFound('Channel not found.')
    return { error: 0, message: 'Channel has been updated successfully.' }
  })

  // DELETE /api/channel/:id/delete – delete a channel; its items are unassigned, none is deleted
  r.delete('/api/channel/:id/delete', { schema: { params: idParam } }, async (req) => {
    if (!(await repo.deleteChannel(app.db, req.user.id, req.params.id))) throw notFound('Channel not found.')
    return { error: 0, message: 'Channel has been deleted successfully.' }
  })
}
export default channelsPlugin
