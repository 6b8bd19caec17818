import type { FastifyPluginAsync } from 'fastify'
import { z } from 'zod'
import type { ZodTypeProvider } from '../../http/zod.js'
import { requireFeature } from '../../http/auth.js'
import { notFound } from '../../http/errors.js'
import { boolish, clearable, idParam, name, optional, pathId } from '../../http/fields.js'
import { toDay } from '../../http/format.js'
import { pageQuery, listResponse } from '../../http/pagination.js'
import { invalidateLinks, invalidateRotations } from '../redirect-cache.js'
import { presentCampaign } from './present.js'
import * as repo from './repo.js'

/** Rotator slugs: 3 to 64 of [A-Za-z0-9_-], unique service-wide and case-sensitive, like aliases. */
export const SLUG = /^[A-Za-z0-9_-]{3,64}$/
const slug = z
  .string({ message: 'slug must be a string.' })
  .trim()
  .regex(SLUG, 'slug must be 3 to 64 letters, digits, dashes or underscores.')
// null or "" read as absent for booleans too: `public` keeps its value (or defaults to false)
const publicFlag = z.preprocess((v) => (v === null || v === '' ? undefined : v), boolish('public').optional())

const createBody = z.object({
  name: optional(name()),
  slug: optional(slug),
  public: publicFlag,
})
const updateBody = z.object({
  name: z.preprocess((v) => (v === undefined || v === null ? '' : v), name()),
  slug: clearable(slug),
  public: publicFlag,
})
const assignParams = z.object({ campaignid: pathId, linkid: pathId })

const campaignsPlugin: FastifyPluginAsync = async (app) => {
  const r = app.withTypeProvider<ZodTypeProvider>()
  const present = (username: string, c: repo.Campaign) => presentCampaign(app.config, username, c)

  // GET /api/campaigns – the caller's campaigns, newest first
  r.get('/api/campaigns', { schema: { querystring: pageQuery } }, async (req) => {
    const { rows, total } = await repo.listCampaigns(app.db, req.user.id, req.query)
    return listResponse('campaigns', rows.map((c) => present(req.user.username, c)), total, req.query)
  })

  // POST /api/campaign/add – create a campaign (feature `bundle`); name defaults to the slug, else "Campaign <date>"
  r.post('/api/campaign/add', { schema: { body: createBody } }, async (req) => {
    requireFeature(req.user, 'bundle')
    const { slug: s, public: isPublic } = req.body
    const campaign = await repo.createCampaign(app.db, req.user.id, {
      name: req.body.name ?? s ?? `Campaign ${toDay(new Date())}`,
      slug: s ?? null,
      public: isPublic ?? false,
    })
    if (campaign.slug) await invalidateRotations(app)
    return { error: 0, ...present(req.user.username, campaign) }
  })

  // POST /api/campaign/:campaignid/assign/:linkid – put a link in the campaign (moving it out of any other)
  r.post('/api/campaign/:campaignid/assign/:linkid', { schema: { params: assignParams } }, async (req) => {
    requireFeature(req.user, 'bundle')
    const { campaignid, linkid } = req.params
    const result = await repo.assignLink(app.db, req.user.id, campaignid, linkid)
    if (result === 'no-campaign') throw notFound('Campaign not found.')
    if (result === 'no-link') throw notFound('Link not found.')
    await invalidateLinks(app, [linkid])
    return { error: 0, message: 'Link has been added to the campaign successfully.' }
  })

  // PUT /api/campaign/:id/update – rename, change or clear the slug, make public or private
  r.put('/api/campaign/:id/update', { schema: { params: idParam, body: updateBody } }, async (req) => {
    const { name: newName, slug: s, public: isPublic } = req.body
    const campaign = await repo.updateCampaign(app.db, req.user.id, req.params.id, {
      name: newName,
      ...(s !== undefined ? { slug: s } : {}),
      ...(isPublic !== undefined ? { public: isPublic } : {}),
    })
    if (!campaign) throw notFound('Campaign not found.')
    await invalidateRotations(app)
    return { error: 0, ...present(req.user.username, campaign) }
  })

  // DELETE /api/campaign/:id/delete – delete a campaign; its links stay, unassigned
  r.delete('/api/campaign/:id/delete', { schema: { params: idParam } }, async (req) => {
    if (!(await repo.deleteCampaign(app.db, req.user.id, req.params.id))) throw notFound('Campaign not found.')
    await invalidateRotations(app)
    return { error: 0, message: 'Campaign has been deleted successfully.' }
  })
}
export default campaignsPlugin
