import { z } from 'zod'
import { FALSE, isBlank, MAX_ID, pathId, TRUE } from '../../http/fields.js'
import { checkUrl } from '../../lib/url.js'
import { normalizeCountry, normalizeLanguage } from '../../lib/targets.js'
import { aliasProblem } from '../links/aliases.js'
import { targetMatch, type TargetInput } from '../links/model.js'
import { asList, MAX_LIST } from './form.js'

/*
 * The schemas of v1's query and body values. Messages start with the field name as it was sent
 * (`space_id must be an id`), which each factory takes as `name`; fields.ts says which field reads
 * which value.
 */

// ---------------------------------------------------------------------------------------------
// List query

/** Query values are strings; a blank one (`search=` from a form) is the same as absent. */
const blankless = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === '' ? undefined : v), schema.optional())

const intParam = (name: string, min: number, max: number) =>
  z
    .string({ message: `${name} must be a whole number from ${min} to ${max}.` })
    .trim()
    .regex(/^\d{1,10}$/, `${name} must be a whole number from ${min} to ${max}.`)
    .transform(Number)
    .pipe(z.number().int().min(min, `${name} must be at least ${min}.`).max(max, `${name} must be at most ${max}.`))

const choice = <T extends string>(name: string, values: readonly T[]) =>
  z.enum(values as [T, ...T[]], { message: `${name} must be one of ${values.join(', ')}.` })

export const STATUS = { all: 0, active: 1, expired: 2, disabled: 3 } as const

export const listQuery = z.object({
  search: blankless(z.string({ message: 'search must be a string.' }).max(255, 'search must be at most 255 characters.')),
  // `any` (an extension, for the dashboard's search) looks in all three
  by: blankless(choice('by', ['title', 'alias', 'url', 'any'] as const)).default('title'),
  status: blankless(intParam('status', 0, 3)).default(0),
  space: blankless(intParam('space', 1, MAX_ID)),
  domain: blankless(intParam('domain', 1, MAX_ID)),
  pixel: blankless(intParam('pixel', 1, MAX_ID)),
  /** extension: the campaign a link is in (the dashboard's campaign filter) */
  campaign: blankless(intParam('campaign', 1, MAX_ID)),
  sort: blankless(choice('sort', ['desc', 'asc', 'max', 'min'] as const)).default('desc'),
  per_page: blankless(intParam('per_page', 10, 100)).default(10),
  page: blankless(intParam('page', 1, 1_000_000_000)).default(1),
})
export type ListQuery = z.output<typeof listQuery>
export const LIST_PARAMS = ['search', 'by', 'status', 'space', 'domain', 'pixel', 'campaign', 'sort', 'per_page'] as const

export const idParams = z.object({ id: pathId })

// ---------------------------------------------------------------------------------------------
// Body values

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
export type TargetKind = (typeof TARGET_KINDS)[keyof typeof TARGET_KINDS]['kind']

/** In JSON bodies numbers may be numbers or strings; in forms they are strings. */
const numeric = (v: unknown) => (typeof v === 'number' ? String(v) : v)
/** Strings in JSON may arrive as numbers (an alias "123"). */
export const stringy = (name: string) =>
  z.preprocess(numeric, z.string({ message: `${name} must be a string.` }))

export const idValue = (name: string) =>
  z.preprocess(
    numeric,
    z
      .string({ message: `${name} must be an id (a whole number).` })
      .trim()
      .regex(/^\d{1,10}$/, `${name} must be an id (a whole number).`)
      .transform(Number)
      .pipe(z.number().min(1, `${name} must be a positive id.`).max(MAX_ID, `${name} is not a known id.`)),
  )

export const intValue = (name: string, min: number, max: number, hint?: string) =>
  z.preprocess(
    numeric,
    z
      .string({ message: `${name} must be ${hint ?? `a whole number from ${min} to ${max}`}.` })
      .trim()
      // "-5" or twenty digits: the range says what to send instead
      .regex(/^\d{1,10}$/, `${name} must be ${hint ?? `a whole number from ${min} to ${max}`}.`)
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
export const urlValue = (name: string) => stringy(name).pipe(urlField(name))

export const flag = (name: string) =>
  z.any().transform((v, ctx) => {
    if (TRUE.has(v)) return true
    if (FALSE.has(v)) return false
    ctx.addIssue({ code: 'custom', message: `${name} must be 0 (active) or 1 (disabled).` })
    return z.NEVER
  })

export const aliasValue = (name: string) =>
  stringy(name).pipe(
    z
      .string()
      .trim()
      .transform((v, ctx) => {
        const problem = aliasProblem(v)
        if (!problem) return v
        ctx.addIssue({ code: 'custom', message: `${name}: ${problem}` })
        return z.NEVER
      }),
  )

export const secret = (name: string) =>
  stringy(name).pipe(z.string().min(1, `${name} must not be empty.`).max(1024, `${name} must be at most 1024 characters.`))

export const dateValue = (name: string) =>
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

export const timeValue = (name: string) =>
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

/** `pixels=1,2`, `pixels[]=1`, `pixel_ids: [1, 2]`: a list of ids, each once; blank or `[]` is none. */
export const pixelList = (name: string) =>
  z.any().transform((value, ctx): number[] => {
    if (isBlank(value) || (Array.isArray(value) && value.length === 0)) return []
    let items: unknown[]
    if (typeof value === 'string') items = value.split(',').map((s) => s.trim()).filter((s) => s !== '')
    else if (typeof value === 'number') items = [value]
    else {
      const list = asList(value)
      if (!list) return issue(ctx, [], `${name} must be a list of pixel ids.`)
      items = list.filter((v) => v !== '' && v !== null)
    }
    if (items.length > MAX_LIST) return issue(ctx, [], `${name} must list at most ${MAX_LIST} pixels.`)
    const ids: number[] = []
    for (const [i, item] of items.entries()) {
      const r = idValue(name).safeParse(item)
      if (r.success) ids.push(r.data)
      else ctx.addIssue({ code: 'custom', path: items.length > 1 || Array.isArray(value) ? [i] : [], message: `${name} must be a list of pixel ids.` })
    }
    return [...new Set(ids)]
  })

/**
 * `country[0][key]=US&country[0][value]=https://…`: the targets of one kind. A row left empty in a
 * form is no target; blank is an empty list. Keys are matched as lib/targets.ts matches them and
 * each may be listed once.
 */
export const targetList = (name: string, kind: TargetKind) =>
  z.any().transform((value, ctx): TargetInput[] => {
    if (isBlank(value)) return []
    const list = asList(value)
    if (!list) return issue(ctx, [], `${name} must be a list of targets like ${name}[0][${kind === 'rotation' ? 'value' : 'key'}].`)
    if (list.length > MAX_LIST) return issue(ctx, [], `${name} must have at most ${MAX_LIST} targets.`)
    const out: TargetInput[] = []
    const seen = new Set<string>()
    for (const [i, item] of list.entries()) {
      const at = `${name}.${i}`
      if (!item || typeof item !== 'object' || Array.isArray(item)) {
        ctx.addIssue({ code: 'custom', path: [i], message: `${at} must be an object with ${kind === 'rotation' ? 'a value' : 'a key and a value'}.` })
        continue
      }
      const { key: rawKey, value: rawValue } = item as Record<string, unknown>
      if (isBlank(rawKey ?? '') && isBlank(rawValue ?? '')) continue
      const key = kind === 'rotation' ? null : targetKey(kind, `${at}.key`, rawKey)
      if (typeof key === 'object' && key !== null) ctx.addIssue({ code: 'custom', path: [i, 'key'], message: key.problem })
      if (isBlank(rawValue ?? '')) {
        ctx.addIssue({ code: 'custom', path: [i, 'value'], message: `${at}.value is required: the URL for this target.` })
        continue
      }
      const url = urlValue(`${at}.value`).safeParse(rawValue)
      if (!url.success) {
        ctx.addIssue({ code: 'custom', path: [i, 'value'], message: url.error.issues[0].message })
        continue
      }
      if (typeof key === 'object' && key !== null) continue
      const match = key === null ? null : targetMatch(kind as Exclude<TargetKind, 'rotation'>, key)
      if (match !== null && seen.has(match)) {
        ctx.addIssue({ code: 'custom', path: [i], message: `${at}: "${key}" is listed twice.` })
        continue
      }
      if (match !== null) seen.add(match)
      out.push({ key, match, url: url.data })
    }
    return out
  })

/** A target key in v1's spelling (country and language codes, the seven platform names), or what is wrong with it. */
function targetKey(kind: Exclude<TargetKind, 'rotation'>, at: string, raw: unknown): string | { problem: string } {
  if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) return { problem: `${at} is required.` }
  if (typeof raw !== 'string') return { problem: `${at} must be a string, not ${Array.isArray(raw) ? 'a list' : typeof raw === 'object' ? 'an object' : `a ${typeof raw}`}.` }
  const v = raw.trim()
  if (kind === 'geo') {
    // ISO 3166-1 alpha-2; an English country name is read as its code
    return normalizeCountry(v) ?? { problem: `${at} must be a two-letter country code (ISO 3166-1 alpha-2) such as US.` }
  }
  if (kind === 'language') {
    return normalizeLanguage(v) ?? { problem: `${at} must be a two-letter language code (ISO 639-1) such as en.` }
  }
  return PLATFORM_BY_LOWER.get(v.toLowerCase().replace(/\s+/g, ' ')) ?? { problem: `${at} must be one of ${PLATFORMS.join(', ')}.` }
}

function issue(ctx: z.RefinementCtx, path: (string | number)[], message: string): never {
  ctx.addIssue({ code: 'custom', path, message })
  return z.NEVER
}
