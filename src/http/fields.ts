import { z } from 'zod'
import { checkUrl, namedUrlProblem } from '../lib/url.js'
import { parseTimestamp } from './format.js'

/** Control characters but tab and line breaks: they break logs, terminals and pages (and Postgres cannot store a NUL). */
export const CONTROL_CHARS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/
/** Every control character, tab and line breaks included: for values that are one line. */
export const ANY_CONTROL_CHAR = /[\u0000-\u001f\u007f]/

/** Ids are Postgres `integer` columns: anything above this names no row (and would fail the query). */
export const MAX_ID = 2 ** 31 - 1

/** A path id: a positive integer below 2^31 written without leading zeros, else the path names no object (404 via zod.ts). */
export const pathId = z
  .string()
  .regex(/^[1-9]\d{0,9}$/)
  .transform(Number)
  .pipe(z.number().int().min(1).max(MAX_ID))
export const idParam = z.object({ id: pathId })

/** An id in a body: a JSON integer in range (JSON types are strict on the management interface, DECISIONS §2: "2" is a 400). */
export const bodyId = (name: string) =>
  z.number({ message: `${name} must be an integer id.` }).int(`${name} must be an integer id.`).min(1, `${name} must be a positive id.`).max(MAX_ID, `${name} is not a known id.`)

/** The values read as a boolean in bodies and queries (DECISIONS §2): JSON, form and query spellings. */
export const TRUE: ReadonlySet<unknown> = new Set<unknown>([true, 1, '1', 'true'])
export const FALSE: ReadonlySet<unknown> = new Set<unknown>([false, 0, '0', 'false'])
/** Booleans accept true/false, 1/0, "1"/"0", "true"/"false" (DECISIONS §2). */
export const boolish = (name: string) =>
  z.any().transform((v, ctx) => {
    if (TRUE.has(v)) return true
    if (FALSE.has(v)) return false
    ctx.addIssue({ code: 'custom', message: `${name} must be true or false.` })
    return z.NEVER
  })

/** Real clients send "", null or false for an absent optional field (DECISIONS §2). */
export const isBlank = (v: unknown) => v === '' || v === null || v === false
/** Optional field: blank or missing reads as undefined. */
export const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (isBlank(v) ? undefined : v), schema.optional())
/** Update field: missing = keep (undefined), blank = clear (null). */
export const clearable = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === undefined ? undefined : isBlank(v) ? null : v), schema.nullable().optional())

export const text = (name: string, max: number, min = 0) =>
  z
    .string({ message: `${name} must be a string.` })
    .trim()
    .min(min, min === 1 ? `${name} must not be empty.` : `${name} must be at least ${min} characters.`)
    .max(max, `${name} must be at most ${max} characters.`)
    .refine((s) => !CONTROL_CHARS.test(s), `${name} must not contain control characters.`)

export const name = (field = 'name') => text(field, 255, 1)
export const description = (field = 'description') => text(field, 2000)

/** Any URL field: the one URL rule of lib/url.ts. */
export const urlField = (field: string, opts: { httpOnly?: boolean } = {}) =>
  z.string({ message: `${field} must be a string.` }).transform((v, ctx) => {
    const r = checkUrl(v, opts)
    if (r.ok) return r.url
    ctx.addIssue({ code: 'custom', message: namedUrlProblem(field, r.message) })
    return z.NEVER
  })

export const timestamp = (field: string) =>
  z.string({ message: `${field} must be a string like 2030-12-31 23:59:59.` }).transform((v, ctx) => {
    const d = parseTimestamp(v)
    if (d && d.getUTCFullYear() <= 9999) return d
    ctx.addIssue({ code: 'custom', message: `${field} must be a date like 2030-12-31 23:59:59 (UTC).` })
    return z.NEVER
  })

export const hexColor = (field = 'color') =>
  z.string({ message: `${field} must be a string.` }).trim().regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, `${field} must be a HEX colour like #1a2b3c.`)

export const email = (field = 'email') =>
  z
    .string({ message: `${field} must be a string.` })
    .trim()
    .max(254, `${field} must be at most 254 characters.`)
    .pipe(z.email({ message: `${field} must be a valid email address.` }))

export const password = (field = 'password') =>
  z.string({ message: `${field} must be a string.` }).min(5, `${field} must be at least 5 characters.`).max(1024, `${field} must be at most 1024 characters.`)

export const username = (field = 'username') =>
  z
    .string({ message: `${field} must be a string.` })
    .trim()
    .regex(/^[A-Za-z0-9_.-]{3,32}$/, `${field} must be 3 to 32 letters, digits, dots, dashes or underscores.`)
