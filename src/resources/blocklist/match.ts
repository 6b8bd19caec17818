import type { BlocklistType } from '../../db/schema/index.js'
import { canonicalHost, visitedHosts } from '../../lib/url.js'

/*
 * PURE: how a blocklist entry matches a URL (DECISIONS §10.6). A domain entry matches the host a
 * browser visits and every subdomain of it; a keyword matches anywhere in the URL, as typed, as
 * percent-decoded and as the parser writes it, case-insensitively.
 */

export interface Entry {
  type: BlocklistType
  value: string
}

/** `evil.example`, `https://Evil.Example/`, `*.evil.example` → `evil.example`; null when it names no host, or a top-level one. */
export function domainValue(input: string): string | null {
  let v = input.trim().toLowerCase().replace(/^\*?\./, '')
  if (!v || /\s/.test(v)) return null
  if (!/^[a-z][a-z0-9+.-]*:\/\//.test(v)) v = `http://${v}`
  try {
    const u = new URL(v)
    if (u.username || u.password || (u.pathname !== '/' && u.pathname !== '') || u.search || u.hash) return null
    const host = canonicalHost(u.hostname)
    // one label (`com`, `localhost`) would block every site under it, as a two-letter keyword would
    return host && host.length <= 253 && /[.:]/.test(host) ? host : null
  } catch {
    return null
  }
}

export const MIN_KEYWORD = 3
export const MAX_KEYWORD = 200

/** A keyword as stored and matched; null when too short to be useful (it would match everything). */
export function keywordValue(input: string): string | null {
  const v = input.trim().toLowerCase()
  return v.length >= MIN_KEYWORD && v.length <= MAX_KEYWORD && !/[\n\r]/.test(v) ? v : null
}

/** `a.b.evil.example` → itself, `b.evil.example`, `evil.example`, `example`: what a domain entry may be. */
export function hostSuffixes(host: string): string[] {
  const labels = host.split('.')
  // an IP address has no parent domains
  if (/^\d+\.\d+\.\d+\.\d+$/.test(host) || host.includes(':')) return [host]
  return labels.map((_, i) => labels.slice(i).join('.')).filter(Boolean)
}

/** The texts a keyword is looked for in: the URL as typed, percent-decoded and as parsed, lower-case. */
export function keywordHaystacks(url: string): string[] {
  const out = new Set([url.toLowerCase()])
  try {
    out.add(decodeURIComponent(url).toLowerCase())
  } catch {
    /* stray % */
  }
  try {
    out.add(new URL(url).href.toLowerCase())
  } catch {
    /* app link the parser rejects */
  }
  return [...out]
}

/** The domain suffixes of every host `url` sends a visitor to. */
export const domainCandidates = (url: string) => [...new Set(visitedHosts(url).flatMap(hostSuffixes))]

/** Entries in memory, for the rescan of many links against a few new entries. */
export class Matcher {
  private readonly domains = new Set<string>()
  private readonly keywords: string[] = []

  constructor(entries: Entry[]) {
    for (const e of entries) {
      if (e.type === 'domain') this.domains.add(e.value)
      else this.keywords.push(e.value)
    }
  }

  get size() {
    return this.domains.size + this.keywords.length
  }

  /** The first entry `url` matches, or null. */
  match(url: string): Entry | null {
    if (this.domains.size) {
      for (const d of domainCandidates(url)) if (this.domains.has(d)) return { type: 'domain', value: d }
    }
    if (this.keywords.length) {
      const hay = keywordHaystacks(url)
      for (const k of this.keywords) if (hay.some((h) => h.includes(k))) return { type: 'keyword', value: k }
    }
    return null
  }
}
