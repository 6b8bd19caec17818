export const MAX_URL_LENGTH = 8192

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/
const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):/
const FORBIDDEN_SCHEMES = new Set(['javascript', 'data', 'vbscript', 'file', 'blob', 'about', 'filesystem', 'view-source'])

export type UrlCheck = { ok: true; url: string; parsed: URL | null } | { ok: false; message: string }

/**
 * App schemes a link may open, by name: anything else that merely looks like a scheme (`jar:`,
 * `feed:javascript:`) is refused rather than guessed safe from its shape.
 */
export const APP_SCHEMES: ReadonlySet<string> = new Set([
  'mailto', 'tel', 'sms', 'smsto', 'facetime', 'facetime-audio', 'geo', 'maps', 'comgooglemaps', 'waze',
  'tg', 'whatsapp', 'signal', 'sgnl', 'viber', 'line', 'weixin', 'skype', 'discord', 'slack', 'msteams', 'zoomus',
  'fb', 'fb-messenger', 'instagram', 'twitter', 'x', 'tiktok', 'snssdk1233', 'snapchat', 'pinterest', 'reddit',
  'linkedin', 'youtube', 'vnd.youtube', 'twitch', 'spotify', 'deezer', 'soundcloud', 'music', 'podcasts',
  'itms-apps', 'itms-appss', 'market', 'intent', 'com.amazon.mobile.shopping', 'com.amazon.mobile.shopping.web',
  'uber', 'lyft', 'paypal', 'venmo', 'cashme', 'steam', 'zoommtg', 'webcal', 'bitcoin', 'magnet',
])

/** The part between `scheme://` and the path, as typed, before any parser has read it. */
const rawAuthority = (url: string) => /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/([^/?#]*)/.exec(url)?.[1] ?? ''

/**
 * An Android intent URL names the scheme it finally opens and a browser fallback in its fragment;
 * both must pass the same rule, or `intent:…;scheme=javascript` would run script.
 */
function intentProblem(url: string): string | null {
  const fragment = url.slice(url.indexOf('#') + 1)
  for (const part of url.includes('#') ? fragment.split(';') : []) {
    const eq = part.indexOf('=')
    if (eq < 0) continue
    const key = part.slice(0, eq).toLowerCase()
    let value = part.slice(eq + 1)
    try {
      value = decodeURIComponent(value)
    } catch {
      return 'has an intent parameter that is not valid percent-encoding.'
    }
    if (key === 'scheme') {
      const s = value.toLowerCase()
      if (s !== 'http' && s !== 'https' && (!APP_SCHEMES.has(s) || s === 'intent')) return `opens the ${s}: scheme, which is not allowed.`
    }
    if (key === 's.browser_fallback_url' && !checkUrl(value, { httpOnly: true }).ok) return 'has a browser fallback that is not an http(s) URL.'
  }
  return null
}

/**
 * The one URL rule (DECISIONS §4): an absolute http(s) URL, or an app deep link from APP_SCHEMES.
 * Script-capable and local schemes are refused; so are credentials in the URL, which exist mostly
 * to disguise a phishing host, and a backslash before the path, which the WHATWG parser reads as
 * a slash but other programs do not: a URL is accepted only when every reader agrees on its host.
 * The URL is kept as typed; checks that compare hosts read `parsed`, the browser's reading.
 */
export function checkUrl(input: string, opts: { httpOnly?: boolean } = {}): UrlCheck {
  const url = input.trim()
  if (url === '') return { ok: false, message: 'must not be empty.' }
  if (url.length > MAX_URL_LENGTH) return { ok: false, message: `must be at most ${MAX_URL_LENGTH} characters.` }
  if (CONTROL.test(url) || /\s/.test(url)) return { ok: false, message: 'must not contain spaces or control characters.' }
  const scheme = SCHEME.exec(url)?.[1]?.toLowerCase()
  if (!scheme) return { ok: false, message: 'must be an absolute URL starting with http:// or https://.' }
  if (FORBIDDEN_SCHEMES.has(scheme)) return { ok: false, message: `the ${scheme}: scheme is not allowed.` }
  if (scheme === 'http' || scheme === 'https') {
    if (!/^https?:\/\/[^/?#\\]/i.test(url)) return { ok: false, message: 'must be an absolute URL such as https://example.com/page.' }
    const authority = rawAuthority(url)
    if (authority.includes('\\')) return { ok: false, message: 'must not contain a backslash before the path (programs disagree on which host it names).' }
    if (authority.includes('@')) return { ok: false, message: 'must not contain a user name or password.' }
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      return { ok: false, message: 'is not a valid URL.' }
    }
    if (!parsed.hostname) return { ok: false, message: 'must name a host.' }
    if (parsed.username || parsed.password) return { ok: false, message: 'must not contain a user name or password.' }
    return { ok: true, url, parsed }
  }
  if (opts.httpOnly) return { ok: false, message: 'must be an http(s) URL.' }
  if (url.length <= scheme.length + 1) return { ok: false, message: 'must have something after the scheme.' }
  if (!APP_SCHEMES.has(scheme)) return { ok: false, message: `the ${scheme}: scheme is not one of the app schemes allowed (such as tg:, spotify:, mailto:).` }
  // an app link wrapping a script URL (`tg:javascript:…`) is refused like the script URL itself
  const inner = SCHEME.exec(url.slice(scheme.length + 1).replace(/^\/+/, ''))?.[1]?.toLowerCase()
  if (inner && FORBIDDEN_SCHEMES.has(inner)) return { ok: false, message: `the ${inner}: scheme is not allowed.` }
  if (scheme === 'intent') {
    const problem = intentProblem(url)
    if (problem) return { ok: false, message: problem }
  }
  return { ok: true, url, parsed: null }
}

/** A checkUrl problem said of a named field: "image must …", "image is refused: the javascript: scheme …". */
export const namedUrlProblem = (field: string, message: string) => (/^the /.test(message) ? `${field} is refused: ${message}` : `${field} ${message}`)

/**
 * The hosts a visitor may end up on from a URL that passed checkUrl, as the browser reads them:
 * an http(s) URL's host; an intent link's host (opened over http(s) when it names that scheme) and
 * its browser fallback's. App links without such a host give none.
 */
export function visitedHosts(url: string): string[] {
  const hosts: string[] = []
  try {
    const u = new URL(url)
    if (!['http:', 'https:', 'intent:'].includes(u.protocol)) return []
    if (u.hostname) hosts.push(u.hostname)
    if (u.protocol === 'intent:') {
      const m = /;S\.browser_fallback_url=([^;]*)/i.exec(u.hash)
      if (m) hosts.push(new URL(decodeURIComponent(m[1])).hostname)
    }
  } catch {
    /* not parseable: no host */
  }
  return hosts.map((h) => canonicalHost(h))
}

/**
 * A host as the browser reads it, for comparisons: lower-case, no trailing dot, no brackets, and an
 * IPv4-mapped IPv6 address (`[::ffff:127.0.0.1]`, which the parser writes `::ffff:7f00:1`) as the
 * IPv4 address it reaches.
 */
export function canonicalHost(hostname: string): string {
  const h = hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '')
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(h)
  if (mapped) {
    const hi = parseInt(mapped[1], 16)
    const lo = parseInt(mapped[2], 16)
    return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.')
  }
  return h.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '')
}

/** Loopback names and addresses: all of them reach this machine. */
export const isLoopback = (host: string) => host === 'localhost' || host.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(host) || host === '::1'

/** Host for comparisons: lower-case, no trailing dot, no leading `www.` (a self-loop in disguise). */
export function comparableHost(host: string): string {
  return canonicalHost(host).replace(/^www\./, '')
}
