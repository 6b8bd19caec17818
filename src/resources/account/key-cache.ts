import type { FastifyInstance } from 'fastify'
import { KeyCache } from '../../accounts/key-cache.js'
import { InvalidationBus } from '../../redirect/invalidation.js'

const CHANNEL = 'api-keys'

declare module 'fastify' {
  interface FastifyInstance {
    /** accounts of recently used API keys (key-cache.ts) */
    keyCache: KeyCache
    /** after a committed change to users, plans or API keys: clears the key cache here and on the other instances */
    accountsChanged(): Promise<void>
  }
}

/** Decorates the app with its key cache, cleared on the other instances' changes through Redis. */
export function registerKeyCache(app: FastifyInstance): void {
  const cache = new KeyCache()
  const bus = new InvalidationBus(app.redis, app.log, CHANNEL)
  app.decorate('keyCache', cache)
  app.decorate('accountsChanged', async () => {
    cache.clear()
    await bus.publish({ kind: 'all' })
  })
  app.addHook('onReady', () => bus.start({ link: () => {}, domain: () => {}, all: () => cache.clear() }))
  app.addHook('onClose', () => bus.close())
}
