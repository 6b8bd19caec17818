import { parseTimestamp } from '../../http/format.js'
import { parseCsv, unguardCell } from './csv.js'

/*
 * The export files of the shorteners people leave, read into one shape. Columns are matched by
 * name (case, spaces, dashes and underscores ignored), so a re-ordered or trimmed file still
 * reads. What each product writes (and what is kept of it) is in README "Import".
 */

export const IMPORT_FORMATS = ['csv', 'bitly', 'yourls', 'shlink', 'kutt'] as const
export type ImportFormat = (typeof IMPORT_FORMATS)[number]

/** One link to create, as `/api/url/add` fields plus what the source knew about its past. */
export interface ImportRecord {
  /** line of a CSV file, or position (1-based) in a JSON list */
  line: number
  /** body for the link rules of /api/url/add; only strings, so every rule applies as to a client */
  body: { url?: unknown; custom?: string; title?: string; description?: string; expiry?: string }
  /** host of the source's short domain, when it names one (used when the account owns that domain) */
  host?: string
  clicks?: number
  uniqueClicks?: number
  createdAt?: Date
}

/** An import file: CSV text, or a parsed JSON document (a JSON string is not CSV text). */
export type ImportFile = { csv: string } | { json: unknown }

/** A row the reader refused before the link rules saw it. */
export interface ReadError {
  line: number
  message: string
}

type Fields = Record<string, unknown>
const norm = (k: string) => k.toLowerCase().replace(/[\s_-]+/g, '')

/** The first present, non-blank value among `names` (normalised column names). */
function pick(f: Fields, ...names: string[]): string | undefined {
  for (const n of names) {
    const v = f[n]
    if (v === undefined || v === null) continue
    const s = typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : undefined
    if (s) return s
  }
  return undefined
}

function count(v: string | undefined): number | undefined {
  if (v === undefined || !/^\d{1,10}$/.test(v)) return undefined
  return Math.min(Number(v), 2 ** 31 - 1)
}

/** Dates as the sources write them: `YYYY-MM-DD HH:MM:SS` (UTC), ISO 8601, or Unix seconds (Bitly's API). */
function date(v: string | undefined): Date | undefined {
  if (v === undefined) return undefined
  if (/^\d{9,10}$/.test(v)) return new Date(Number(v) * 1000)
  const d = parseTimestamp(v.replace(/\s+UTC$/i, '').replace(/(\.\d+)?\s*\+0000$/, 'Z'))
  return d && d.getTime() <= Date.now() ? d : undefined
}

/** The alias and host of a short URL given as `https://host/alias`, `host/alias` or a bare alias. */
function shortParts(v: string | undefined): { alias?: string; host?: string } {
  if (!v) return {}
  if (!v.includes('/')) return { alias: v }
  try {
    const u = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(v) ? v : `https://${v}`)
    const alias = decodeURIComponent(u.pathname.replace(/^\/+|\/+$/g, ''))
    return { alias: alias || undefined, host: u.host.toLowerCase() }
  } catch {
    return {}
  }
}

type Mapper = (f: Fields, line: number) => ImportRecord

/** Where each format keeps the destination (normalised column names, first present wins). */
const URL_COLUMNS: Record<ImportFormat, string[]> = {
  csv: ['longurl', 'url', 'destinationurl', 'target', 'destination'],
  bitly: ['destinationurl', 'longurl', 'destination', 'url'],
  yourls: ['url', 'longurl'],
  shlink: ['longurl'],
  kutt: ['target'],
}

const MAPPERS: Record<ImportFormat, Mapper> = {
  // Kurz's own export (GET /api/urls/export) or any sheet with a url column
  csv: (f, line) => {
    const short = shortParts(pick(f, 'shorturl'))
    return {
      line,
      body: {
        url: pick(f, ...URL_COLUMNS.csv),
        custom: pick(f, 'alias', 'custom', 'shortcode', 'keyword') ?? short.alias,
        title: pick(f, 'title'),
        description: pick(f, 'description'),
        expiry: pick(f, 'expiry'),
      },
      host: shortParts(pick(f, 'domain')).host ?? short.host,
      clicks: count(pick(f, 'clicks', 'visits')),
      uniqueClicks: count(pick(f, 'uniqueclicks')),
      createdAt: date(pick(f, 'date', 'createdat', 'created')),
    }
  },
  // Links → Export in Bitly's app (CSV), or the v4 API's bitlinks JSON
  bitly: (f, line) => {
    const customs = Array.isArray(f.custombitlinks) ? (f.custombitlinks as unknown[]).filter((x): x is string => typeof x === 'string') : []
    const short = shortParts(pick(f, 'customlink', 'custombitlink') ?? customs[0] ?? pick(f, 'link', 'bitlink', 'shortlink', 'id'))
    return {
      line,
      body: { url: pick(f, ...URL_COLUMNS.bitly), custom: short.alias, title: pick(f, 'title') },
      host: short.host,
      clicks: count(pick(f, 'clicks', 'totalclicks', 'engagements', 'totalengagements')),
      createdAt: date(pick(f, 'datecreated', 'createdat', 'created')),
    }
  },
  // the yourls_url table (keyword, url, title, timestamp, ip, clicks) or the API's action=stats JSON
  yourls: (f, line) => {
    const short = shortParts(pick(f, 'keyword') ?? pick(f, 'shorturl'))
    return {
      line,
      body: { url: pick(f, ...URL_COLUMNS.yourls), custom: short.alias, title: pick(f, 'title') },
      host: pick(f, 'keyword') ? undefined : short.host,
      clicks: count(pick(f, 'clicks')),
      createdAt: date(pick(f, 'timestamp')),
    }
  },
  // shlink-web-client's CSV export, or the REST API's short URL list
  shlink: (f, line) => {
    const summary = (f.visitssummary ?? {}) as Fields
    return {
      line,
      body: { url: pick(f, ...URL_COLUMNS.shlink), custom: pick(f, 'shortcode') ?? shortParts(pick(f, 'shorturl')).alias, title: pick(f, 'title') },
      host: shortParts(pick(f, 'domain')).host ?? shortParts(pick(f, 'shorturl')).host,
      clicks: count(pick(summary, 'total') ?? pick(f, 'visits', 'visitscount')),
      uniqueClicks: undefined,
      createdAt: date(pick(f, 'datecreated', 'createdat')),
    }
  },
  // Kutt's API list (GET /api/v2/links: address, target, description, visit_count, created_at, domain)
  kutt: (f, line) => ({
    line,
    body: { url: pick(f, ...URL_COLUMNS.kutt), custom: pick(f, 'address'), description: pick(f, 'description') },
    host: shortParts(pick(f, 'domain')).host ?? shortParts(pick(f, 'link')).host,
    clicks: count(pick(f, 'visitcount')),
    createdAt: date(pick(f, 'createdat')),
  }),
}

function normalised(o: Fields): Fields {
  const out: Fields = {}
  for (const [k, v] of Object.entries(o)) out[norm(k)] ??= v && typeof v === 'object' && !Array.isArray(v) ? normalised(v as Fields) : v
  return out
}

/** The list of link objects inside a product's JSON: a bare array, or the product's envelope. */
function jsonItems(doc: unknown): unknown[] | null {
  if (Array.isArray(doc)) return doc
  if (!doc || typeof doc !== 'object') return null
  const o = doc as Record<string, any>
  for (const candidate of [o.links, o.data, o.shortUrls?.data, o.shortUrls, o.urls, o.result]) {
    if (Array.isArray(candidate)) return candidate
    // YOURLS action=stats: {links: {link_1: {...}, link_2: {...}}}
    if (candidate && typeof candidate === 'object' && Object.keys(candidate).every((k) => /^link_\d+$/.test(k))) return Object.values(candidate)
  }
  return null
}

/**
 * Reads a file of `format` lazily. Rows the reader cannot use at all (no columns, not an object)
 * come out as errors; everything else is left to the link rules.
 */
export function* readImport(format: ImportFormat, file: ImportFile): Generator<ImportRecord | ReadError> {
  const map = MAPPERS[format]
  if ('csv' in file) {
    let header: string[] | null = null
    let rows = 0
    for (const rec of parseCsv(file.csv)) {
      if (!header) {
        // a list of bare URLs (optionally with an alias) has no header line
        if (/^https?:\/\//i.test(rec.cells[0]?.trim() ?? '')) header = ['url', 'alias', 'title']
        else {
          header = rec.cells.map(norm)
          // a file of another format (or no CSV at all) would refuse every row for want of a URL: say so once
          if (!URL_COLUMNS[format].some((c) => header!.includes(c))) {
            yield { line: rec.line, message: `This is not a ${format} export: its header line has no ${URL_COLUMNS[format].join(' or ')} column.` }
            return
          }
          continue
        }
      }
      // Kurz's own export guards formula cells with an apostrophe (csv.ts): taken off again here
      rows++
      const cells = format === 'csv' ? rec.cells.map(unguardCell) : rec.cells
      const fields: Fields = {}
      header.forEach((h, i) => (fields[h] ??= cells[i]))
      yield map(fields, rec.line)
    }
    if (!header) yield { line: 1, message: 'The file is empty: it needs a header line and one line per link.' }
    else if (!rows) yield { line: 1, message: 'The file has a header line but no links below it.' }
    return
  }
  const items = jsonItems(file.json)
  if (!items) {
    const message = typeof file.json === 'string' ? 'This JSON is a string, not a list of links: send CSV text as text/csv.' : `This JSON is not a ${format} export: expected a list of links.`
    yield { line: 1, message }
    return
  }
  if (items.length === 0) yield { line: 1, message: 'The file holds no links.' }
  for (let i = 0; i < items.length; i++) {
    const item = items[i]
    if (!item || typeof item !== 'object' || Array.isArray(item)) yield { line: i + 1, message: 'This entry is not a link object.' }
    else yield map(normalised(item as Fields), i + 1)
  }
}
