import { z } from 'zod'
import type { FieldRef } from '../../http/errors.js'
import { ANY_CONTROL_CHAR, bodyId, boolish, clearable, CONTROL_CHARS, MAX_ID, optional } from '../../http/fields.js'
import { parseTimestamp, toTimestamp } from '../../http/format.js'
import { pageQuery } from '../../http/pagination.js'
import { checkUrl } from '../../lib/url.js'
import { PRIVACY, type LinkType, type TargetKind } from '../../db/schema/index.js'
import { aliasProblem } from './aliases.js'
import { targetMatch, type LinkInput, type TargetInput } from './model.js'


/*
 * Bodies of the management interface's link endpoints (SPEC.md "Links", DECISIONS §2 and §4).
 * This is the management door's one validation of a link body: everything that needs no database
 * is checked here and the body becomes a LinkInput; the rules that need the database (ownership,
 * aliases taken, plan switches, self-loops) are the write service's (create.ts, update.ts).
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
    .refine((s) => !CONTROL_CHARS.test(s), 'must not contain control characters.')

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

/** A new link cannot start out expired; an update may end a link now by moving its end back. */
const futureTimestamp = timestamp.transform((d, ctx) => {
  if (d.getTime() > Date.now()) return d
  ctx.addIssue({ code: 'custom', message: `must be in the future (it is now ${toTimestamp(new Date())} UTC).` })
  return z.NEVER
})

const alias = str(255).transform((v, ctx) => {
  const problem = aliasProblem(v)
  if (!problem) return v
  ctx.addIssue({ code: 'custom', message: problem })
  return z.NEVER
})

type TypeValue = { type?: LinkType; pageId?: number }

/** `direct`, `frame`, `splash`, or a splash page / overlay id: `12`, `splash-12`, `overlay-12`. */
const typeValue = z.union([z.string(), z.number()], { error: 'must be a string.' }).transform((raw, ctx): TypeValue => {
  const v = String(raw).trim().toLowerCase()
  if (v === 'direct' || v === 'frame' || v === 'splash') return { type: v }
  const m = /^(?:(splash|overlay)-)?(\d{1,10})$/.exec(v)
  const id = m ? Number(m[2]) : 0
  if (m && id >= 1 && id <= MAX_ID) {
    return m[1] === 'splash' ? { type: 'splash-page', pageId: id } : m[1] === 'overlay' ? { type: 'overlay', pageId: id } : { pageId: id }
  }
  ctx.addIssue({ code: 'custom', message: 'must be direct, frame, splash, or the id of one of your splash pages or overlays.' })
  return z.NEVER
})

const KEY_HINT: Record<Exclude<TargetKind, 'rotation'>, string> = {
  geo: 'is not a known country: use an ISO 3166-1 alpha-2 code such as US, or an English country name.',
  device: 'is not a known device: use one of iPhone, iPad, Android, Windows Phone, Windows, Mac, Linux, Chrome OS, BlackBerry.',
  language: 'is not a known language: use an ISO 639-1 code such as en or fr.',
}

/** `[{location, link}]` and the like: each key matched (lib/targets.ts), each match listed once. */
const targets = (kind: Exclude<TargetKind, 'rotation'>, keyName: string, maxKey: number) =>
  z
    .array(
      z.object({ [keyName]: str(maxKey), link: url() }, { error: `each entry must be an object {${keyName}, link}.` }),
      { error: `must be a list of {${keyName}, link} objects.` },
    )
    .max(MAX_LIST, `must have at most ${MAX_LIST} entries.`)
    .transform((list, ctx): TargetInput[] => {
      const seen = new Set<string>()
      const out: TargetInput[] = []
      for (const [i, t] of (list as Record<string, string>[]).entries()) {
        const key = t[keyName].trim()
        const match = key ? targetMatch(kind, key) : null
        const problem = !key
          ? `every entry needs a ${keyName}.`
          : !match
            ? `"${key.slice(0, 100)}" ${KEY_HINT[kind]}`
            : seen.has(match)
              ? `"${key.slice(0, 100)}" is listed twice.`
              : null
        if (problem) {
          ctx.addIssue({ code: 'custom', path: [i], message: problem })
          continue
        }
        seen.add(match!)
        out.push({ key, match, url: t.link })
      }
      return out
    })

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
      z.object(
        {
          // a query parameter's name is one line: no tab or line break either
          name: text(255)
            .pipe(z.string().min(1, 'must not be empty.'))
            .refine((s) => !ANY_CONTROL_CHAR.test(s), 'must not contain control characters such as tabs or line breaks.'),
          value: str(2000),
        },
        { error: 'each entry must be an object {name, value}.' },
      ),
    ),
    { error: 'must be a list of {name, value} objects.' },
  )
  .max(MAX_LIST, `must have at most ${MAX_LIST} entries.`)

const deeplink = z.object(
  { auto: optional(boolish('deeplink.auto')), apple: optional(url()), google: optional(url()) },
  { error: 'must be an object {auto, apple, google}.' },
)

/** 301, 302, 307 or 308: a JSON number (JSON types are strict here, DECISIONS §2). */
const redirectStatus = z.union([z.literal(301), z.literal(302), z.literal(307), z.literal(308)], { error: 'must be 301, 302, 307 or 308.' })

/** A cache lifetime in seconds, up to a year (beyond that browsers cap it anyway). */
const MAX_CACHE_TTL = 365 * 24 * 3600
const cacheTtl = z
  .number({ error: `must be a whole number of seconds from 0 to ${MAX_CACHE_TTL}.` })
  .int(`must be a whole number of seconds from 0 to ${MAX_CACHE_TTL}.`)
  .min(0, `must be a whole number of seconds from 0 to ${MAX_CACHE_TTL}.`)
  .max(MAX_CACHE_TTL, `must be a whole number of seconds from 0 to ${MAX_CACHE_TTL}.`)

/** Human clicks after which the link expires (v1's `expiration_clicks`); 0 is no limit. */
const MAX_CLICKS = 2_147_483_647
const expirationClicks = z
  .number({ error: `must be a whole number from 0 to ${MAX_CLICKS}.` })
  .int(`must be a whole number from 0 to ${MAX_CLICKS}.`)
  .min(0, `must be a whole number from 0 to ${MAX_CLICKS}.`)
  .max(MAX_CLICKS, `must be a whole number from 0 to ${MAX_CLICKS}.`)

const pixelIds = z
  .array(bodyId('pixels'), { error: 'must be a list of pixel ids.' })
  .max(MAX_LIST, `must list at most ${MAX_LIST} pixels.`)
  .transform((ids) => [...new Set(ids)])

export const createBody = z.object({
  url: url(),
  custom: optional(alias),
  type: optional(typeValue),
  password: optional(str(1024)),
  domain: optional(str(2048)),
  expiry: optional(futureTimestamp),
  geotarget: optional(targets('geo', 'location', 255)),
  devicetarget: optional(targets('device', 'device', 64)),
  languagetarget: optional(targets('language', 'language', 64)),
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
  redirectstatus: optional(redirectStatus),
  cachettl: optional(cacheTtl),
  fallback: optional(url()),
  expiration_clicks: optional(expirationClicks),
  expiration_url: optional(url()),
})
export type CreateBody = z.output<typeof createBody>

/**
 * SPEC.md: update takes the create fields except `description` and `status`; `url` is required.
 * A blank field clears it, except `custom` and `domain`: a client sending "" for "not set" must
 * not change the short URL.
 */
export const updateBody = z.object({
  url: url(),
  custom: optional(alias),
  type: clearable(typeValue),
  password: clearable(str(1024)),
  domain: optional(str(2048)),
  expiry: clearable(timestamp),
  geotarget: clearable(targets('geo', 'location', 255)),
  devicetarget: clearable(targets('device', 'device', 64)),
  languagetarget: clearable(targets('language', 'language', 64)),
  metatitle: clearable(text(255)),
  metadescription: clearable(text(2000)),
  metaimage: clearable(imageUrl),
  title: clearable(text(255)),
  pixels: clearable(pixelIds),
  channel: clearable(bodyId('channel')),
  campaign: clearable(bodyId('campaign')),
  deeplink: clearable(deeplink),
  parameters: clearable(parameters),
  redirectstatus: clearable(redirectStatus),
  cachettl: clearable(cacheTtl),
  fallback: clearable(url()),
  expiration_clicks: clearable(expirationClicks),
  expiration_url: clearable(url()),
})
export type UpdateBody = z.output<typeof updateBody>

type Body = CreateBody | UpdateBody

const emptyToNull = (v: string | null | undefined) => (v === undefined ? undefined : v === null || v === '' ? null : v)

/** Management body → LinkInput. On update, null clears and undefined keeps. */
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
  if (b.redirectstatus !== undefined) input.redirectStatus = b.redirectstatus
  if (b.cachettl !== undefined) input.cacheTtl = b.cachettl
  if (b.fallback !== undefined) input.fallback = b.fallback
  // 0 is no limit, as on v1
  if (b.expiration_clicks !== undefined) input.expirationClicks = b.expiration_clicks === 0 ? null : b.expiration_clicks
  if (b.expiration_url !== undefined) input.expirationUrl = b.expiration_url
  if (b.status !== undefined) input.privacy = b.status === 'public' ? PRIVACY.public : PRIVACY.private
  return input
}

/** The management name of each LinkInput key, for the write service's field errors. */
const NAMES: Record<keyof LinkInput, string> = {
  url: 'url',
  alias: 'custom',
  domainId: 'domain',
  domainName: 'domain',
  type: 'type',
  pageId: 'type',
  password: 'password',
  expiresAt: 'expiry',
  expirationUrl: 'expiration_url',
  expirationClicks: 'expiration_clicks',
  privacy: 'status',
  privacyPassword: 'privacy_password',
  disabled: 'disabled',
  title: 'title',
  description: 'description',
  metaTitle: 'metatitle',
  metaDescription: 'metadescription',
  metaImage: 'metaimage',
  deepLink: 'deeplink',
  parameters: 'parameters',
  geo: 'geotarget',
  device: 'devicetarget',
  language: 'languagetarget',
  rotation: 'rotation',
  targetType: 'target_type',
  pixelIds: 'pixels',
  channelIds: 'channel',
  campaignId: 'campaign',
  redirectStatus: 'redirectstatus',
  cacheTtl: 'cachettl',
  fallback: 'fallback',
}

/** `{key: 'geo', path: [0, 'url']}` → `geotarget.0.link`: a service error named as this interface's bodies name it. */
export function managementName({ key, path = [] }: FieldRef): string {
  return [NAMES[key as keyof LinkInput] ?? key, ...path.map((part) => (part === 'url' ? 'link' : part))].join('.')
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
