import type { DeepLink, LinkParameter, LinkType } from '../db/schema/index.js'
import { deviceMatches, type Device } from '../lib/targets.js'
import { withParameters } from '../visit/url.js'

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
