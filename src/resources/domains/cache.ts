import type { FastifyInstance } from 'fastify'

/** The redirect cache decorated by src/redirect/lookup.ts (interfaces.md item 4). */
interface LinkCache {
  invalidate(linkId: number): Promise<void>
  invalidateDomain(domainId: number): Promise<void>
}

const cacheOf = (app: FastifyInstance) => (app as unknown as { linkCache?: LinkCache }).linkCache

/**
 * Called after the change has committed. A failed invalidation (Redis away) must not turn a
 * successful write into an error for the caller: it is logged, and the cache entries expire anyway.
 */
export async function invalidateLinks(app: FastifyInstance, linkIds: Iterable<number>): Promise<void> {
  const cache = cacheOf(app)
  if (!cache) return
  for (const id of new Set(linkIds)) {
    await cache.invalidate(id).catch((err: unknown) => app.log.warn({ err, linkId: id }, 'link cache invalidation failed'))
  }
}

export async function invalidateDomain(app: FastifyInstance, domainId: number): Promise<void> {
  const cache = cacheOf(app)
  if (!cache) return
  await cache.invalidateDomain(domainId).catch((err: unknown) => app.log.warn({ err, domainId }, 'domain cache invalidation failed'))
}
