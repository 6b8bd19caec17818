import type { FastifyPluginAsync } from 'fastify'
import { eq } from 'drizzle-orm'
import { z } from 'zod'
import type { ZodTypeProvider } from '../../http/zod.js'
import { pages } from '../../db/schema/index.js'
import { requireCount } from '../../http/auth.js'
import { badRequest, notFound } from '../../http/errors.js'
import { description, hexColor, idParam, isBlank, name, optional, text, urlField } from '../../http/fields.js'
import { pageQuery, listResponse } from '../../http/pagination.js'
import { invalidateLinks } from '../redirect-cache.js'
import { lockOwner } from '../../db/lock.js'
import { refuseBlocked } from '../blocklist/check.js'
import {
  DEFAULT_COUNTDOWN,
  DEFAULT_POSITION,
  presentOverlay,
  presentOverlayItem,
  presentResponse,
  presentSplash,
  presentSplashItem,
  type OverlaySettings,
} from './present.js'
import * as repo from './repo.js'

export const OVERLAY_TYPES = ['message', 'contact', 'poll'] as const
export const POSITIONS = ['bottom-left', 'bottom-right', 'top', 'bottom', 'center'] as const

/** On update: missing keeps, blank ("", null, false) clears – or keeps, where clearing makes no sense. */
const keep = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (isBlank(v) ? undefined : v), schema.optional())
const clear = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === undefined ? undefined : isBlank(v) ? null : v), schema.nullable().optional())
const required = <T extends z.ZodType>(schema: T) => z.preprocess((v) => v ?? '', schema)

const countdown = z
  .number({ message: 'countdown must be a whole number of seconds.' })
  .int('countdown must be a whole number of seconds.')
  .min(0, 'countdown must be between 0 and 60 seconds.')
  .max(60, 'countdown must be between 0 and 60 seconds.')
// the page's CSP loads images over https only (an http image would be dropped without a word)
const image = urlField('image', { httpOnly: true }).refine((u) => /^https:\/\//i.test(u), 'image must be an https:// address: splash pages show images over https only.')
const overlayType = z.enum(OVERLAY_TYPES, { message: `type must be one of: ${OVERLAY_TYPES.join(', ')}.` })
const position = z.enum(POSITIONS, { message: `position must be one of: ${POSITIONS.join(', ')}.` })
const pollOptions = z
  .array(text('options', 255, 1), { message: 'options must be an array of 2 to 10 strings.' })
  .min(2, 'options must hold 2 to 10 answers.')
  .max(10, 'options must hold 2 to 10 answers.')

const splashCreate = z.object({
  name: required(name()),
  title: optional(name('title')),
  message: optional(description('message')),
  image: optional(image),
  button: optional(name('button')),
  countdown: optional(countdown),
})
const splashUpdate = z.object({
  name: keep(name()),
  title: clear(name('title')),
  message: clear(description('message')),
  image: clear(image),
  button: clear(name('button')),
  countdown: clear(countdown),
})

const overlayCreate = z.object({
  name: required(name()),
  type: optional(overlayType),
  title: optional(name('title')),
  message: optional(description('message')),
  button: optional(name('button')),
  buttonurl: optional(urlField('buttonurl')),
  position: optional(position),
  background: optional(hexColor('background')),
  color: optional(hexColor('color')),
  buttonbackground: optional(hexColor('buttonbackground')),
  buttoncolor: optional(hexColor('buttoncolor')),
  options: optional(pollOptions),
})
const overlayUpdate = z.object({
  name: keep(name()),
  type: keep(overlayType),
  title: clear(name('title')),
  message: clear(description('message')),
  button: clear(name('button')),
  buttonurl: clear(urlField('buttonurl')),
  position: clear(position),
  background: clear(hexColor('background')),
  color: clear(hexColor('color')),
  buttonbackground: clear(hexColor('buttonbackground')),
  buttoncolor: clear(hexColor('buttoncolor')),
  options: clear(pollOptions),
})
type OverlayUpdate = z.output<typeof overlayUpdate>

const SETTINGS_KEYS = [
  ['position', 'position'],
  ['background', 'background'],
  ['color', 'color'],
  ['buttonbackground', 'buttonBackground'],
  ['buttoncolor', 'buttonColor'],
  ['options', 'options'],
] as const

/** Applies sent settings onto the stored ones; null removes a key. Options live only on polls. */
function mergeSettings(current: OverlaySettings, body: Partial<OverlayUpdate>, type: string): OverlaySettings {
  const next: Record<string, unknown> = { ...current }
  for (const [field, key] of SETTINGS_KEYS) {
    const v = body[field]
    if (v === null) delete next[key]
    else if (v !== undefined) next[key] = v
  }
  next.position ??= DEFAULT_POSITION
  if (type !== 'poll') delete next.options
  else if (!Array.isArray(next.options)) throw badRequest('options: a poll needs 2 to 10 answers.', 'options')
  return next as OverlaySettings
}

const pagesPlugin: FastifyPluginAsync = async (app) => {
  const r = app.withTypeProvider<ZodTypeProvider>()

  // GET /api/splash – the caller's custom splash pages, newest first
  r.get('/api/splash', { schema: { querystring: pageQuery } }, async (req) => {
    const { rows, total } = await repo.listPages(app.db, req.user.id, 'splash', req.query)
    return listResponse('splash', rows.map(presentSplashItem), total, req.query)
  })

  // GET /api/overlay – the caller's CTA overlays, newest first
  r.get('/api/overlay', { schema: { querystring: pageQuery } }, async (req) => {
    const { rows, total } = await repo.listPages(app.db, req.user.id, 'overlay', req.query)
    return listResponse('cta', rows.map(presentOverlayItem), total, req.query)
  })

  // GET /api/splash/:id – (extension) one splash page with every field
  r.get('/api/splash/:id', { schema: { params: idParam } }, async (req) => {
    const page = await repo.findOwnedPage(app.db, req.user.id, 'splash', req.params.id)
    if (!page) throw notFound('Splash page not found.')
    return { error: 0, data: presentSplash(page) }
  })

  // POST /api/splash/add – (extension) create a splash page (feature `splash` with its count)
  r.post('/api/splash/add', { schema: { body: splashCreate } }, async (req) => {
    const b = req.body
    await refuseBlocked(app.db, [{ field: 'image', url: b.image }])
    const page = await app.db.transaction(async (tx) => {
      await lockOwner(tx, req.user.id)
      await requireCount(tx, req.user, 'splash', pages, eq(pages.kind, 'splash'))
      return repo.insertPage(tx, req.user.id, 'splash', {
        name: b.name,
        title: b.title ?? null,
        message: b.message ?? null,
        imageUrl: b.image ?? null,
        buttonLabel: b.button ?? null,
        countdown: b.countdown ?? DEFAULT_COUNTDOWN,
      })
    })
    return { error: 0, id: page.id }
  })

  // PUT /api/splash/:id/update – (extension) change the fields sent
  r.put('/api/splash/:id/update', { schema: { params: idParam, body: splashUpdate } }, async (req) => {
    const b = req.body
    const changes: Partial<repo.NewPage> = {}
    if (b.name !== undefined) changes.name = b.name
    if (b.title !== undefined) changes.title = b.title
    if (b.message !== undefined) changes.message = b.message
    if (b.image !== undefined) changes.imageUrl = b.image
    if (b.button !== undefined) changes.buttonLabel = b.button
    if (b.countdown !== undefined) changes.countdown = b.countdown ?? DEFAULT_COUNTDOWN
    await refuseBlocked(app.db, [{ field: 'image', url: b.image }])
    const found = Object.keys(changes).length
      ? await repo.updatePage(app.db, req.user.id, 'splash', req.params.id, changes)
      : (await repo.findOwnedPage(app.db, req.user.id, 'splash', req.params.id)) !== undefined
    if (!found) throw notFound('Splash page not found.')
    await invalidateLinks(app, await repo.linksUsingPage(app.db, req.params.id))
    return { error: 0, message: 'Splash page has been updated successfully.' }
  })

  // DELETE /api/splash/:id/delete – (extension) delete a splash page; links using it become direct
  r.delete('/api/splash/:id/delete', { schema: { params: idParam } }, async (req) => {
    const linkIds = await repo.deletePage(app.db, req.user.id, 'splash', req.params.id)
    if (!linkIds) throw notFound('Splash page not found.')
    await invalidateLinks(app, linkIds)
    return { error: 0, message: 'Splash page has been deleted successfully.' }
  })

  // GET /api/overlay/:id – (extension) one overlay with every field
  r.get('/api/overlay/:id', { schema: { params: idParam } }, async (req) => {
    const page = await repo.findOwnedPage(app.db, req.user.id, 'overlay', req.params.id)
    if (!page) throw notFound('Overlay not found.')
    return { error: 0, data: presentOverlay(page) }
  })

  // POST /api/overlay/add – (extension) create a CTA overlay (feature `overlay` with its count)
  r.post('/api/overlay/add', { schema: { body: overlayCreate } }, async (req) => {
    const b = req.body
    await refuseBlocked(app.db, [{ field: 'buttonurl', url: b.buttonurl }])
    const type = b.type ?? 'message'
    const settings = mergeSettings({}, b, type)
    const page = await app.db.transaction(async (tx) => {
      await lockOwner(tx, req.user.id)
      await requireCount(tx, req.user, 'overlay', pages, eq(pages.kind, 'overlay'))
      return repo.insertPage(tx, req.user.id, 'overlay', {
        name: b.name,
        overlayType: type,
        title: b.title ?? null,
        message: b.message ?? null,
        buttonLabel: b.button ?? null,
        buttonUrl: b.buttonurl ?? null,
        settings: settings as Record<string, unknown>,
      })
    })
    return { error: 0, id: page.id }
  })

  // PUT /api/overlay/:id/update – (extension) change the fields sent
  r.put('/api/overlay/:id/update', { schema: { params: idParam, body: overlayUpdate } }, async (req) => {
    const current = await repo.findOwnedPage(app.db, req.user.id, 'overlay', req.params.id)
    if (!current) throw notFound('Overlay not found.')
    const b = req.body
    await refuseBlocked(app.db, [{ field: 'buttonurl', url: b.buttonurl }])
    const type = b.type ?? current.overlayType ?? 'message'
    const changes: Partial<repo.NewPage> = {
      overlayType: type,
      settings: mergeSettings(current.settings as OverlaySettings, b, type) as Record<string, unknown>,
    }
    if (b.name !== undefined) changes.name = b.name
    if (b.title !== undefined) changes.title = b.title
    if (b.message !== undefined) changes.message = b.message
    if (b.button !== undefined) changes.buttonLabel = b.button
    if (b.buttonurl !== undefined) changes.buttonUrl = b.buttonurl
    if (!(await repo.updatePage(app.db, req.user.id, 'overlay', req.params.id, changes))) throw notFound('Overlay not found.')
    await invalidateLinks(app, await repo.linksUsingPage(app.db, req.params.id))
    return { error: 0, message: 'Overlay has been updated successfully.' }
  })

  // DELETE /api/overlay/:id/delete – (extension) delete an overlay and its responses; links using it become direct
  r.delete('/api/overlay/:id/delete', { schema: { params: idParam } }, async (req) => {
    const linkIds = await repo.deletePage(app.db, req.user.id, 'overlay', req.params.id)
    if (!linkIds) throw notFound('Overlay not found.')
    await invalidateLinks(app, linkIds)
    return { error: 0, message: 'Overlay has been deleted successfully.' }
  })

  // GET /api/overlay/:id/responses – (extension) contact-form submissions and poll votes, newest first
  r.get('/api/overlay/:id/responses', { schema: { params: idParam, querystring: pageQuery } }, async (req) => {
    if (!(await repo.findOwnedPage(app.db, req.user.id, 'overlay', req.params.id))) throw notFound('Overlay not found.')
    const { rows, total } = await repo.listResponses(app.db, req.params.id, req.query)
    return listResponse('responses', rows.map(presentResponse), total, req.query)
  })
}
export default pagesPlugin
