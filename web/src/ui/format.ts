import { countryOptions, countryName as targetCountryName } from '../../../src/lib/targets.js'

/** Dates: the API speaks `YYYY-MM-DD HH:MM:SS` in UTC; people read their own time zone, via Intl. */
export function parseApiDate(value: string | null | undefined): Date | null {
  if (!value) return null
  const d = new Date(value.replace(' ', 'T') + (value.length > 10 ? 'Z' : 'T00:00:00Z'))
  return Number.isNaN(d.getTime()) ? null : d
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' })
const number = new Intl.NumberFormat()

export const formatDateTime = (value: string | null | undefined) => {
  const d = parseApiDate(value)
  return d ? dateTime.format(d) : '—'
}
export const formatDate = (value: string | null | undefined) => {
  const d = parseApiDate(value)
  return d ? dateOnly.format(d) : '—'
}
export const formatNumber = (n: number) => number.format(n)

/** `<input type="datetime-local">` value (local time) ↔ the API's UTC timestamp. */
export function localInputToApi(value: string): string {
  if (!value) return ''
  const d = new Date(value)
  return d.toISOString().slice(0, 19).replace('T', ' ')
}
export function apiToLocalInput(value: string | null | undefined): string {
  const d = parseApiDate(value)
  if (!d) return ''
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`
}

const regionNames = new Intl.DisplayNames(['en'], { type: 'region' })
/** A country code of the statistics as a name: the targets' names first (the picker's), then Intl's. */
export function countryName(code: string): string {
  try {
    return /^[A-Z]{2}$/i.test(code) ? (targetCountryName(code) ?? regionNames.of(code.toUpperCase()) ?? code) : code
  } catch {
    return code
  }
}
/**
 * The country pickers offer exactly the countries a target may name (the server's list and names,
 * src/lib/targets.ts, a pure module): no retired or pseudo code (DD, SU, XA…) the API would refuse.
 */
export const COUNTRY_OPTIONS: { code: string; name: string }[] = countryOptions()

/** YYYY-MM-DD of a Date in UTC (the stats API's range unit). */
export const isoDay = (d: Date) => d.toISOString().slice(0, 10)

/** A path on this origin for a URL the API printed with PUBLIC_URL (QR images). */
export function localPath(url: string): string {
  try {
    const u = new URL(url)
    return u.pathname + u.search
  } catch {
    return url
  }
}
