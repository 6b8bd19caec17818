import type { DeepLink, LinkParameter, LinkType } from '../db/schema/index.js'
import { deviceMatches } from '../lib/targets.js'
import type { Device } from './visitor.js'

/**
 * PURE: what a visit of a link gets, in the order of DECISIONS §5. No Fastify, no database, no
 * clock (`now` is passed in), so every branch is a unit test.
 */

export interface ResolvableLink {
  url: string
  type: LinkType
  disabled: boolean
  passwordHash: string | null
  expiresAt: number | null
  expirationUrl: string | null
  expirationClicks: number | null
  metaTitle: string | null
  metaDescription: string | null
  metaImage: string | null
  deepLink: DeepLink | null
  parameters: LinkParameter[]
  targets: {
    device: { match: string; url: string }[]
    geo: { match: string; url: string }[]
    language: { match: string; url: string }[]
    rotation: string[]
  }
  /** 1-based position of the rotation target served last; 0 = none yet */
  lastRotation: number
}

export interface VisitContext {
  device: Device | null
  /** the visitor's system is Ubuntu (device is then Linux) */
  ubuntu?: boolean
  /** ISO 3166-1 alpha-2, or null when unknown (looked up only when the link has geo targets) */
  country: string | null
  language: string | null
  /** a social network's link-preview fetcher */
  isCrawler: boolean
  /** the visitor's raw query string, without the `?` */
  query: string
  /** the visitor holds a valid cookie for this link's password (or just gave the right one) */
  unlocked: boolean
  /** human clicks so far, live (DECISIONS §5 step 3, `expiration_clicks`) */
  clicks: number
}

export type Outcome =
  | { kind: 'disabled' }
  | { kind: 'expired'; url: string | null }
  | { kind: 'password' }
  | { kind: 'crawler' }
  | { kind: 'go'; url: string; type: LinkType; rotation?: number }

export function isExpired(link: Pick<ResolvableLink, 'expiresAt' | 'expirationClicks'>, clicks: number, now: number): boolean {
  if (link.expiresAt !== null && link.expiresAt <= now) return true
  return link.expirationClicks !== null && link.expirationClicks > 0 && clicks >= link.expirationClicks
}

/** Whether a link is active: not disabled and not expired (campaign rotator, v1 status 1). */
export function isActive(link: Pick<ResolvableLink, 'disabled' | 'expiresAt' | 'expirationClicks'>, clicks: number, now: number) {
  return !link.disabled && !isExpired(link, clicks, now)
}

export const hasMeta = (link: Pick<ResolvableLink, 'metaTitle' | 'metaDescription' | 'metaImage'>) =>
  Boolean(link.metaTitle || link.metaDescription || link.metaImage)

export function resolve(link: ResolvableLink, ctx: VisitContext, now: number): Outcome {
  // 3. disabled, then expired by date or by clicks
  if (link.disabled) return { kind: 'disabled' }
  if (isExpired(link, ctx.clicks, now)) return { kind: 'expired', url: link.expirationUrl }
  // 4. password
  if (link.passwordHash && !ctx.unlocked) return { kind: 'password' }
  // 5. social crawlers get the Open Graph page when there is something to show
  if (ctx.isCrawler && hasMeta(link)) return { kind: 'crawler' }
  // 6. destination, then the visitor's query and the link's parameters
  const { url, rotation } = destination(link, ctx)
  return { kind: 'go', url: withParameters(url, ctx.query, link.parameters), type: link.type, rotation }
}


/** Deep link, then device, geo, language and rotation targets, else the long URL. */
export function destination(link: ResolvableLink, ctx: Pick<VisitContext, 'device' | 'ubuntu' | 'country' | 'language'>): { url: string; rotation?: number } {
  const dl = link.deepLink
  if (dl) {
    if ((ctx.device === 'iPhone' || ctx.device === 'iPad') && dl.apple) return { url: dl.apple }
    if (ctx.device === 'Android' && dl.google) return { url: dl.google }
  }
  // the most specific target first: an Ubuntu visitor takes a `Ubuntu` target over a `Linux` one
  const device =
    (ctx.ubuntu && link.targets.device.find((t) => t.match.toLowerCase() === 'ubuntu')) ||
    link.targets.device.find((t) => deviceMatches(t.match, ctx.device))
  if (device) return { url: device.url }
  if (ctx.country) {
    const geo = link.targets.geo.find((t) => t.match.toUpperCase() === ctx.country)
    if (geo) return { url: geo.url }
  }
  if (ctx.language) {
    const lang = link.targets.language.find((t) => t.match.toLowerCase().split(/[-_]/)[0] === ctx.language)
    if (lang) return { url: lang.url }
  }
  const n = link.targets.rotation.length
  if (n > 0) {
    const index = ((link.lastRotation % n) + n) % n
    return { url: link.targets.rotation[index], rotation: index + 1 }
  }
  return { url: link.url }
}

// ------------------------------------------------------------------ URL building

const HEX2 = /^[0-9A-Fa-f]{2}$/

/** Percent-encodes one character as UTF-8 (a lone surrogate becomes U+FFFD). */
function encodeChar(ch: string): string {
  return Array.from(Buffer.from(ch, 'utf8'), (b) => '%' + b.toString(16).toUpperCase().padStart(2, '0')).join('')
}

/**
 * Makes a URL safe for a Location header and an HTML attribute without double encoding: existing
 * %XX escapes stay, a stray `%` becomes %25, and everything outside printable ASCII (CR and LF
 * included), plus `"<>\^`{|}` and space, is percent-encoded as UTF-8. A non-ASCII host becomes
 * punycode.
 */
export function safeUrl(url: string): string {
  let out = ''
  for (let i = 0; i < url.length; i++) {
    const ch = url[i]
    const code = url.charCodeAt(i)
    if (ch === '%') {
      out += HEX2.test(url.slice(i + 1, i + 3)) ? '%' : '%25'
    } else if (code >= 0xd800 && code <= 0xdbff && i + 1 < url.length) {
      const next = url.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        out += encodeChar(url.slice(i, i + 2))
        i++
      } else out += encodeChar(ch)
    } else if (code <= 0x20 || code >= 0x7f || '"<>\\^`{|}'.includes(ch)) {
      out += encodeChar(ch)
    } else out += ch
  }
  return punycodeHost(url, out)
}

/** `https://bücher.example/x` → `https://xn--bcher-kva.example/x` (the rest already encoded). */
function punycodeHost(original: string, encoded: string): string {
  const m = /^(https?:\/\/)([^/?#]*)/i.exec(original)
  if (!m || /^[\x21-\x7e]*$/.test(m[2])) return encoded
  try {
    const host = new URL(`${m[1]}${m[2]}/`).host
    const em = /^(https?:\/\/)([^/?#]*)/i.exec(encoded)!
    return em[1] + host + encoded.slice(em[0].length)
  } catch {
    return encoded
  }
}

/** Query-string name as a key for comparison: `+` is a space, escapes decoded where valid. */
function nameKey(raw: string): string {
  const s = raw.replace(/\+/g, ' ')
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

const encodeQueryPart = (s: string) => encodeURIComponent(s).replace(/%20/g, '+')

/**
 * The destination with the visitor's query forwarded and the link's `parameters` set (DECISIONS
 * §5 step 6): the visitor's parameters override the destination's own, the link's override both.
 * Existing pairs keep their original encoding; the fragment stays last.
 */
export function withParameters(dest: string, visitorQuery: string, parameters: LinkParameter[]): string {
  const hashAt = dest.indexOf('#')
  const fragment = hashAt >= 0 ? dest.slice(hashAt) : ''
  const beforeHash = hashAt >= 0 ? dest.slice(0, hashAt) : dest
  const qAt = beforeHash.indexOf('?')
  const base = qAt >= 0 ? beforeHash.slice(0, qAt) : beforeHash
  const ownQuery = qAt >= 0 ? beforeHash.slice(qAt + 1) : ''

  const pairs: { key: string; raw: string }[] = []
  const add = (raw: string, override: boolean) => {
    if (raw === '') return
    const eq = raw.indexOf('=')
    const key = nameKey(eq >= 0 ? raw.slice(0, eq) : raw)
    if (override) {
      for (let i = pairs.length - 1; i >= 0; i--) if (pairs[i].key === key) pairs.splice(i, 1)
    }
    pairs.push({ key, raw })
  }
  for (const raw of ownQuery.split('&')) add(raw, false)
  // the visitor's pairs replace the destination's names they repeat; repeated names among their own stay
  const visitorPairs = visitorQuery.split('&').filter((p) => p !== '')
  const visitorKeys = new Set(visitorPairs.map((p) => nameKey(p.split('=')[0])))
  for (let i = pairs.length - 1; i >= 0; i--) if (visitorKeys.has(pairs[i].key)) pairs.splice(i, 1)
  for (const raw of visitorPairs) add(raw, false)
  for (const p of parameters) {
    if (!p || typeof p.name !== 'string' || p.name === '') continue
    add(`${encodeQueryPart(p.name)}=${encodeQueryPart(String(p.value ?? ''))}`, true)
  }
  if (pairs.length === 0 && qAt < 0) return safeUrl(dest)
  const query = pairs.map((p) => p.raw).join('&')
  return safeUrl(`${base}${query || qAt >= 0 ? '?' : ''}${query}${fragment}`)
}
