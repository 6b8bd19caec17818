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
  /** lookups in flight: a burst of requests with one key (a restart, an expired entry) asks once */
  private readonly loading = new Map<string, Promise<KeyLookup | null>>()
  /** bumped by every forget / clear: a lookup that started before one is not kept after it */
  private generation = 0

  get(keyHash: string): KeyLookup | undefined {
    return this.entries.get(keyHash)
  }

  /** The kept lookup, else the one in flight for the same key, else `load()`'s, kept if valid. */
  resolve(keyHash: string, load: () => Promise<KeyLookup | null>): KeyLookup | Promise<KeyLookup | null> {
    const kept = this.entries.get(keyHash)
    if (kept) return kept
    let pending = this.loading.get(keyHash)
    if (pending) return pending
    const generation = this.generation
    pending = load()
      .then((found) => {
        if (found && generation === this.generation) this.set(found)
        return found
      })
      .finally(() => {
        if (this.loading.get(keyHash) === pending) this.loading.delete(keyHash)
      })
    this.loading.set(keyHash, pending)
    return pending
  }

  set(lookup: KeyLookup): void {
    if (!lookup.revoked) this.entries.set(lookup.keyHash, lookup)
  }

  forget(keyHash: string): void {
    this.generation++
    this.loading.delete(keyHash)
    this.entries.delete(keyHash)
  }

  clear(): void {
    this.generation++
    this.loading.clear()
    this.entries.clear()
  }
}
