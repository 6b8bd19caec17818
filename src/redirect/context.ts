import { countryOf } from '../clicks/geo.js'
import type { Visitor } from '../visit/visitor.js'
import type { ServeLink } from './loader.js'
import type { VisitContext } from './resolve.js'

/**
 * What resolve reads about a visitor, built the same way for a real visit (redirect/index.ts) and
 * for the dry-run (dry-run.ts), so the two cannot disagree on it. The country is looked up only
 * when the link has geo targets (nothing else reads it); `country` given by a dry-run wins.
 */
export function visitContext(
  link: ServeLink,
  visitor: Pick<Visitor, 'ip' | 'device' | 'ubuntu' | 'language' | 'isCrawler'>,
  query: string,
  unlocked: boolean,
  clicks: number,
  country?: string | null,
): VisitContext {
  return {
    device: visitor.device,
    ubuntu: visitor.ubuntu,
    country: link.targets.geo.length > 0 ? (country ?? countryOf(visitor.ip)) : null,
    language: visitor.language,
    isCrawler: visitor.isCrawler,
    query,
    unlocked,
    clicks,
  }
}
