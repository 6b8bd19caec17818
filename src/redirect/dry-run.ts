import { deviceOf, firstLanguage, isCrawlerAgent, normaliseIp } from '../visit/visitor.js'
import { safeUrl } from '../visit/url.js'
import { liveClicks, type ServeLink } from './loader.js'
import { visitContext } from './context.js'
import { resolve, type Matched, type Trace } from './resolve.js'
import { destinationPage, directPolicy, type DestinationPage } from './respond.js'

/** A visitor described in a dry-run request (`POST /api/url/:id/resolve`). */
export interface DryRunVisitor {
  ip?: string
  /** ISO 3166-1 alpha-2; wins over the country of `ip` */
  country?: string
  useragent?: string
  /** an Accept-Language value ("fr-CH, en;q=0.8") */
  language?: string
  referrer?: string
  /** the visitor's query string, without `?` */
  query?: string
  /** when the visit happens; now when absent */
  at?: Date
}

export type DryRunPage = DestinationPage | 'password' | 'expired' | 'disabled' | 'quarantined' | 'preview'

export interface DryRunAnswer {
  status: number
  location: string | null
  page: DryRunPage
  matched: Matched | null
  steps: string[]
}

/**
 * What a visit of `link` by `visitor` would get, through the same context and `resolve` a real
 * visit goes through (redirect/index.ts), without recording a click or moving a rotation.
 * `location` is the Location header of a redirect, or where a page (frame, splash, overlay, pixels)
 * leads; null when the visitor goes nowhere (a 404, 410, password or preview page).
 */
export function dryRun(link: ServeLink, visitor: DryRunVisitor, defaultStatus: number): DryRunAnswer {
  const ua = visitor.useragent ?? ''
  const described = {
    ip: normaliseIp(visitor.ip ?? ''),
    device: deviceOf(ua),
    ubuntu: /\bUbuntu\b/i.test(ua),
    language: visitor.language ? firstLanguage(visitor.language) : null,
    isCrawler: isCrawlerAgent(ua),
  }
  const country = visitor.country ? visitor.country.toUpperCase() : undefined
  const ctx = visitContext(link, described, (visitor.query ?? '').replace(/^\?/, ''), false, liveClicks(link), country)
  const trace: Trace = { steps: [], matched: null }
  const steps = trace.steps
  const outcome = resolve(link, ctx, (visitor.at ?? new Date()).getTime(), trace)
  switch (outcome.kind) {
    case 'disabled':
      return { status: 404, location: null, page: 'disabled', matched: null, steps }
    case 'quarantined':
      return { status: 451, location: null, page: 'quarantined', matched: null, steps }
    case 'expired':
      return outcome.url
        ? { status: 302, location: safeUrl(outcome.url), page: 'expired', matched: null, steps }
        : { status: 410, location: null, page: 'expired', matched: null, steps }
    case 'password':
      return { status: 200, location: null, page: 'password', matched: null, steps }
    case 'crawler':
      return { status: 200, location: null, page: 'preview', matched: null, steps }
    case 'go': {
      const page = destinationPage(link)
      if (page !== 'direct') {
        steps.push(`The link answers with its ${page} page, which leads there.`)
        return { status: 200, location: outcome.url, page, matched: trace.matched, steps }
      }
      const policy = directPolicy(link, defaultStatus)
      steps.push(
        policy.cacheTtl > 0
          ? `It answers ${policy.status}, cacheable for ${policy.cacheTtl} seconds${policy.perVisitor ? " by the visitor's browser only (the destination depends on the visitor)" : ''}.`
          : `It answers ${policy.status}, not cacheable.`,
      )
      return { status: policy.status, location: outcome.url, page: 'direct', matched: trace.matched, steps }
    }
  }
}
