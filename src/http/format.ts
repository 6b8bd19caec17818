const pad = (n: number) => String(n).padStart(2, '0')

/** 'YYYY-MM-DD HH:MM:SS' in UTC (SPEC.md timestamps); null stays null. */
export function toTimestamp(d: Date): string
export function toTimestamp(d: Date | null | undefined): string | null
export function toTimestamp(d: Date | null | undefined): string | null {
  if (!d) return null
  return `${toDay(d)} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`
}

/** 'YYYY-MM-DD' in UTC (channel items, rollup days). */
export function toDay(d: Date): string {
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`
}

const SPEC_TS = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?$/

/** Parses 'YYYY-MM-DD HH:MM:SS' (UTC) or ISO 8601; null when it is not a real date. */
export function parseTimestamp(value: string): Date | null {
  const v = value.trim()
  const m = SPEC_TS.exec(v)
  if (m) {
    const [y, mo, d, h, mi, s] = m.slice(1).map((x) => Number(x ?? 0))
    const date = new Date(Date.UTC(y, mo - 1, d, h, mi, s))
    // reject 2025-02-31 and 25:00, which Date.UTC would roll over
    if (date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) return null
    return date
  }
  if (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(v)) return null
  const date = new Date(v.length === 10 ? `${v}T00:00:00Z` : v)
  return Number.isNaN(date.getTime()) ? null : date
}
