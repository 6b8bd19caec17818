import { z } from 'zod'
import type { QrType } from '../../db/schema/qr.js'
import { zodToApiError } from '../../http/errors.js'
import { ANY_CONTROL_CHAR, boolish, CONTROL_CHARS, email as emailField, optional, text } from '../../http/fields.js'
import { checkUrl, namedUrlProblem } from '../../lib/url.js'

/**
 * What a QR code of each type holds (DECISIONS §7). `data` is a string (the finished content) or an
 * object by type; both become:
 * - `target`: where a scan of /q/<alias> goes – an http(s) URL, `mailto:`, `tel:` or `sms:` URI,
 *   or for vcard the vCard text served to the scanning phone; null for text and wifi (no scans);
 * - `content`: what the image encodes – the text or WIFI: string itself, or null meaning
 *   "the tracked scan URL PUBLIC_URL/q/<alias>" (known only once the alias is).
 */
export interface QrContent {
  /** the normalised `data`, stored as sent after validation */
  data: unknown
  target: string | null
  content: string | null
}

const MAX_TEXT = 4096

// ---------------------------------------------------------------------------------------------
// Pieces

/** Percent-encodes everything outside printable ASCII, so a target is always a valid Location header. */
export function asciiUri(uri: string): string {
  return uri.replace(/[^\x21-\x7e]+/g, (s) => encodeURIComponent(s))
}

const PHONE_SEPARATORS = /[\s().\-/]/g
/** A phone number: digits with an optional leading +, separators dropped; 3 to 20 digits. */
export function normalisePhone(input: string): string | null {
  const s = input.trim().replace(PHONE_SEPARATORS, '')
  return /^\+?\d{3,20}$/.test(s) ? s : null
}

const phone = (field: string) =>
  z.string({ message: `${field} must be a string.` }).transform((v, ctx) => {
    const p = normalisePhone(v.replace(/^tel:/i, ''))
    if (p) return p
    ctx.addIssue({ code: 'custom', message: `${field} must be a phone number such as +1 555 123 4567 (3 to 20 digits).` })
    return z.NEVER
  })

const email = (field: string) => emailField(field)

/** The string form: a finished, non-empty content with no control characters but line breaks. */
const finished = (field: string, max = MAX_TEXT, typeMessage = `${field} must be a string.`) =>
  z
    .string({ message: typeMessage })
    .refine((s) => s.trim() !== '', `${field} must not be empty.`)
    .refine((s) => s.length <= max, `${field} must be at most ${max} characters.`)
    .refine((s) => !CONTROL_CHARS.test(s), `${field} must not contain control characters.`)

function mailto(address: string, subject?: string, body?: string): string {
  const params: string[] = []
  if (subject) params.push(`subject=${encodeURIComponent(subject)}`)
  // RFC 6068: line breaks in a body are CRLF
  if (body) params.push(`body=${encodeURIComponent(body.replace(/\r?\n/g, '\r\n'))}`)
  return `mailto:${address}${params.length ? `?${params.join('&')}` : ''}`
}

function smsUri(number: string, message?: string): string {
  // RFC 5724: sms:<number>?body=<message>
  return `sms:${number}${message ? `?body=${encodeURIComponent(message)}` : ''}`
}

/** WIFI: strings escape \ ; , : and " with a backslash (ZXing's MECARD-like format). */
export function escapeWifi(value: string): string {
  return value.replace(/([\\;,:"])/g, '\\$1')
}

export function wifiContent(w: { ssid: string; password?: string; encryption: 'WPA' | 'WEP' | 'nopass'; hidden?: boolean }): string {
  let s = `WIFI:T:${w.encryption};S:${escapeWifi(w.ssid)};`
  if (w.encryption !== 'nopass' && w.password) s += `P:${escapeWifi(w.password)};`
  if (w.hidden) s += 'H:true;'
  return `${s};`
}

export interface VCardFields {
  fname: string
  lname?: string
  phone?: string
  email?: string
  company?: string
  site?: string
  address?: string
  city?: string
  country?: string
}

/** vCard TEXT escaping (RFC 2426 §4): backslash, comma, semicolon, and line breaks as \n. */
export function escapeVCard(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/,/g, '\\,').replace(/;/g, '\\;').replace(/\r\n|\r|\n/g, '\\n')
}

/** Folds a content line at 75 octets (RFC 2425 §5.8.1) without splitting a UTF-8 character. */
export function foldLine(line: string): string {
  const out: string[] = []
  let current = ''
  let bytes = 0
  for (const ch of line) {
    const n = Buffer.byteLength(ch)
    const limit = out.length === 0 ? 75 : 74 // continuation lines start with a space
    if (bytes + n > limit) {
      out.push(current)
      current = ''
      bytes = 0
    }
    current += ch
    bytes += n
  }
  out.push(current)
  return out.join('\r\n ')
}

/** A vCard 3.0 (RFC 2426), CRLF line endings, every text value escaped. */
export function buildVCard(v: VCardFields): string {
  const e = escapeVCard
  const lines = ['BEGIN:VCARD', 'VERSION:3.0', `N:${e(v.lname ?? '')};${e(v.fname)};;;`, `FN:${e([v.fname, v.lname].filter(Boolean).join(' '))}`]
  if (v.company) lines.push(`ORG:${e(v.company)}`)
  if (v.phone) lines.push(`TEL;TYPE=CELL:${e(v.phone)}`)
  if (v.email) lines.push(`EMAIL;TYPE=INTERNET:${e(v.email)}`)
  if (v.site) lines.push(`URL:${v.site}`)
  if (v.address || v.city || v.country) lines.push(`ADR;TYPE=WORK:;;${e(v.address ?? '')};${e(v.city ?? '')};;;${e(v.country ?? '')}`)
  lines.push('END:VCARD')
  return `${lines.map(foldLine).join('\r\n')}\r\n`
}

// ---------------------------------------------------------------------------------------------
// Data shapes per type

const siteUrl = (field: string) =>
  z.string({ message: `${field} must be a string.` }).transform((v, ctx) => {
    const s = v.trim()
    const r = checkUrl(/^[a-z][a-z0-9+.-]*:/i.test(s) ? s : `https://${s}`, { httpOnly: true })
    if (r.ok) return r.parsed ? r.parsed.href : r.url
    ctx.addIssue({ code: 'custom', message: namedUrlProblem(field, r.message) })
    return z.NEVER
  })

const ENCRYPTIONS = { wpa: 'WPA', wpa2: 'WPA', wpa3: 'WPA', 'wpa/wpa2': 'WPA', wep: 'WEP', nopass: 'nopass', none: 'nopass', open: 'nopass' } as const

const wifiObject = z
  .object(
    {
      ssid: z
        .string({ message: 'data.ssid must be a string: the network name.' })
        .min(1, 'data.ssid must not be empty.')
        .refine((s) => Buffer.byteLength(s) <= 32, 'data.ssid must be at most 32 bytes.')
        .refine((s) => !ANY_CONTROL_CHAR.test(s), 'data.ssid must not contain control characters.'),
      password: optional(
        z
          .string({ message: 'data.password must be a string.' })
          .max(64, 'data.password must be at most 64 characters.')
          .refine((s) => !ANY_CONTROL_CHAR.test(s), 'data.password must not contain control characters.'),
      ),
      encryption: z
        .string({ message: 'data.encryption must be one of WPA, WEP, nopass.' })
        .transform((v, ctx) => {
          const enc = ENCRYPTIONS[v.trim().toLowerCase() as keyof typeof ENCRYPTIONS]
          if (enc) return enc
          ctx.addIssue({ code: 'custom', message: 'data.encryption must be one of WPA, WEP, nopass.' })
          return z.NEVER
        }),
      hidden: optional(boolish('data.hidden')),
    },
    { message: 'data must be an object {ssid, password, encryption} or a WIFI: string for type wifi.' },
  )
  .superRefine((w, ctx) => {
    if (w.encryption === 'nopass' && w.password) {
      ctx.addIssue({ code: 'custom', path: ['password'], message: 'data.password must be empty when encryption is nopass.' })
    }
    // `password?` (DECISIONS §7): a WPA or WEP code without one makes the phone ask for it, and its
    // length is the network's business, as in a WIFI: string sent whole
  })

const vcardObject = z.object(
  {
    fname: text('data.fname', 100, 1),
    lname: optional(text('data.lname', 100)),
    phone: optional(phone('data.phone')),
    email: optional(email('data.email')),
    company: optional(text('data.company', 255)),
    site: optional(siteUrl('data.site')),
    address: optional(text('data.address', 500)),
    city: optional(text('data.city', 100)),
    country: optional(text('data.country', 100)),
  },
  { message: 'data must be an object {fname, lname, phone, email, company, site, address, city, country} or a vCard string for type vcard.' },
)

const emailObject = z.object(
  {
    email: email('data.email'),
    subject: optional(text('data.subject', 255)),
    body: optional(
      z
        .string({ message: 'data.body must be a string.' })
        .max(2000, 'data.body must be at most 2000 characters.')
        .refine((s) => !CONTROL_CHARS.test(s), 'data.body must not contain control characters.'),
    ),
  },
  { message: 'data must be an object {email, subject, body} or an e-mail address for type email.' },
)

const smsObject = z.object(
  {
    phone: phone('data.phone'),
    message: optional(
      z
        .string({ message: 'data.message must be a string.' })
        .max(1000, 'data.message must be at most 1000 characters.')
        .refine((s) => !CONTROL_CHARS.test(s), 'data.message must not contain control characters.'),
    ),
  },
  { message: 'data must be an object {phone, message} or a phone number for type sms.' },
)

type Parsed = { data: unknown; target: string | null; content: string | null }
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** One schema per type, string form and object form; each yields the stored data, target and content. */
const SHAPES: Record<QrType, z.ZodType<Parsed>> = {
  text: finished('data', MAX_TEXT, 'data must be a string for type text.').transform((s) => ({ data: s, target: null, content: s })),

  link: z
    .string({ message: 'data must be a string (the URL) for type link.' })
    .transform((v, ctx) => {
      const r = checkUrl(v)
      if (!r.ok) {
        ctx.addIssue({ code: 'custom', message: namedUrlProblem('data', r.message) })
        return z.NEVER
      }
      return { data: r.url, target: r.parsed ? r.parsed.href : asciiUri(r.url), content: null }
    }),

  phone: z
    .string({ message: 'data must be a string (the phone number) for type phone.' })
    .transform((v, ctx) => {
      const p = normalisePhone(v.replace(/^tel:/i, ''))
      if (!p) {
        ctx.addIssue({ code: 'custom', message: 'data must be a phone number such as +1 555 123 4567 (3 to 20 digits).' })
        return z.NEVER
      }
      return { data: p, target: `tel:${p}`, content: null }
    }),

  email: z.unknown().transform((v, ctx): Parsed => {
    if (typeof v === 'string') {
      // an address, or a finished mailto: URL
      const m = /^mailto:([^?]*)(\?.*)?$/i.exec(v.trim())
      const address = z.string().trim().max(254).pipe(z.email()).safeParse(m ? decodeURIComponentSafe(m[1]) : v)
      if (!address.success) {
        ctx.addIssue({ code: 'custom', message: 'data must be a valid e-mail address (or a mailto: URL) for type email.' })
        return z.NEVER
      }
      const rest = m?.[2] ?? ''
      if (rest.length > 4096) {
        ctx.addIssue({ code: 'custom', message: 'data must be at most 4096 characters.' })
        return z.NEVER
      }
      return { data: v.trim(), target: asciiUri(`mailto:${address.data}${rest}`), content: null }
    }
    const r = emailObject.safeParse(v)
    if (!r.success) return forward(r.error, ctx)
    const d = stripUndefined(r.data)
    return { data: d, target: mailto(r.data.email, r.data.subject, r.data.body), content: null }
  }),

  sms: z.unknown().transform((v, ctx): Parsed => {
    if (typeof v === 'string') {
      // a number, sms:<number>?body=…, or SMSTO:<number>:<message>
      const s = v.trim()
      let number = s
      let message: string | undefined
      const smsto = /^smsto:([^:]*)(?::([\s\S]*))?$/i.exec(s)
      const sms = /^sms:([^?]*)(?:\?(.*))?$/i.exec(s)
      if (smsto) {
        number = smsto[1]
        message = smsto[2]
      } else if (sms) {
        number = sms[1]
        message = new URLSearchParams(sms[2] ?? '').get('body') ?? undefined
      }
      const p = normalisePhone(number)
      if (!p) {
        ctx.addIssue({ code: 'custom', message: 'data must be a phone number (or an sms: / SMSTO: string) for type sms.' })
        return z.NEVER
      }
      if (message && message.length > 1000) {
        ctx.addIssue({ code: 'custom', message: 'data must carry a message of at most 1000 characters.' })
        return z.NEVER
      }
      return { data: s, target: smsUri(p, message || undefined), content: null }
    }
    const r = smsObject.safeParse(v)
    if (!r.success) return forward(r.error, ctx)
    return { data: stripUndefined(r.data), target: smsUri(r.data.phone, r.data.message || undefined), content: null }
  }),

  wifi: z.unknown().transform((v, ctx): Parsed => {
    if (typeof v === 'string') {
      const r = finished('data').safeParse(v)
      if (!r.success) return forward(r.error, ctx)
      if (!/^WIFI:.*;;$/is.test(v.trim())) {
        ctx.addIssue({ code: 'custom', message: 'data must be an object {ssid, password, encryption} or a string like WIFI:T:WPA;S:name;P:password;; for type wifi.' })
        return z.NEVER
      }
      return { data: v.trim(), target: null, content: v.trim() }
    }
    const r = wifiObject.safeParse(v)
    if (!r.success) return forward(r.error, ctx)
    return { data: stripUndefined(r.data), target: null, content: wifiContent(r.data) }
  }),

  vcard: z.unknown().transform((v, ctx): Parsed => {
    if (typeof v === 'string') {
      const r = finished('data', 8192).safeParse(v)
      if (!r.success) return forward(r.error, ctx)
      const s = v.trim()
      if (!/^BEGIN:VCARD\r?\n[\s\S]*\r?\nEND:VCARD$/i.test(s)) {
        ctx.addIssue({ code: 'custom', message: 'data must be an object {fname, …} or a vCard string from BEGIN:VCARD to END:VCARD for type vcard.' })
        return z.NEVER
      }
      return { data: s, target: `${s.replace(/\r?\n/g, '\r\n')}\r\n`, content: null }
    }
    const r = vcardObject.safeParse(v)
    if (!r.success) return forward(r.error, ctx)
    return { data: stripUndefined(r.data), target: buildVCard(r.data), content: null }
  }),
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>
}

/** Re-raises an inner object's issues on the outer context; the path gets its `data.` prefix later. */
function forward(err: z.ZodError, ctx: z.RefinementCtx): never {
  for (const issue of err.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path as (string | number)[] })
  return z.NEVER as never
}

/**
 * Validates `data` for a type; throws a 400 ApiError naming the field (`data`, `data.ssid`, …).
 */
export function parseQrData(type: QrType, data: unknown): QrContent {
  if (data === undefined || data === null || data === '') {
    throw zodToApiError(new z.ZodError([{ code: 'custom', path: ['data'], message: 'data is required.', input: data }]))
  }
  if (['text', 'link', 'phone'].includes(type) && isObject(data)) {
    const what = type === 'link' ? 'a string (the URL)' : type === 'phone' ? 'a string (the phone number)' : 'a string'
    throw zodToApiError(new z.ZodError([{ code: 'custom', path: ['data'], message: `data must be ${what} for type ${type}.`, input: data }]))
  }
  const r = SHAPES[type].safeParse(data)
  if (r.success) return r.data
  const issues = r.error.issues.map((i) => ({ ...i, path: ['data', ...i.path] }))
  throw zodToApiError(new z.ZodError(issues))
}
