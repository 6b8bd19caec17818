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

/** As a link's: a known rotator stays fresh for minutes, a slug without one for seconds (a campaign made where no invalidation reaches). */
const FRESH = 5 * 60_000
const UNKNOWN_FRESH = 5_000
const TTL = 10 * 60_000

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
    /** how long a known rotator stays fresh now: shorter while invalidations may go unheard */
    private readonly freshMs: () => number | undefined,
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
      const fresh = rotation ? (this.freshMs() ?? FRESH) : Math.min(this.freshMs() ?? UNKNOWN_FRESH, UNKNOWN_FRESH)
      if (generation === this.generation) this.entries.set(slug, { rotation, freshUntil: now + fresh, expiresAt: now + Math.max(TTL, fresh) })
      return rotation
    })
  }
}
