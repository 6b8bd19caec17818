import { LRUCache } from 'lru-cache'
import type { KeyLookup } from './api-keys.js'

/** How long a key's account is trusted without asking the database (revocation on another instance without Redis). */
export const KEY_CACHE_TTL = 5_000
const MAX_KEYS = 10_000

/**
 * The accounts of recently used API keys, per instance, so an API request costs no key query.
 * Only keys that were found and valid are kept: a wrong or revoked key always asks the database.
 * Every change to users, plans or keys clears it here (`app.accountsChanged()`,
 * resources/account/key-cache.ts), and through Redis on the other instances; the TTL bounds what no
 * message announces (the CLI, an instance without Redis). The effective plan is still worked out
 * per request from what is kept, so a subscription that ends is seen at once.
 */
export class KeyCache {
  private readonly entries = new LRUCache<string, KeyLookup>({ max: MAX_KEYS, ttl: KEY_CACHE_TTL })

  get(keyHash: string): KeyLookup | undefined {
    return this.entries.get(keyHash)
  }

  set(lookup: KeyLookup): void {
    if (!lookup.revoked) this.entries.set(lookup.keyHash, lookup)
  }

  forget(keyHash: string): void {
    this.entries.delete(keyHash)
  }

  clear(): void {
    this.entries.clear()
  }
}
