export const MAX_URL_LENGTH = 8192

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/
const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):/
const FORBIDDEN_SCHEMES = new Set(['javascript', 'data', 'vbscript', 'file', 'blob', 'about', 'filesystem', 'view-source'])

export type UrlCheck = { ok: true; url: string; parsed: URL | null } | { ok: false; message: string }

/**
 * The one URL rule (DECISIONS §4): an absolute http(s) URL, or an app deep link such as `tg:` or
 * `spotify:`. Script-capable and local schemes are refused; so are credentials in the URL, which
 * exist mostly to disguise a phishing host.
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
  return { ok: true, url, parsed: null }
}

/** Host for comparisons: lower-case, no trailing dot, no leading `www.` (a self-loop in disguise). */
export function comparableHost(host: string): string {
  return host.toLowerCase().replace(/\.$/, '').replace(/^www\./, '')
}
