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
  /** a blocklist entry matched it: visitors get the 451 warning page (DECISIONS §10.6) */
  quarantined?: boolean
  /** the health checker found the long URL broken (DECISIONS §10.5) */
  broken?: boolean
  /** where visits that would go to the long URL go while it is broken */
  fallback?: string | null
  /** the long URL with the link's parameters, kept on the link by the first visit that needs it */
  plainUrl?: string
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

/** Which rule chose the destination (the dry-run's `matched`). */
export type Matched = { kind: 'deeplink' | 'device' | 'geo' | 'language' | 'rotation' | 'fallback' | 'default'; key: string | null }

export type Outcome =
  | { kind: 'disabled' }
  | { kind: 'quarantined' }
  | { kind: 'expired'; url: string | null }
  | { kind: 'password' }
  | { kind: 'crawler' }
  | { kind: 'go'; url: string; type: LinkType; rotation?: number }

/**
 * Why, collected only by the dry-run (`POST /api/url/:id/resolve`): sentences and the rule that
 * chose the destination. A visit passes none, so the redirect pays one comparison per step and
 * builds no string.
 */
export interface Trace {
  steps: string[]
  matched: Matched | null
}

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

export function resolve(link: ResolvableLink, ctx: VisitContext, now: number, trace?: Trace): Outcome {
  const say = (...sentences: string[]) => trace?.steps.push(...sentences)
  // 3. disabled, then expired by date or by clicks
  if (link.disabled) {
    say('The link is disabled, so the visitor gets the 404 page.')
    return { kind: 'disabled' }
  }
  if (link.quarantined) {
    say('The link is quarantined (a blocklist entry matched it), so the visitor gets the 451 warning page.')
    return { kind: 'quarantined' }
  }
  if (isExpired(link, ctx.clicks, now)) {
    say(
      link.expiresAt !== null && link.expiresAt <= now
        ? 'The link has expired (its expiry date has passed).'
        : `The link has expired (it reached its ${link.expirationClicks} clicks).`,
      link.expirationUrl ? 'The visitor goes to its expiration URL.' : 'It has no expiration URL, so the visitor gets the 410 page.',
    )
    return { kind: 'expired', url: link.expirationUrl }
  }
  say('The link is active.')
  // 4. password
  if (link.passwordHash && !ctx.unlocked) {
    say('The link has a password, so the visitor is asked for it first.')
    return { kind: 'password' }
  }
  // 5. social crawlers get the Open Graph page when there is something to show
  if (ctx.isCrawler && hasMeta(link)) {
    say('The visitor is a social network preview fetcher and the link has meta fields, so it gets the preview page.')
    return { kind: 'crawler' }
  }
  // 6. destination, then the visitor's query and the link's parameters
  const { url, rotation } = destination(link, ctx, trace)
  if (ctx.query || link.parameters.length) say("The visitor's query and the link's parameters are added to the destination.")
  return { kind: 'go', url: ctx.query ? withParameters(url, ctx.query, link.parameters) : plainDestination(link, url), type: link.type, rotation }
}

const plain = new WeakMap<ResolvableLink, Map<string, string>>()

/**
 * A destination with the link's parameters and no visitor query depends only on the link: worked out
 * once per cached link object (a reload brings a new one) and URL it can send to.
 */
function plainDestination(link: ResolvableLink, url: string): string {
  // the long URL, most visits' destination: on the link itself, no lookup in a map of 100,000 links
  if (url === link.url) return (link.plainUrl ??= withParameters(url, '', link.parameters))
  let urls = plain.get(link)
  if (!urls) plain.set(link, (urls = new Map()))
  let out = urls.get(url)
  if (out === undefined) {
    out = withParameters(url, '', link.parameters)
    // a link has a handful of URLs (long URL, fallback, deep links, targets); the bound is a guard
    if (urls.size < 64) urls.set(url, out)
  }
  return out
}

type Destination = { url: string; rotation?: number }

/** Deep link, then device, geo, language and rotation targets, else the long URL (or its fallback while broken). */
export function destination(
  link: ResolvableLink,
  ctx: Pick<VisitContext, 'device' | 'ubuntu' | 'country' | 'language'>,
  trace?: Trace,
): Destination {
  // sentences and `matched` are built only for a dry-run: a visit allocates nothing more than before
  const dl = link.deepLink
  if (dl) {
    if ((ctx.device === 'iPhone' || ctx.device === 'iPad') && dl.apple) {
      if (trace) note(trace, { kind: 'deeplink', key: 'apple' }, `The visitor is on ${ctx.device}, so the Apple deep link is used.`)
      return { url: dl.apple }
    }
    if (ctx.device === 'Android' && dl.google) {
      if (trace) note(trace, { kind: 'deeplink', key: 'google' }, 'The visitor is on Android, so the Google Play deep link is used.')
      return { url: dl.google }
    }
  }
  // the most specific target first: an Ubuntu visitor takes a `Ubuntu` target over a `Linux` one
  // a search only where there is a list: its callback is an object made on every visit
  const devices = link.targets.device
  const device =
    devices.length > 0 &&
    ((ctx.ubuntu && devices.find((t) => t.match.toLowerCase() === 'ubuntu')) || devices.find((t) => deviceMatches(t.match, ctx.device)))
  if (device) {
    if (trace) note(trace, { kind: 'device', key: device.match }, `The visitor's device matches the ${device.match} target.`)
    return { url: device.url }
  }
  if (ctx.country && link.targets.geo.length > 0) {
    const geo = link.targets.geo.find((t) => t.match.toUpperCase() === ctx.country)
    if (geo) {
      if (trace) note(trace, { kind: 'geo', key: ctx.country }, `The visitor's country ${ctx.country} matches a geo target.`)
      return { url: geo.url }
    }
  }
  if (ctx.language && link.targets.language.length > 0) {
    const lang = link.targets.language.find((t) => t.match.toLowerCase().split(/[-_]/)[0] === ctx.language)
    if (lang) {
      if (trace) note(trace, { kind: 'language', key: ctx.language }, `The visitor's language ${ctx.language} matches a language target.`)
      return { url: lang.url }
    }
  }
  if (trace && (link.targets.device.length || link.targets.geo.length || link.targets.language.length)) {
    trace.steps.push('No device, geo or language target matches the visitor.')
  }
  const n = link.targets.rotation.length
  if (n > 0) {
    const index = ((link.lastRotation % n) + n) % n
    if (trace) note(trace, { kind: 'rotation', key: String(index + 1) }, `The link rotates between ${n} URLs; this visit gets number ${index + 1}.`)
    return { url: link.targets.rotation[index], rotation: index + 1 }
  }
  if (link.broken && link.fallback) {
    if (trace) note(trace, { kind: 'fallback', key: null }, 'The long URL failed its last health check, so the visitor goes to the fallback.')
    return { url: link.fallback }
  }
  if (trace) note(trace, { kind: 'default', key: null }, 'The visitor goes to the long URL.')
  return { url: link.url }
}

function note(trace: Trace, matched: Matched, why: string) {
  trace.matched = matched
  trace.steps.push(why)
}
