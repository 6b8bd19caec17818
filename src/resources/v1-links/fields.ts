import { z } from 'zod'
import { ApiError, type FieldRef } from '../../http/errors.js'
import { isBlank, MAX_ID, text } from '../../http/fields.js'
import { toTimestamp } from '../../http/format.js'
import type { LinkInput } from '../links/model.js'
import { pick } from './form.js'
import {
  aliasValue, dateValue, flag, idValue, intValue, pixelList, secret, stringy, TARGET_KINDS, targetList, timeValue, urlValue,
  type TargetKind,
} from './schemas.js'

/*
 * v1's link body, declared once: which v1 field fills which LinkInput key, read by which schema.
 * The same table reads the body and names the service's field errors back in v1's words.
 */

type Mode = 'create' | 'update'

export interface V1Field {
  /** the SPEC.md name */
  name: string
  /** later names of the original product for the same field; the SPEC.md name wins when both are sent */
  synonyms?: readonly string[]
  /** the LinkInput key it fills (expiration_date and expiration_time fill expiresAt together) */
  key: keyof LinkInput
  /** reads one sent value; `as` is the name it was sent as, for messages */
  schema: (as: string) => z.ZodType
  /** a blank value on update clears the field (null); otherwise blank is the same as absent */
  clearable?: boolean
  /** the schema reads blank values itself (lists: blank is the empty list) */
  readsBlank?: boolean
  /** the schema reads lists and objects itself; other fields refuse them */
  readsLists?: boolean
  /** required on create, with what it is for */
  required?: string
  /** read on create only (a link keeps its domain) */
  createOnly?: boolean
  /** a target list: with a target_type, only that type's list is read (the original product ignores the others) */
  targetType?: 1 | 2 | 3 | 4
  /** read into the key by a step after the table (the expiry date and time) */
  combined?: boolean
}

const target = (type: 1 | 2 | 3 | 4): V1Field => {
  const { field, kind } = TARGET_KINDS[type]
  return { name: field, key: kind, schema: (as) => targetList(as, kind), readsBlank: true, readsLists: true, targetType: type }
}

/** In the order errors are reported. */
export const V1_FIELDS: readonly V1Field[] = [
  { name: 'url', key: 'url', schema: urlValue, required: 'the long URL to shorten' },
  // a branded-domain id; absent = the default domain
  { name: 'domain', synonyms: ['domain_id'], key: 'domainId', schema: idValue, createOnly: true },
  { name: 'alias', key: 'alias', schema: aliasValue },
  { name: 'password', key: 'password', schema: secret, clearable: true },
  { name: 'space', synonyms: ['space_id'], key: 'channelIds', schema: (as) => idValue(as).transform((id) => [id]), clearable: true },
  { name: 'pixels', synonyms: ['pixel_ids'], key: 'pixelIds', schema: pixelList, readsBlank: true, readsLists: true },
  { name: 'disabled', key: 'disabled', schema: flag, readsLists: true },
  { name: 'privacy', key: 'privacy', schema: (as) => intValue(as, 0, 2, '0 (public), 1 (private) or 2 (password)') },
  { name: 'privacy_password', key: 'privacyPassword', schema: secret, clearable: true },
  { name: 'expiration_url', key: 'expirationUrl', schema: urlValue, clearable: true },
  // 0 means no cap, as in the original product
  { name: 'expiration_clicks', key: 'expirationClicks', schema: (as) => intValue(as, 0, MAX_ID).transform((n) => n || null), clearable: true },
  // expiration_date + expiration_time (HH:MM, default 00:00, UTC) → expiresAt
  { name: 'expiration_date', key: 'expiresAt', schema: dateValue, clearable: true, combined: true },
  { name: 'expiration_time', key: 'expiresAt', schema: timeValue, combined: true },
  // (extension) the link's title
  { name: 'title', key: 'title', schema: (as) => stringy(as).pipe(text(as, 255)), clearable: true },
  {
    name: 'target_type',
    key: 'targetType',
    schema: (as) => intValue(as, 0, 4, '0 (none), 1 (geographic), 2 (platform), 3 (language) or 4 (rotation)'),
  },
  target(1),
  target(2),
  target(3),
  target(4),
]

const TARGET_TYPE = V1_FIELDS.find((row) => row.key === 'targetType')!

/** What v1 needs to know about the stored link to read an update body. */
export interface CurrentLink {
  expiresAt: Date | null
  targetCounts: Record<TargetKind, number>
}

/** LinkInput key → the v1 name the caller used for it (a synonym when that is what was sent). */
export type V1Names = Partial<Record<keyof LinkInput, string>>

export interface V1Write {
  input: LinkInput
  names: V1Names
}

type Errors = Record<string, string[]>
const fail = (errors: Errors, field: string, message: string) => (errors[field] ??= []).push(message)

/**
 * Turns a v1 body (form or JSON, already parsed) into the LinkInput of the link write service.
 * Every field is checked, and all failures are answered together as one 422 naming the fields as
 * they were sent (Laravel's `errors` object).
 */
export function readV1Body(raw: unknown, mode: Mode, current?: CurrentLink): V1Write {
  if (raw === undefined || raw === null) raw = {}
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ApiError(422, 'The request body must be an object of fields.', { body: ['The request body must be an object of fields.'] })
  }
  const body = raw as Record<string, unknown>
  const errors: Errors = {}
  const got = new Map<V1Field, unknown>()
  const names: V1Names = {}

  for (const row of V1_FIELDS) {
    if (row.createOnly && mode === 'update') continue
    const { as, value } = pick(body, row.name, ...(row.synonyms ?? []))
    names[row.key] ??= as
    if (row.targetType !== undefined && got.has(TARGET_TYPE) && got.get(TARGET_TYPE) !== row.targetType) continue
    if (row.required && mode === 'create' && isBlank(value ?? '')) {
      fail(errors, as, `${as} is required: ${row.required}.`)
      continue
    }
    if (value === undefined) continue
    if (!row.readsBlank && isBlank(value) && typeof value !== 'boolean') {
      if (row.clearable && mode === 'update') got.set(row, null)
      continue
    }
    if (!row.readsLists && typeof value === 'object' && value !== null) {
      fail(errors, as, `${as} must be a single value, not a list.`)
      continue
    }
    const r = row.schema(as).safeParse(value)
    if (r.success) got.set(row, r.data)
    else for (const issue of r.error.issues) fail(errors, [as, ...issue.path.map(String)].join('.'), issue.message)
  }

  const input: LinkInput = {}
  for (const [row, value] of got) if (!row.combined) Object.assign(input, { [row.key]: value })
  readExpiry(input, got, mode, current, errors)
  readTargetType(input, mode, current, errors)

  if (Object.keys(errors).length) {
    const [first] = Object.values(errors)
    const more = Object.values(errors).flat().length - 1
    throw new ApiError(422, more > 0 ? `${first[0]} (and ${more} more error${more > 1 ? 's' : ''})` : first[0], errors)
  }
  return { input, names }
}

type Day = { y: number; mo: number; d: number }
type Time = { h: number; mi: number; s: number }

/** expiration_date + expiration_time → expiresAt; on update, a time alone moves the stored end within its day. */
function readExpiry(input: LinkInput, got: Map<V1Field, unknown>, mode: Mode, current: CurrentLink | undefined, errors: Errors) {
  const [dateRow, timeRow] = V1_FIELDS.filter((r) => r.combined)
  let date = got.get(dateRow) as Day | null | undefined
  const time = got.get(timeRow) as Time | undefined
  if (date === undefined && time && mode === 'update' && current?.expiresAt) {
    const e = current.expiresAt
    date = { y: e.getUTCFullYear(), mo: e.getUTCMonth() + 1, d: e.getUTCDate() }
  }
  if (date) {
    const tm = time ?? { h: 0, mi: 0, s: 0 }
    input.expiresAt = new Date(Date.UTC(date.y, date.mo - 1, date.d, tm.h, tm.mi, tm.s))
    // a new link cannot start out expired; an update may end a link now
    if (mode === 'create' && input.expiresAt.getTime() <= Date.now()) {
      fail(errors, dateRow.name, `${dateRow.name}: must be in the future (it is now ${toTimestamp(new Date())} UTC).`)
    }
  } else if (date === null) {
    input.expiresAt = null
  }
}

/**
 * With a target_type, the link is targeted by that kind only, as in the original product: its
 * list must have a target (sent now or stored), and on update the other kinds are cleared.
 */
function readTargetType(input: LinkInput, mode: Mode, current: CurrentLink | undefined, errors: Errors) {
  const targetType = input.targetType
  if (targetType === undefined) return
  if (targetType === 0) {
    // no targeting: every kind is cleared (nothing to clear on create)
    if (mode === 'update') Object.assign(input, { geo: [], device: [], language: [], rotation: [] })
    return
  }
  const { field: name, kind } = TARGET_KINDS[targetType as 1 | 2 | 3 | 4]
  const sent = input[kind]
  const stored = mode === 'update' ? (current?.targetCounts[kind] ?? 0) : 0
  const listFailed = Object.keys(errors).some((k) => k === name || k.startsWith(`${name}.`))
  if ((sent === undefined && !listFailed && !stored) || sent?.length === 0) {
    fail(errors, name, `${name} needs at least one target when target_type is ${targetType}.`)
  }
  for (const other of ['geo', 'device', 'language', 'rotation'] as const) {
    if (other !== kind && mode === 'update') input[other] = []
  }
}

/** `{key: 'geo', path: [0, 'url']}` → `country.0.value`: a service field error in the v1 names the caller used. */
export const v1Name =
  (names: V1Names) =>
  ({ key, path = [] }: FieldRef): string =>
    [names[key as keyof LinkInput] ?? key, ...path.map((part) => (part === 'url' ? 'value' : part))].join('.')
