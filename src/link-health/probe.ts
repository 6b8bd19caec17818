import { safeFetch, SsrfError } from '../lib/ssrf.js'
import type { HealthState } from '../db/schema/index.js'

/** What one check of a URL found: `details.health` without its time. */
export interface ProbeResult {
  state: HealthState
  /** the HTTP status the destination answered, null when none came back */
  status: number | null
  /** a sentence fragment saying why, null when ok */
  reason: string | null
}

export interface ProbeOptions {
  /** ALLOW_PRIVATE_TARGETS */
  allowPrivate: boolean
  timeoutMs?: number
  /** the name lookup (tests stand in for a failing resolver); the system's by default */
  resolve?: (host: string) => Promise<{ address: string; family: number }[]>
}

export const PROBE_TIMEOUT = 5_000
/** a check reads headers, not pages: a body larger than this still proves the page answered */
const BODY_CAP = 16 * 1024

/**
 * Checks a long URL through the SSRF guard: HEAD, then GET when the server does not do HEAD
 * (405, 501). 2xx, after at most 5 redirects, is ok. An answer that proves nothing about the link
 * (429 rate limiting, an address or URL the guard will not reach) is unknown, never broken:
 * visitors are sent to the fallback only on evidence that the destination fails.
 */
export async function probe(url: string, o: ProbeOptions): Promise<ProbeResult> {
  if (!/^https?:\/\//i.test(url)) return { state: 'unknown', status: null, reason: 'not checked: not a web address' }
  const attempt = (method: 'HEAD' | 'GET') =>
    safeFetch(url, {
      method,
      // a HEAD answer has no body, yet its Content-Length is the page's: only a GET is capped
      maxBytes: method === 'HEAD' ? Number.MAX_SAFE_INTEGER : BODY_CAP,
      timeoutMs: o.timeoutMs ?? PROBE_TIMEOUT,
      maxRedirects: 5,
      ports: 'any',
      allowPrivate: o.allowPrivate,
      resolve: o.resolve,
      headers: { accept: 'text/html,*/*;q=0.8' },
    })
  try {
    const res = await attempt('HEAD').catch((err: unknown) => {
      if (err instanceof SsrfError && err.code === 'http_status' && (err.status === 405 || err.status === 501)) return attempt('GET')
      throw err
    })
    return { state: 'ok', status: res.status, reason: null }
  } catch (err) {
    if (!(err instanceof SsrfError)) return { state: 'unknown', status: null, reason: 'could not be checked' }
    switch (err.code) {
      // only a 2xx status line gets this far: the page is there (its exact status is not kept)
      case 'too_large':
      case 'bad_type':
        return { state: 'ok', status: null, reason: null }
      case 'http_status':
        return err.status === 429
          ? { state: 'unknown', status: 429, reason: 'the server asked to slow down (429)' }
          : { state: 'broken', status: err.status ?? null, reason: err.message }
      case 'too_many_redirects':
        return { state: 'broken', status: err.status ?? null, reason: err.message }
      case 'timeout':
      case 'network':
      case 'dns':
        return { state: 'broken', status: null, reason: err.message }
      // a refusal of the guard, or this machine's resolver failing (dns_unavailable): no evidence about the destination
      default:
        return { state: 'unknown', status: null, reason: `not checked: ${err.message}` }
    }
  }
}
