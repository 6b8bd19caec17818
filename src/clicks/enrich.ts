import { createHmac } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import UAParser from 'ua-parser-js'
import { toDay } from '../http/format.js'
import { canonicalIp, type Visitor } from '../visit/visitor.js'
import { countryOf } from './geo.js'
import type { BufferedHit } from './hit.js'

export interface UaInfo {
  browser: string | null
  os: string | null
  /** ua-parser-js device type (mobile, tablet, …); null = desktop or unknown */
  device: string | null
}

// ua-parser-js costs 40 to 70 µs a call (DECISIONS §9); real traffic repeats a few thousand strings.
const uaCache = new LRUCache<string, UaInfo>({ max: 5_000 })

const label = (s: string | undefined, max = 64) => (s ? s.slice(0, max) : null)

export function parseUserAgent(ua: string): UaInfo {
  const hit = uaCache.get(ua)
  if (hit) return hit
  let info: UaInfo = { browser: null, os: null, device: null }
  if (ua) {
    try {
      const r = new UAParser(ua).getResult()
      info = { browser: label(r.browser.name), os: label(r.os.name), device: label(r.device.type) }
    } catch {
      /* a string ua-parser-js cannot read is simply unknown */
    }
  }
  uaCache.set(ua, info)
  return info
}

/** Host of the Referer, lower-case, without `www.`; null when absent or not an http(s) URL. */
export function referrerHost(referrer: string): string | null {
  if (!referrer) return null
  try {
    const u = new URL(referrer)
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null
    const host = u.hostname.toLowerCase().replace(/\.$/, '').replace(/^www\./, '')
    return host ? host.slice(0, 253) : null
  } catch {
    return null
  }
}

export type Social = 'facebook' | 'twitter' | 'google' | 'instagram'

/** DECISIONS §6: the referrer hosts each social count is made of. */
export function socialOf(host: string | null): Social | null {
  if (!host) return null
  if (host === 'facebook.com' || host.endsWith('.facebook.com') || host === 'fb.me' || host === 'fb.com') return 'facebook'
  if (host === 'twitter.com' || host.endsWith('.twitter.com') || host === 't.co' || host === 'x.com') return 'twitter'
  if (host === 'instagram.com' || host.endsWith('.instagram.com') || host === 'instagr.am') return 'instagram'
  if (/(^|\.)google\.(?:[a-z]{2,3}|co\.[a-z]{2}|com\.[a-z]{2})$/.test(host)) return 'google'
  return null
}

/** HMAC(secret, day + IP + user agent): one visitor per day, never reversible to the IP. */
export function visitorHash(key: Buffer, day: string, ip: string, userAgent: string): string {
  return createHmac('sha256', key).update(`${day}\n${ip}\n${userAgent}`).digest('hex').slice(0, 32)
}

/** What a click row records besides its time; identical for repeated visits of one visitor on one day. */
export interface EnrichedClick {
  day: string
  country: string | null
  referrer: string | null
  social: Social | null
  browser: string | null
  os: string | null
  device: string | null
  language: string | null
  bot: boolean
  visitorHash: string
}

// Real traffic repeats: the same visitor (IP, browser, referrer) clicks again the same day. The
// cache saves the HMAC, the geo lookup and the URL parse; the shared object also lets a batch
// count rollups per distinct visitor instead of per click.
const enrichCache = new LRUCache<string, EnrichedClick>({ max: 10_000 })

const DAY_MS = 86_400_000
let lastDayNumber = Number.NaN
let lastDay = ''
/** The UTC day of an epoch-ms time: formatted once a day, not once a click. */
function dayOf(at: number): string {
  const n = Math.floor(at / DAY_MS)
  if (n !== lastDayNumber) {
    lastDayNumber = n
    lastDay = toDay(new Date(at))
  }
  return lastDay
}

/** Everything a click row needs, computed at flush time, off the response path; `at` in epoch ms. */
export function enrich(visitorKey: Buffer, visitor: Visitor, at: number): EnrichedClick {
  const day = dayOf(at)
  const key = `${day}\n${visitor.ip}\n${visitor.isBot ? 1 : 0}\n${visitor.language ?? ''}\n${visitor.referrer}\n${visitor.userAgent}`
  const hit = enrichCache.get(key)
  if (hit) return hit
  const ua = parseUserAgent(visitor.userAgent)
  const referrer = referrerHost(visitor.referrer)
  const e: EnrichedClick = {
    day,
    country: countryOf(visitor.ip),
    referrer,
    social: socialOf(referrer),
    browser: ua.browser,
    os: ua.os,
    device: ua.device,
    language: visitor.language,
    bot: visitor.isBot,
    visitorHash: visitorHash(visitorKey, day, canonicalIp(visitor.ip), visitor.userAgent),
  }
  enrichCache.set(key, e)
  return e
}

/** Whether two hits enrich alike: the same day and every visitor field the enrichment reads. */
function sameEnrichment(a: BufferedHit, b: BufferedHit): boolean {
  const v = a.visitor
  const w = b.visitor
  return (
    Math.floor(a.at / DAY_MS) === Math.floor(b.at / DAY_MS) &&
    (v === w || (v.ip === w.ip && v.isBot === w.isBot && v.language === w.language && v.referrer === w.referrer && v.userAgent === w.userAgent))
  )
}

/**
 * Enriches a batch's hits (a hit retried keeps its own). A visitor's clicks often come in a row: a
 * hit like the one before it takes that one's object, without building the cache's key (a string
 * of every field, the largest allocation a batch made per click).
 */
export function enrichBatch(visitorKey: Buffer, hits: readonly BufferedHit[]): void {
  let prev: BufferedHit | undefined
  for (const h of hits) {
    h.enriched ??= prev?.enriched !== undefined && sameEnrichment(prev, h) ? prev.enriched : enrich(visitorKey, h.visitor, h.at)
    prev = h
  }
}
