import type { LinkParameter } from '../db/schema/index.js'

// The URL a visitor is sent to. Outside redirect/ so that every page answering a visit (redirect,
// QR scans, campaign pages) builds Locations the same way without importing the redirect.

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
