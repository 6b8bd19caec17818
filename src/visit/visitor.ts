import type { IncomingHttpHeaders } from 'node:http'
import type { Device } from '../lib/targets.js'

/**
 * What a visit knows about the visitor, read once from the request. Every header-derived string is
 * capped, so 8 KB of garbage in a header costs nothing downstream. The raw IP lives only in memory:
 * the click pipeline turns it into a country and a daily visitor hash and forgets it.
 */
export interface Visitor {
  ip: string
  userAgent: string
  /** the Referer header as sent (capped); reduced to a host at flush time */
  referrer: string
  acceptLanguage: string
  /** ISO 639-1 code of the first language of Accept-Language, lower-case */
  language: string | null
  device: Device | null
  /** the system is Ubuntu (device is then Linux): a v1 `Ubuntu` platform target prefers it */
  ubuntu?: boolean
  /** known crawler, bot or link-preview fetcher: served, recorded as a bot hit, not a click */
  isBot: boolean
  /** social network link-preview fetcher: gets the Open Graph page when the link has meta fields */
  isCrawler: boolean
}

export const MAX_UA = 512
export const MAX_REFERRER = 1024
export const MAX_ACCEPT_LANGUAGE = 256

/** Link-preview fetchers of social networks and messengers (DECISIONS §5 step 5). */
const CRAWLER =
  /facebookexternalhit|facebookcatalog|facebot|twitterbot|linkedinbot|slackbot|slack-imgproxy|whatsapp|discordbot|telegrambot|pinterestbot|pinterest\/0\.|redditbot|embedly|skypeuripreview|vkshare|applebot|mastodon\/|iframely|bitlybot|kakaotalk-scrap|google-pagerenderer|cardyb|yahoo ?link ?preview|quora link preview|xing-contenttabreceiver|microsoftpreview/i

/**
 * Search engines, crawlers, monitors and previewers. Generic HTTP libraries (curl, python-requests,
 * node) are deliberately not bots: scripts and integration clients are real users of a link.
 */
const BOT =
  /bot\b|bot\/|bot[-_;)]|crawler|crawling|spider|slurp|archiver|mediapartners|adsbot|feedfetcher|google-read-aloud|google-inspectiontool|googleother|bingpreview|baiduspider|exabot|ia_archiver|semrush|ahrefs|mj12|dotbot|petalbot|bytespider|gptbot|claudebot|ccbot|perplexity|headlesschrome-monitor|pingdom|uptimerobot|statuscake|site24x7|newrelicpinger|datadog synthetic|lighthouse|chrome-lighthouse|pagespeed|prerender|phantomjs|scrapy|httrack|wget\//i

/** What a visitor is read from: a Fastify request, or the raw one of the cached visit path (redirect/fast-path.ts). */
export interface VisitRequest {
  headers: IncomingHttpHeaders
  /** the client's address as TRUST_PROXY says to read it */
  ip: string | undefined
}

/** Caps a header value; arrays (repeated headers) use the first. */
function header(req: VisitRequest, name: string, max: number): string {
  const v = req.headers[name]
  const s = Array.isArray(v) ? v[0] ?? '' : v ?? ''
  return s.length > max ? s.slice(0, max) : s
}

/** First language of Accept-Language, as its ISO 639 primary subtag ("fr-CH, en;q=0.8" → "fr"). */
export function firstLanguage(acceptLanguage: string): string | null {
  const first = acceptLanguage.split(',')[0]?.split(';')[0]?.trim().toLowerCase() ?? ''
  const primary = first.split(/[-_]/)[0]
  return /^[a-z]{2,3}$/.test(primary) ? primary : null
}

/** Device family from the User-Agent, for device targeting and deep links. Order matters. */
export function deviceOf(ua: string): Device | null {
  if (!ua) return null
  if (/Windows Phone|Windows Mobile|IEMobile|WPDesktop/i.test(ua)) return 'Windows Phone'
  if (/\biPad\b/.test(ua)) return 'iPad'
  if (/\b(iPhone|iPod)\b/.test(ua)) return 'iPhone'
  if (/BlackBerry|\bBB10\b|RIM Tablet OS/i.test(ua)) return 'BlackBerry'
  if (/Android/i.test(ua)) return 'Android'
  if (/\bCrOS\b/.test(ua)) return 'Chrome OS'
  if (/Windows NT|Win64|Win32|Windows 9|Windows XP/i.test(ua)) return 'Windows'
  if (/Macintosh|Mac OS X|Mac_PowerPC/i.test(ua)) return 'Mac'
  if (/Linux|X11|Ubuntu|Fedora|Debian/i.test(ua)) return 'Linux'
  return null
}

export function isCrawlerAgent(ua: string): boolean {
  return CRAWLER.test(ua)
}

export function isBotAgent(ua: string): boolean {
  return CRAWLER.test(ua) || BOT.test(ua)
}

/** iOS visitors get a link's `deeplink.apple`, Android visitors its `deeplink.google`. */
export function platformOf(device: Device | null): 'ios' | 'android' | null {
  if (device === 'iPhone' || device === 'iPad') return 'ios'
  if (device === 'Android') return 'android'
  return null
}

/** IPv4-mapped IPv6 ("::ffff:1.2.3.4") → "1.2.3.4", so hashes and geo agree for both forms. */
export function normaliseIp(ip: string): string {
  if (ip.charCodeAt(0) !== 0x3a) return ip // no leading ':' (every visit over IPv4): no match to try
  const m = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip)
  return m ? m[1] : ip
}

/**
 * One text per IPv6 address (lower case, the longest run of zero groups compressed, as the URL
 * standard writes it), so `2001:DB8:0:0::1` and `2001:db8::1` from a proxy's X-Forwarded-For hash
 * as one visitor. For the click pipeline, off the response path; IPv4 passes through.
 */
export function canonicalIp(ip: string): string {
  if (!ip.includes(':')) return ip
  try {
    return new URL(`http://[${ip}]/`).hostname.slice(1, -1)
  } catch {
    return ip // not an address the parser takes (a zone id): hashed as sent
  }
}

interface AgentInfo {
  device: Device | null
  ubuntu: boolean
  isBot: boolean
  isCrawler: boolean
}

// The same few thousand User-Agent strings make most traffic; their regex work is done once.
const agents = new Map<string, AgentInfo>()
const MAX_AGENTS = 5_000

function agentInfo(ua: string): AgentInfo {
  let info = agents.get(ua)
  if (!info) {
    if (agents.size >= MAX_AGENTS) agents.clear()
    info = { device: deviceOf(ua), ubuntu: /\bUbuntu\b/i.test(ua), isBot: isBotAgent(ua), isCrawler: isCrawlerAgent(ua) }
    agents.set(ua, info)
  }
  return info
}

/**
 * The visitor of this request. `req.ip` already honours X-Forwarded-For only when TRUST_PROXY is set
 * (Fastify `trustProxy`), so a spoofed header cannot move a visitor to another country.
 */
export function visitorFromRequest(req: VisitRequest): Visitor {
  const userAgent = header(req, 'user-agent', MAX_UA)
  const acceptLanguage = header(req, 'accept-language', MAX_ACCEPT_LANGUAGE)
  const agent = agentInfo(userAgent)
  return {
    ip: normaliseIp(req.ip ?? ''),
    userAgent,
    referrer: header(req, 'referer', MAX_REFERRER),
    acceptLanguage,
    language: acceptLanguage ? firstLanguage(acceptLanguage) : null,
    device: agent.device,
    ubuntu: agent.ubuntu,
    isBot: agent.isBot,
    isCrawler: agent.isCrawler,
  }
}
