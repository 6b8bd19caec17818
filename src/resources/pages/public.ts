import type { FastifyPluginAsync, FastifyReply } from 'fastify'
import formbody from '@fastify/formbody'
import { z } from 'zod'
import { email as emailField, MAX_ID, text } from '../../http/fields.js'
import { html, messagePage, notFoundPage, sendPage } from '../../lib/html.js'
import { Throttle } from '../../lib/throttle.js'
import { addressBlock } from '../../lib/address-block.js'
import { HOUR } from '../../lib/time.js'
import { shortUrlOf } from '../../lib/short-url.js'
import type { OverlaySettings } from './present.js'
import * as repo from './repo.js'

/** Submissions per visitor IP and overlay per hour: a contact form or a poll needs far fewer. */
export const OVERLAY_SUBMISSIONS_PER_HOUR = 5
const ID = /^\d{1,10}$/

const contactForm = z.object({
  name: z.preprocess((v) => v ?? '', text('name', 255)),
  email: z.preprocess((v) => v ?? '', emailField()),
  message: z.preprocess((v) => v ?? '', text('message', 2000)),
})

/** One form value: a single string, or undefined when absent; repeated keys are not a value. */
function field(body: unknown, key: string): string | undefined | null {
  if (!body || typeof body !== 'object') return undefined
  const v = (body as Record<string, unknown>)[key]
  if (v === undefined) return undefined
  if (typeof v === 'string') return v
  if (typeof v === 'number') return String(v)
  return null
}

const badForm = (reply: FastifyReply, message: string) => messagePage(reply, 400, 'Could not send your answer', message)

const overlayResponses: FastifyPluginAsync = async (app) => {
  await app.register(formbody, { bodyLimit: 64 * 1024 })
  const throttle = new Throttle('overlay', OVERLAY_SUBMISSIONS_PER_HOUR, HOUR, app.redis)

  // POST /_/overlay/:pageId – a contact-form submission or poll vote from an overlay page (form-encoded)
  app.post<{ Params: { pageId: string } }>('/_/overlay/:pageId', async (req, reply) => {
    const { pageId } = req.params
    const id = ID.test(pageId) ? Number(pageId) : 0
    if (id < 1 || id > MAX_ID) return notFoundPage(reply)
    // every attempt counts, valid or not, so a script cannot flood the owner's inbox or a poll
    const key = `${addressBlock(req.ip)}|${id}`
    if (!(await throttle.take(key))) {
      reply.header('retry-after', 3600)
      return messagePage(reply, 429, 'Too many answers', 'You have sent several answers already. Please try again later.')
    }

    const page = await repo.findOverlay(app.db, id)
    if (!page || (page.overlayType !== 'contact' && page.overlayType !== 'poll')) return notFoundPage(reply)

    const linkField = field(req.body, 'link')
    let link: { id: number; alias: string; domain: string | null } | undefined
    if (linkField !== undefined && linkField !== '') {
      if (linkField === null || !ID.test(linkField)) return badForm(reply, 'The form was sent from an unknown link.')
      link = await repo.findLinkShowingOverlay(app.db, id, Number(linkField))
      if (!link) return badForm(reply, 'The form was sent from an unknown link.')
    }

    let data: Record<string, unknown>
    if (page.overlayType === 'contact') {
      const values = { name: field(req.body, 'name'), email: field(req.body, 'email'), message: field(req.body, 'message') }
      if (Object.values(values).includes(null)) return badForm(reply, 'Each field may be sent once.')
      const parsed = contactForm.safeParse(values)
      if (!parsed.success) return badForm(reply, parsed.error.issues[0].message)
      data = { type: 'contact', ...parsed.data }
    } else {
      const options = (page.settings as OverlaySettings).options ?? []
      const option = field(req.body, 'option')
      const index = typeof option === 'string' && /^\d{1,3}$/.test(option) ? Number(option) : -1
      if (index < 0 || index >= options.length) return badForm(reply, 'Choose one of the answers.')
      data = { type: 'poll', option: index, answer: options[index] }
    }
    await repo.insertResponse(app.db, id, link?.id ?? null, data)

    const back = link ? shortUrlOf(app.config, link, link.domain ? { domain: link.domain } : null) : null
    return sendPage(reply, 200, {
      title: 'Thank you',
      body: html`<main><h1>Thank you</h1><p>${
        page.overlayType === 'poll' ? 'Your vote has been counted.' : 'Your message has been sent.'
      }</p>${back ? html`<p><a href="${back}">Back to the page</a></p>` : ''}</main>`.value,
    })
  })
}
export default overlayResponses
