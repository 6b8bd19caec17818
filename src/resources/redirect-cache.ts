import type { FastifyInstance } from 'fastify'

/*
 * The redirect cache (app.linkCache) as the write side uses it, after its change has committed.
 * A failed invalidation (Redis away) must not turn a successful write into an error for the
 * caller: it is logged, and the cache entries expire anyway.
 */

/** After links changed or went: their cached visits must not be served again. */
export async function invalidateLinks(app: FastifyInstance, linkIds: Iterable<number>): Promise<void> {
  for (const id of new Set(linkIds)) {
    await app.linkCache.invalidate(id).catch((err: unknown) => app.log.warn({ err, linkId: id }, 'link cache invalidation failed'))
  }
}

/** After a branded domain was added, changed or deleted (its links moved to the default domain). */
export async function invalidateDomain(app: FastifyInstance, domainId: number): Promise<void> {
  await app.linkCache.invalidateDomain(domainId).catch((err: unknown) => app.log.warn({ err, domainId }, 'domain cache invalidation failed'))
}

/** After a campaign was added, changed or deleted, or a new link joined one: the rotators' lists changed. */
export async function invalidateRotations(app: FastifyInstance): Promise<void> {
  await app.linkCache.invalidateRotations().catch((err: unknown) => app.log.warn({ err }, 'rotator cache invalidation failed'))
}
