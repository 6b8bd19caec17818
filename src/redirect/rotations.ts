import { LRUCache } from 'lru-cache'
import type { Db } from '../db/client.js'
import { sharedRun } from '../lib/shared-run.js'
import { findRotator } from './loader.js'

/** A campaign rotator: the campaign and the links it may send a visitor to (each checked again at the visit). */
export interface Rotation {
  id: number
  linkIds: number[]
}

interface Entry {
  rotation: Rotation | null
  /** epoch ms after which the next visit reads it again in the background */
  freshUntil: number
  /** epoch ms after which it is not served */
  expiresAt: number
}

/** A slug without a campaign is read again after this at most: a campaign made where no invalidation reaches. */
const UNKNOWN_FRESH = 5_000

/** The link cache's ages, which a rotator shares. */
export interface RotationAges {
  /** how long an entry stays fresh now: shorter while invalidations may go unheard */
  fresh(): number
  /** never served past this */
  ttl: number
}

/**
 * Campaign rotators (`/r/<slug>`) by slug, in front of the database: a popular rotator was a query
 * per visit. The list may hold a link that has since expired, been disabled or moved: the visit
 * checks each candidate in the link cache. What the list cannot know (a link added to the campaign,
 * a slug changed or gone) drops every entry: the link cache does so on any link invalidation, and
 * campaign writes call LinkCache.invalidateRotations.
 */
export class RotationCache {
  private readonly entries = new LRUCache<string, Entry>({ max: 10_000 })
  private readonly loading = new Map<string, Promise<Rotation | null>>()
  /** bumped by every clear: a read that raced one is served but not kept */
  private generation = 0

  constructor(
    private readonly db: Db,
    private readonly ages: RotationAges,
  ) {}

  /** The rotator on `slug`, or null: from memory at once when held, else read (one read per slug at a time). */
  get(slug: string): Rotation | null | Promise<Rotation | null> {
    const e = this.entries.get(slug)
    const now = Date.now()
    if (e === undefined || e.expiresAt < now) return this.load(slug)
    if (e.freshUntil < now && !this.loading.has(slug)) this.load(slug).catch(() => {})
    return e.rotation
  }

  clear() {
    this.generation++
    this.entries.clear()
  }

  private load(slug: string): Promise<Rotation | null> {
    return sharedRun(this.loading, slug, async () => {
      const generation = this.generation
      const rotation = await findRotator(this.db, slug, new Date())
      const now = Date.now()
      const fresh = rotation ? this.ages.fresh() : Math.min(this.ages.fresh(), UNKNOWN_FRESH)
      if (generation === this.generation) this.entries.set(slug, { rotation, freshUntil: now + fresh, expiresAt: now + this.ages.ttl })
      return rotation
    })
  }
}
