import { and, eq, sql } from 'drizzle-orm'
import type { FastifyBaseLogger } from 'fastify'
import type { Db } from '../db/client.js'
import { links } from '../db/schema/index.js'
import { isDatabaseUnavailable } from '../http/errors.js'
import type { ServeLink } from './loader.js'

/*
 * `expiration_clicks` exact over every instance (issue 13 item 7). Each instance's live count only
 * knows its own visits and what the database held when it loaded the link, so two instances could
 * each let the last visits through. A human visit of a capped link therefore claims its place with
 * one conditional update of the link row: Postgres serialises them, and exactly the cap succeed.
 * Uncapped links never get here (no query on their path); capped links are few.
 *
 * `greatest(cap_claims, clicks)`: clicks a link had before it was capped, or that were served
 * while the database was away (below), count too, so the cap is never reset by either.
 */

let lastOutageWarning = 0

/**
 * Whether one more human visit of a capped link may go through. On a refusal the cached link is
 * marked spent, so later visits on this instance are answered as expired without a query.
 */
export async function claimCappedVisit(db: Db, link: ServeLink, log: FastifyBaseLogger): Promise<boolean> {
  const cap = link.expirationClicks ?? 0
  let claimed: number | undefined
  try {
    const taken = sql`greatest(${links.capClaims}, ${links.clicks})`
    const [row] = await db
      .update(links)
      .set({ capClaims: sql`${taken} + 1` })
      .where(and(eq(links.id, link.id), sql`(coalesce(${links.expirationClicks}, 0) <= 0 or ${taken} < ${links.expirationClicks})`))
      .returning({ claimed: links.capClaims })
    claimed = row?.claimed
  } catch (err) {
    if (!isDatabaseUnavailable(err)) throw err
    // Database away: the visit was already checked against this instance's live count, and a
    // cached link keeps redirecting during an outage; the cap may then overshoot by the visits
    // other instances serve meanwhile (docs/decisions.md).
    const now = Date.now()
    if (now - lastOutageWarning > 10_000) {
      lastOutageWarning = now
      log.warn({ linkId: link.id }, 'database unreachable: a capped link is served on this instance\'s own count')
    }
    return true
  }
  // what every instance let through so far is at least `claimed`: the local count learns it
  const known = claimed === undefined ? cap : claimed - 1
  link.clicksBase = Math.max(link.clicksBase, known - link.localClicks)
  return claimed !== undefined
}
