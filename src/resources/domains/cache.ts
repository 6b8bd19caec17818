import type { FastifyInstance } from 'fastify'

/**
 * The redirect cache (app.linkCache, interfaces.md item 4), called after the change has committed.
 * A failed invalidation (Redis away) must not turn a successful write into an error for the
 * caller: it is logged, and the cache entries expire anyway.
 */
export async function invalidateLinks(app: FastifyInstance, linkIds: Iterable<number>): Promise<void> {
  for (const id of new Set(linkIds)) {
    await app.linkCache.invalidate(id).catch((err: unknown) => app.log.warn({ err, linkId: id }, 'link cache invalidation failed'))
  }
}

export async function invalidateDomain(app: FastifyInstance, domainId: number): Promise<void> {
  await app.linkCache.invalidateDomain(domainId).catch((err: unknown) => app.log.warn({ err, domainId }, 'domain cache invalidation failed'))
}
