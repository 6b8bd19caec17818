import { randomBytes } from 'node:crypto'
import type { FastifyPluginAsync } from 'fastify'
import { z } from 'zod'
import type { ZodTypeProvider } from '../../http/zod.js'
import { WEBHOOK_EVENTS, type WebhookEvent } from '../../db/schema/index.js'
import { badRequest, conflict, forbidden, notFound } from '../../http/errors.js'
import { boolish, clearable, description, idParam, optional, pathId } from '../../http/fields.js'
import { listResponse, pageQuery } from '../../http/pagination.js'
import { presentDelivery, presentWebhook } from './present.js'
import { receiverProblem } from './target.js'
import { namedUrlProblem } from '../../lib/url.js'
import * as repo from './repo.js'

/**
 * Each webhook multiplies every event it listens to; a bound keeps one account from flooding the
 * outbox, set well past what a team uses (and past a list's first pages).
 */
export const MAX_WEBHOOKS = 50

// the shared error formatter puts the field first ("events: …"): the messages do not repeat it
const events = z
  .array(z.string({ message: 'must be an event name.' }), { message: `must be a list of event names: ${WEBHOOK_EVENTS.join(', ')}.` })
  .min(1, 'must name at least one event.')
  .max(WEBHOOK_EVENTS.length * 2, 'lists too many entries.')
  .transform((list, ctx): WebhookEvent[] => {
    const unknown = list.find((e) => !(WEBHOOK_EVENTS as readonly string[]).includes(e))
    if (unknown !== undefined) {
      ctx.addIssue({ code: 'custom', message: `"${unknown.slice(0, 50)}" is not an event; use ${WEBHOOK_EVENTS.join(', ')}.` })
      return z.NEVER
    }
    return [...new Set(list as WebhookEvent[])]
  })
const url = z.string({ message: 'must be a string.' }).trim()

const createBody = z.object({ url, events, description: optional(description()) })
const updateBody = z.object({
  url: url.optional(),
  events: events.optional(),
  description: clearable(description()),
  // booleans read false as false (DECISIONS §2), so not through optional(), which blanks it
  enabled: z.preprocess((v) => (v === '' || v === null ? undefined : v), boolish('enabled').optional()),
  rotateSecret: z.preprocess((v) => (v === '' || v === null ? undefined : v), boolish('rotateSecret').optional()),
})
const deliveryParams = z.object({ id: pathId, deliveryId: pathId })

const newSecret = () => `whsec_${randomBytes(24).toString('base64url')}`

const webhooksPlugin: FastifyPluginAsync = async (app) => {
  const r = app.withTypeProvider<ZodTypeProvider>()

  async function checkReceiver(value: string) {
    const problem = await receiverProblem(value, app.config.allowPrivateTargets)
    if (problem) throw badRequest(namedUrlProblem('url', problem), 'url')
  }
  async function owned(userId: number, id: number) {
    const w = await repo.findOwnedWebhook(app.db, userId, id)
    if (!w) throw notFound('Webhook not found.')
    return w
  }

  // GET /api/webhooks – the caller's webhooks, newest first
  r.get('/api/webhooks', { schema: { querystring: pageQuery } }, async (req) => {
    const { rows, total } = await repo.listWebhooks(app.db, req.user.id, req.query)
    return listResponse('webhooks', rows.map(presentWebhook), total, req.query)
  })

  // POST /api/webhook/add – a receiver URL and the events it gets
  r.post('/api/webhook/add', { schema: { body: createBody } }, async (req) => {
    await checkReceiver(req.body.url)
    const secret = newSecret()
    const row = await app.db.transaction(async (tx) => {
      if ((await repo.countWebhooks(tx, req.user.id)) >= MAX_WEBHOOKS) throw forbidden(`An account may have at most ${MAX_WEBHOOKS} webhooks; delete one first.`)
      return repo.insertWebhook(tx, req.user.id, { url: req.body.url, events: req.body.events, description: req.body.description ?? null, secret })
    })
    await app.webhookSubscriptions.changed()
    // the webhook object (its id and secret first, as before), so a client need not fetch it again
    return { error: 0, ...presentWebhook(row) }
  })

  // GET /api/webhook/:id – one webhook, with its signing secret
  r.get('/api/webhook/:id', { schema: { params: idParam } }, async (req) => {
    return { error: 0, data: presentWebhook(await owned(req.user.id, req.params.id)) }
  })

  // PUT /api/webhook/:id/update – url, events, description, enabled (true clears a disabling), rotateSecret
  r.put('/api/webhook/:id/update', { schema: { params: idParam, body: updateBody } }, async (req) => {
    await owned(req.user.id, req.params.id)
    const b = req.body
    if (b.url !== undefined) await checkReceiver(b.url)
    const changes: repo.WebhookChanges = {}
    if (b.url !== undefined) changes.url = b.url
    if (b.events !== undefined) changes.events = b.events
    if (b.description !== undefined) changes.description = b.description
    if (b.enabled !== undefined) Object.assign(changes, { enabled: b.enabled, disabledReason: null, failingSince: null })
    if (b.rotateSecret) changes.secret = newSecret()
    if (Object.keys(changes).length && !(await repo.updateWebhook(app.db, req.user.id, req.params.id, changes))) throw notFound('Webhook not found.')
    if (changes.events !== undefined || changes.enabled !== undefined) await app.webhookSubscriptions.changed()
    return { error: 0, message: 'Webhook has been updated successfully.' }
  })

  // DELETE /api/webhook/:id/delete – the webhook and its deliveries, pending ones included
  r.delete('/api/webhook/:id/delete', { schema: { params: idParam } }, async (req) => {
    if (!(await repo.deleteWebhook(app.db, req.user.id, req.params.id))) throw notFound('Webhook not found.')
    await app.webhookSubscriptions.changed()
    return { error: 0, message: 'Webhook has been deleted successfully.' }
  })

  // GET /api/webhook/:id/deliveries – what was sent, newest first, with attempts and answers
  r.get('/api/webhook/:id/deliveries', { schema: { params: idParam, querystring: pageQuery } }, async (req) => {
    await owned(req.user.id, req.params.id)
    const { rows, total } = await repo.listDeliveries(app.db, req.params.id, req.query)
    return listResponse('deliveries', rows.map(presentDelivery), total, req.query)
  })

  // POST /api/webhook/:id/deliveries/:deliveryId/retry – one more attempt, now (a delivered one is sent again)
  r.post('/api/webhook/:id/deliveries/:deliveryId/retry', { schema: { params: deliveryParams } }, async (req) => {
    await owned(req.user.id, req.params.id)
    if (!(await repo.retryDelivery(app.db, req.params.id, req.params.deliveryId))) {
      // no such delivery of this webhook, or the webhook is disabled: a disabled webhook sends
      // nothing, so a retry would only record one more failure over the delivery
      if (!(await repo.hasDelivery(app.db, req.params.id, req.params.deliveryId))) throw notFound('Delivery not found.')
      throw conflict(`This webhook is disabled: enable it (PUT /api/webhook/${req.params.id}/update with enabled: true), then retry the delivery.`)
    }
    void app.webhooks.kick()
    return { error: 0, message: 'The delivery will be attempted again now.' }
  })
}
export default webhooksPlugin

declare module 'fastify' {
  interface FastifyInstance {
    /** the webhook delivery worker (deliver.ts) */
    webhooks: import('./deliver.js').DeliveryWorker
  }
}
