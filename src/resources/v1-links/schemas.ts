import { z } from 'zod'
import { ApiError } from '../../http/errors.js'
import { isBlank, pathId, text } from '../../http/fields.js'
import { checkUrl } from '../../lib/url.js'
import { normalizeCountry, normalizeLanguage } from '../../lib/targets.js'
import { aliasProblem } from '../links/aliases.js'
import type { LinkInput, TargetInput } from '../links/model.js'
import { asList, MAX_LIST, pick } from './form.js'

const MAX_ID = 2 ** 31 - 1

// ---------------------------------------------------------------------------------------------
// List query

/** Query values are strings; a blank one (`search=` from a form) is the same as absent. */
const blankless = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === '' ? undefined : v), schema.optional())

const intParam = (name: string, min: number, max: number) =>
  z
    .string({ message: `${name} must be a whole number.` })
    .trim()
    .regex(/^\d{1,10}$/, `${name} must be a whole number.`)
    .transform(Number)
    .pipe(z.number().int().min(min, `${name} must be at least ${min}.`).max(max, `${name} must be at most ${max}.`))

const choice = <T extends string>(name: string, values: readonly T[]) =>
  z.enum(values as [T, ...T[]], { message: `${name} must be one of ${values.join(', ')}.` })

export const STATUS = { all: 0, active: 1, expired: 2, disabled: 3 } as const

export const listQuery = z.object({
  search: blankless(z.string({ message: 'search must be a string.' }).max(255, 'search must be at most 255 characters.')),
  by: blankless(choice('by', ['title', 'alias', 'url'] as const)).default('title'),
  status: blankless(intParam('status', 0, 3)).default(0),
  space: blankless(intParam('space', 1, MAX_ID)),
  domain: blankless(intParam('domain', 1, MAX_ID)),
  pixel: blankless(intParam('pixel', 1, MAX_ID)),
  sort: blankless(choice('sort', ['desc', 'asc', 'max', 'min'] as const)).default('desc'),
  per_page: blankless(intParam('per_page', 10, 100)).default(10),
  page: blankless(intParam('page', 1, 1_000_000_000)).default(1),
})
export type ListQuery = z.output<typeof listQuery>
export const LIST_PARAMS = ['search', 'by', 'status', 'space', 'domain', 'pixel', 'sort', 'per_page'] as const

export const idParams = z.object({ id: pathId })

// ---------------------------------------------------------------------------------------------
// Create and update bodies

/** The seven platform names of v1, each matched case-insensitively and kept in this spelling. */
export const PLATFORMS = ['iOS', 'Android', 'Windows', 'OS X', 'Linux', 'Ubuntu', 'Chrome OS'] as const
const PLATFORM_BY_LOWER = new Map<string, string>(PLATFORMS.map((p) => [p.toLowerCase(), p]))

/** target kinds by v1 target_type, with the v1 list field of each */
export const TARGET_KINDS = {
  1: { field: 'country', kind: 'geo' },
  2: { field: 'platform', kind: 'device' },
  3: { field: 'language', kind: 'language' },
  4: { field: 'rotation', kind: 'rotation' },
} as const
type TargetKind = (typeof TARGET_KINDS)[keyof typeof TARGET_KINDS]['kind']

/** In JSON bodies numbers may be numbers or strings; in forms they are strings. */
const numeric = (v: unknown) => (typeof v === 'number' ? String(v) : v)
/** Strings in JSON may arrive as numbers (an alias "123"). */
const stringy = (name: string) =>
  z.preprocess(numeric, z.string({ message: `${name} must be a string.` }))

const idValue = (name: string) =>
  z.preprocess(
    numeric,
    z
      .string({ message: `${name} must be an id (a whole number).` })
      .trim()
      .regex(/^\d{1,10}$/, `${name} must be an id (a whole number).`)
      .transform(Number)
      .pipe(z.number().min(1, `${name} must be a positive id.`).max(MAX_ID, `${name} is not a known id.`)),
  )

const intValue = (name: string, min: number, max: number, hint?: string) =>
  z.preprocess(
    numeric,
    z
      .string({ message: `${name} must be ${hint ?? 'a whole number'}.` })
      .trim()
      .regex(/^\d{1,10}$/, `${name} must be ${hint ?? 'a whole number'}.`)
      .transform(Number)
      .pipe(z.number().min(min, `${name} must be ${hint ?? `at least ${min}`}.`).max(max, `${name} must be ${hint ?? `at most ${max}`}.`)),
  )

/** The one URL rule (lib/url.ts), worded "field: what is wrong". */
const urlField = (name: string) =>
  z.string().transform((v, ctx) => {
    const r = checkUrl(v)
    if (r.ok) return r.url
    ctx.addIssue({ code: 'custom', message: `${name}: ${r.message}` })
    return z.NEVER
  })

const TRUE = new Set<unknown>([true, 1, '1', 'true'])
const FALSE = new Set<unknown>([false, 0, '0', 'false'])
const flag = (name: string) =>
  z.any().transform((v, ctx) => {
    if (TRUE.has(v)) return true
    if (FALSE.has(v)) return false
    ctx.addIssue({ code: 'custom', message: `${name} must be 0 (active) or 1 (disabled).` })
    return z.NEVER
  })

const aliasValue = (name: string) =>
  stringy(name).pipe(
    z
      .string()
      .trim()
      .transform((v, ctx) => {
        const problem = aliasProblem(v, name)
        if (!problem) return v
        ctx.addIssue({ code: 'custom', message: problem })
        return z.NEVER
      }),
  )

const secret = (name: string) =>
  stringy(name).pipe(z.string().min(1, `${name} must not be empty.`).max(1024, `${name} must be at most 1024 characters.`))

const dateValue = (name: string) =>
  stringy(name).pipe(
    z
      .string()
      .trim()
      .transform((v, ctx) => {
        const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v)
        const d = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : null
        if (m && d && Number(m[1]) >= 1970 && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3])) {
          return { y: Number(m[1]), mo: Number(m[2]), d: Number(m[3]) }
        }
        ctx.addIssue({ code: 'custom', message: `${name} must be a date like 2030-12-31.` })
        return z.NEVER
      }),
  )

const timeValue = (name: string) =>
  stringy(name).pipe(
    z
      .string()
      .trim()
      .transform((v, ctx) => {
        const m = /^(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(v)
        if (m && Number(m[1]) <= 23 && Number(m[2]) <= 59 && Number(m[3] ?? 0) <= 59) {
          return { h: Number(m[1]), mi: Number(m[2]), s: Number(m[3] ?? 0) }
        }
        ctx.addIssue({ code: 'custom', message: `${name} must be a time like 23:59 (UTC).` })
        return z.NEVER
      }),
  )

type Mode = 'create' | 'update'

/** What v1 needs to know about the stored link to read an update body. */
export interface CurrentLink {
  expiresAt: Date | null
  targetCounts: Record<TargetKind, number>
}

export interface V1Write {
  input: LinkInput
  /** management/LinkInput field name → the v1 field name as sent, for naming service errors */
  names: Record<string, string>
}

/**
 * Turns a v1 body (form or JSON, already parsed) into the LinkInput of the link write service.
 * Every field is checked, and all failures are answered together as one 422 naming the fields as
 * they were sent (Laravel's `errors` object).
 */
export function readLinkBody(raw: unknown, mode: Mode, current?: CurrentLink): V1Write {
  if (raw === undefined || raw === null) raw = {}
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ApiError(422, 'The request body must be an object of fields.', { body: ['The request body must be an object of fields.'] })
  }
  const body = raw as Record<string, unknown>
  const errors: Record<string, string[]> = {}
  const fail = (field: string, message: string) => {
    ;(errors[field] ??= []).push(message)
  }
  const input: LinkInput = {}
  const names: Record<string, string> = {}

  /** Validates one field: absent → skip; blank → onBlank(); else the schema's value. */
  function field<T>(
    as: string,
    value: unknown,
    schema: z.ZodType<T>,
    set: (v: T) => void,
    onBlank?: () => void,
  ) {
    if (value === undefined) return
    if (isBlank(value) && !(typeof value === 'boolean')) {
      onBlank?.()
      return
    }
    if (Array.isArray(value) || (typeof value === 'object' && value !== null)) {
      fail(as, `${as} must be a single value, not a list.`)
      return
    }
    const r = schema.safeParse(value)
    if (r.success) set(r.data)
    else for (const issue of r.error.issues) fail(as, issue.message)
  }
  const clear = (apply: () => void) => (mode === 'update' ? apply : undefined)

  // url: required on create; it cannot be cleared
  {
    const { as, value } = pick(body, 'url')
    names.url = as
    if (mode === 'create' && isBlank(value ?? '')) fail(as, 'url is required: the long URL to shorten.')
    else field(as, value, stringy(as).pipe(urlField(as)), (v) => (input.url = v))
  }

  // domain: create only; a branded-domain id, absent = the default domain
  if (mode === 'create') {
    const { as, value } = pick(body, 'domain', 'domain_id')
    names.domain = as
    names.domainId = as
    field(as, value, idValue(as), (v) => (input.domainId = v))
  }

  {
    const { as, value } = pick(body, 'alias')
    names.custom = as
    names.alias = as
    field(as, value, aliasValue(as), (v) => (input.alias = v))
  }

  {
    const { as, value } = pick(body, 'password')
    names.password = as
    field(as, value, secret(as), (v) => (input.password = v), clear(() => (input.password = null)))
  }

  {
    const { as, value } = pick(body, 'space', 'space_id')
    names.channel = as
    names.channelIds = as
    field(as, value, idValue(as), (v) => (input.channelIds = [v]), clear(() => (input.channelIds = [])))
  }

  {
    const { as, value } = pick(body, 'pixels', 'pixel_ids')
    names.pixels = as
    names.pixelIds = as
    readPixels(as, value)
  }

  {
    const { as, value } = pick(body, 'disabled')
    names.disabled = as
    if (value !== undefined && value !== '' && value !== null) {
      const r = flag(as).safeParse(value)
      if (r.success) input.disabled = r.data
      else fail(as, r.error.issues[0].message)
    }
  }

  {
    const { as, value } = pick(body, 'privacy')
    names.privacy = as
    names.status = as
    field(as, value, intValue(as, 0, 2, '0 (public), 1 (private) or 2 (password)'), (v) => (input.privacy = v as 0 | 1 | 2))
  }

  {
    const { as, value } = pick(body, 'privacy_password')
    names.privacyPassword = as
    field(as, value, secret(as), (v) => (input.privacyPassword = v), clear(() => (input.privacyPassword = null)))
  }

  {
    const { as, value } = pick(body, 'expiration_url')
    names.expirationUrl = as
    field(as, value, stringy(as).pipe(urlField(as)), (v) => (input.expirationUrl = v), clear(() => (input.expirationUrl = null)))
  }

  {
    const { as, value } = pick(body, 'expiration_clicks')
    names.expirationClicks = as
    // 0 means no cap, as in the original product
    field(as, value, intValue(as, 0, MAX_ID), (v) => (input.expirationClicks = v === 0 ? (mode === 'update' ? null : undefined) : v), clear(() => (input.expirationClicks = null)))
  }

  // expiration_date + expiration_time (HH:MM, default 00:00, UTC) → ends_at
  {
    const d = pick(body, 'expiration_date')
    const t = pick(body, 'expiration_time')
    names.expiry = d.as
    names.expiresAt = d.as
    let date: { y: number; mo: number; d: number } | null | undefined
    let time: { h: number; mi: number; s: number } | undefined
    field(d.as, d.value, dateValue(d.as), (v) => (date = v), () => (date = null))
    field(t.as, t.value, timeValue(t.as), (v) => (time = v))
    if (date === undefined && time && mode === 'update' && current?.expiresAt) {
      // only the time sent: move the stored end to that time of its day
      const e = current.expiresAt
      date = { y: e.getUTCFullYear(), mo: e.getUTCMonth() + 1, d: e.getUTCDate() }
    }
    if (date) {
      const tm = time ?? { h: 0, mi: 0, s: 0 }
      input.expiresAt = new Date(Date.UTC(date.y, date.mo - 1, date.d, tm.h, tm.mi, tm.s))
    } else if (date === null && mode === 'update') {
      input.expiresAt = null
    }
  }

  // title: (extension) the link's title; blank clears it
  {
    const { as, value } = pick(body, 'title')
    names.title = as
    field(as, value, stringy(as).pipe(text(as, 255)), (v) => (input.title = v), clear(() => (input.title = null)))
  }

  readTargets()

  if (Object.keys(errors).length) {
    const [first] = Object.values(errors)
    const more = Object.values(errors).flat().length - 1
    throw new ApiError(422, more > 0 ? `${first[0]} (and ${more} more error${more > 1 ? 's' : ''})` : first[0], errors)
  }
  return { input, names }

  function readPixels(as: string, value: unknown) {
    if (value === undefined) return
    if (isBlank(value) || (Array.isArray(value) && value.length === 0)) {
      if (mode === 'update') input.pixelIds = []
      return
    }
    let items: unknown[]
    if (typeof value === 'string') items = value.split(',').map((s) => s.trim()).filter((s) => s !== '')
    else if (typeof value === 'number') items = [value]
    else {
      const list = asList(value)
      if (!list) return fail(as, `${as} must be a list of pixel ids.`)
      items = list.filter((v) => v !== '' && v !== null)
    }
    if (items.length > MAX_LIST) return fail(as, `${as} must list at most ${MAX_LIST} pixels.`)
    const ids: number[] = []
    for (const [i, item] of items.entries()) {
      const r = idValue(as).safeParse(item)
      if (r.success) ids.push(r.data)
      else fail(items.length > 1 || Array.isArray(value) ? `${as}.${i}` : as, `${as} must be a list of pixel ids.`)
    }
    input.pixelIds = [...new Set(ids)]
  }

  function readTargets() {
    const tt = pick(body, 'target_type')
    names.targetType = tt.as
    let targetType: number | undefined
    field(tt.as, tt.value, intValue(tt.as, 0, 4, '0 (none), 1 (geographic), 2 (platform), 3 (language) or 4 (rotation)'), (v) => (targetType = v))

    const lists: Partial<Record<TargetKind, TargetInput[]>> = {}
    for (const [type, { field: name, kind }] of Object.entries(TARGET_KINDS)) {
      names[kind] = name
      names[{ geo: 'geotarget', device: 'devicetarget', language: 'languagetarget', rotation: 'rotation' }[kind]] = name
      // with a target_type, only that type's list is read (the original product ignores the others)
      if (targetType !== undefined && targetType !== Number(type)) continue
      const value = body[name]
      if (value === undefined) continue
      const list = readTargetList(name, kind, value)
      if (list) lists[kind] = list
    }

    if (targetType === undefined) {
      Object.assign(input, lists)
      return
    }
    input.targetType = targetType
    if (targetType === 0) {
      // no targeting: every kind is cleared (nothing to clear on create)
      if (mode === 'update') Object.assign(input, { geo: [], device: [], language: [], rotation: [] })
      return
    }
    const { field: name, kind } = TARGET_KINDS[targetType as 1 | 2 | 3 | 4]
    const sent = lists[kind]
    const stored = mode === 'update' ? (current?.targetCounts[kind] ?? 0) : 0
    if (sent === undefined && !errors[name] && !Object.keys(errors).some((k) => k.startsWith(`${name}.`))) {
      if (!stored) fail(name, `${name} needs at least one target when target_type is ${targetType}.`)
    } else if (sent && sent.length === 0) {
      fail(name, `${name} needs at least one target when target_type is ${targetType}.`)
    }
    // one kind of targeting at a time, as in the original product: the others are cleared
    for (const other of ['geo', 'device', 'language', 'rotation'] as const) {
      if (other !== kind && mode === 'update') input[other] = []
    }
    if (sent) input[kind] = sent
  }

  function readTargetList(name: string, kind: TargetKind, value: unknown): TargetInput[] | null {
    if (isBlank(value)) return []
    const list = asList(value)
    if (!list) {
      fail(name, `${name} must be a list of targets like ${name}[0][${kind === 'rotation' ? 'value' : 'key'}].`)
      return null
    }
    if (list.length > MAX_LIST) {
      fail(name, `${name} must have at most ${MAX_LIST} targets.`)
      return null
    }
    const out: TargetInput[] = []
    let ok = true
    for (const [i, item] of list.entries()) {
      const at = `${name}.${i}`
      if (!item || typeof item !== 'object' || Array.isArray(item)) {
        fail(at, `${at} must be an object with ${kind === 'rotation' ? 'a value' : 'a key and a value'}.`)
        ok = false
        continue
      }
      const { key: rawKey, value: rawValue } = item as Record<string, unknown>
      // a row left empty in a form is no target
      if (isBlank(rawKey ?? '') && isBlank(rawValue ?? '')) continue
      let key: string | null = null
      if (kind !== 'rotation') {
        key = targetKey(kind, `${at}.key`, rawKey)
        if (key === null) ok = false
      }
      if (isBlank(rawValue ?? '')) {
        fail(`${at}.value`, `${at}.value is required: the URL for this target.`)
        ok = false
        continue
      }
      const url = stringy(`${at}.value`).pipe(urlField(`${at}.value`)).safeParse(rawValue)
      if (!url.success) {
        fail(`${at}.value`, url.error.issues[0].message)
        ok = false
        continue
      }
      if (key !== null || kind === 'rotation') out.push({ key, url: url.data })
    }
    return ok ? out : null
  }

  function targetKey(kind: TargetKind, at: string, raw: unknown): string | null {
    if (typeof raw !== 'string' || raw.trim() === '') {
      fail(at, `${at} is required.`)
      return null
    }
    const v = raw.trim()
    if (kind === 'geo') {
      // ISO 3166-1 alpha-2; an English country name is read as its code
      const code = normalizeCountry(v)
      if (code) return code
      fail(at, `${at} must be a two-letter country code (ISO 3166-1 alpha-2) such as US.`)
    } else if (kind === 'language') {
      const code = normalizeLanguage(v)
      if (code) return code
      fail(at, `${at} must be a two-letter language code (ISO 639-1) such as en.`)
    } else {
      const p = PLATFORM_BY_LOWER.get(v.toLowerCase().replace(/\s+/g, ' '))
      if (p) return p
      fail(at, `${at} must be one of ${PLATFORMS.join(', ')}.`)
    }
    return null
  }
}
