import { z } from 'zod'
import { bodyId, boolish, clearable, optional } from '../../http/fields.js'
import { parseTimestamp } from '../../http/format.js'
import { pageQuery } from '../../http/pagination.js'
import { checkUrl } from '../../lib/url.js'
import { PRIVACY, type LinkType } from '../../db/schema/index.js'
import type { LinkInput, TargetInput } from './model.js'

/*
 * Bodies of the management interface's link endpoints (SPEC.md "Links", DECISIONS §2 and §4).
 * These check JSON types and lengths and translate the body into LinkInput; the rules that need
 * the database (ownership, aliases taken, plan switches, self-loops) are the service's (create.ts).
 * Messages omit the field name: zodToApiError prefixes the path ("geotarget.0.link: ...").
 */

const MAX_LIST = 100

const str = (max: number) =>
  z
    .string({ error: (iss) => (iss.input === undefined ? 'is required.' : 'must be a string.') })
    .max(max, `must be at most ${max} characters.`)

/** Titles and descriptions: trimmed, no control characters (they break logs, terminals and pages). */
const text = (max: number) =>
  str(max)
    .trim()
    .refine((s) => !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(s), 'must not contain control characters.')

/** The one URL rule (lib/url.ts). */
const url = (opts: { httpOnly?: boolean } = {}) =>
  z
    .string({ error: (iss) => (iss.input === undefined ? 'is required.' : 'must be a string.') })
    .transform((v, ctx) => {
      const r = checkUrl(v, opts)
      if (r.ok) return r.url
      ctx.addIssue({ code: 'custom', message: r.message })
      return z.NEVER
    })

const imageUrl = url({ httpOnly: true }).refine(
  (v) => /\.(?:jpe?g|png)$/i.test(new URL(v).pathname),
  'must be the URL of a .jpg, .jpeg or .png image.',
)

const timestamp = z.string({ error: 'must be a string like 2030-12-31 23:59:59.' }).transform((v, ctx) => {
  const d = parseTimestamp(v)
  if (d && d.getUTCFullYear() <= 9999) return d
  ctx.addIssue({ code: 'custom', message: 'must be a date like 2030-12-31 23:59:59 (UTC) or ISO 8601.' })
  return z.NEVER
})

type TypeValue = { type?: LinkType; pageId?: number }

/** `direct`, `frame`, `splash`, or a splash page / overlay id: `12`, `splash-12`, `overlay-12`. */
const typeValue = z.union([z.string(), z.number()], { error: 'must be a string.' }).transform((raw, ctx): TypeValue => {
  const v = String(raw).trim().toLowerCase()
  if (v === 'direct' || v === 'frame' || v === 'splash') return { type: v }
  const m = /^(?:(splash|overlay)-)?(\d{1,10})$/.exec(v)
  const id = m ? Number(m[2]) : 0
  if (m && id >= 1 && id < 2 ** 31) {
    return m[1] === 'splash' ? { type: 'splash-page', pageId: id } : m[1] === 'overlay' ? { type: 'overlay', pageId: id } : { pageId: id }
  }
  ctx.addIssue({ code: 'custom', message: 'must be direct, frame, splash, or the id of one of your splash pages or overlays.' })
  return z.NEVER
})

const targets = (keyName: string, maxKey: number) =>
  z
    .array(
      z.object({ [keyName]: str(maxKey), link: url() }, { error: `each entry must be an object {${keyName}, link}.` }),
      { error: `must be a list of {${keyName}, link} objects.` },
    )
    .max(MAX_LIST, `must have at most ${MAX_LIST} entries.`)
    .transform((list): TargetInput[] => list.map((t) => ({ key: (t as Record<string, string>)[keyName], url: (t as Record<string, string>).link })))

/** `{name, value}`, or `{device, link}` as in the original product's samples. */
const parameters = z
  .array(
    z.preprocess(
      (v) => {
        if (v && typeof v === 'object' && !('name' in v) && 'device' in v) {
          const o = v as { device?: unknown; link?: unknown }
          return { name: o.device, value: o.link }
        }
        return v
      },
      z.object({ name: text(255).pipe(z.string().min(1, 'must not be empty.')), value: str(2000) }, { error: 'each entry must be an object {name, value}.' }),
    ),
    { error: 'must be a list of {name, value} objects.' },
  )
  .max(MAX_LIST, `must have at most ${MAX_LIST} entries.`)

const deeplink = z.object(
  { auto: optional(boolish('deeplink.auto')), apple: optional(url()), google: optional(url()) },
  { error: 'must be an object {auto, apple, google}.' },
)

const pixelIds = z.array(bodyId('pixels'), { error: 'must be a list of pixel ids.' }).max(MAX_LIST, `must list at most ${MAX_LIST} pixels.`)

export const createBody = z.object({
  url: url(),
  custom: optional(str(255)),
  type: optional(typeValue),
  password: optional(str(1024)),
  domain: optional(str(2048)),
  expiry: optional(timestamp),
  geotarget: optional(targets('location', 255)),
  devicetarget: optional(targets('device', 64)),
  languagetarget: optional(targets('language', 64)),
  metatitle: optional(text(255)),
  metadescription: optional(text(2000)),
  metaimage: optional(imageUrl),
  title: optional(text(255)),
  description: optional(text(2000)),
  pixels: optional(pixelIds),
  channel: optional(bodyId('channel')),
  campaign: optional(bodyId('campaign')),
  deeplink: optional(deeplink),
  status: optional(z.enum(['public', 'private'], { error: 'must be public or private.' })),
  parameters: optional(parameters),
})
export type CreateBody = z.output<typeof createBody>

/**
 * SPEC.md: update takes the create fields except `description` and `status`; `url` is required.
 * A blank field clears it, except `custom` and `domain`: a client sending "" for "not set" must
 * not change the short URL.
 */
export const updateBody = z.object({
  url: url(),
  custom: optional(str(255)),
  type: clearable(typeValue),
  password: clearable(str(1024)),
  domain: optional(str(2048)),
  expiry: clearable(timestamp),
  geotarget: clearable(targets('location', 255)),
  devicetarget: clearable(targets('device', 64)),
  languagetarget: clearable(targets('language', 64)),
  metatitle: clearable(text(255)),
  metadescription: clearable(text(2000)),
  metaimage: clearable(imageUrl),
  title: clearable(text(255)),
  pixels: clearable(pixelIds),
  channel: clearable(bodyId('channel')),
  campaign: clearable(bodyId('campaign')),
  deeplink: clearable(deeplink),
  parameters: clearable(parameters),
})
export type UpdateBody = z.output<typeof updateBody>

type Body = CreateBody | UpdateBody

const emptyToNull = (v: string | null | undefined) => (v === undefined ? undefined : v === null || v === '' ? null : v)

/** Management body → LinkInput (interfaces.md item 1). On update, null clears and undefined keeps. */
export function toLinkInput(body: Body): LinkInput {
  const b = body as Partial<{ [K in keyof CreateBody | keyof UpdateBody]: NonNullable<(CreateBody & UpdateBody)[K]> | null }>
  const input: LinkInput = { url: b.url ?? undefined }
  if (b.custom !== undefined) input.alias = b.custom
  if (b.domain !== undefined) input.domainName = b.domain
  if (b.type === null) input.pageId = null
  else if (b.type !== undefined) {
    const t = b.type as TypeValue
    if (t.type) input.type = t.type
    if (t.pageId !== undefined) input.pageId = t.pageId
  }
  if (b.password !== undefined) input.password = b.password
  if (b.expiry !== undefined) input.expiresAt = b.expiry
  if (b.geotarget !== undefined) input.geo = b.geotarget
  if (b.devicetarget !== undefined) input.device = b.devicetarget
  if (b.languagetarget !== undefined) input.language = b.languagetarget
  if (b.metatitle !== undefined) input.metaTitle = emptyToNull(b.metatitle)
  if (b.metadescription !== undefined) input.metaDescription = emptyToNull(b.metadescription)
  if (b.metaimage !== undefined) input.metaImage = b.metaimage
  if (b.title !== undefined) input.title = emptyToNull(b.title)
  if (b.description !== undefined) input.description = emptyToNull(b.description)
  if (b.pixels !== undefined) input.pixelIds = b.pixels
  if (b.channel !== undefined) input.channelIds = b.channel === null ? null : [b.channel]
  if (b.campaign !== undefined) input.campaignId = b.campaign
  if (b.deeplink !== undefined) {
    input.deepLink = b.deeplink === null ? null : { auto: b.deeplink.auto ?? false, apple: b.deeplink.apple ?? null, google: b.deeplink.google ?? null }
  }
  if (b.parameters !== undefined) input.parameters = b.parameters
  if (b.status !== undefined) input.privacy = b.status === 'public' ? PRIVACY.public : PRIVACY.private
  return input
}

// ---------------------------------------------------------------- queries

/** `short` is read first: when present, every other parameter is ignored (SPEC.md). */
export const urlsQuery = z.looseObject({
  short: optional(z.string({ error: 'must be a single string.' }).max(8192, 'must be at most 8192 characters.')),
})

export const listQuery = pageQuery.extend({
  order: optional(z.enum(['date', 'click', 'clicks'], { error: 'must be date or click.' })).transform((v) => (v === 'click' || v === 'clicks' ? 'click' : 'date')),
  q: optional(z.string({ error: 'must be a single string.' }).max(255, 'must be at most 255 characters.')),
})

export const detailQuery = z.looseObject({ full: optional(boolish('full')) })
