import type { FastifyInstance } from 'fastify'
import { and, asc, eq, gt, inArray } from 'drizzle-orm'
import { setImmediate as yieldToEventLoop } from 'node:timers/promises'
import type { Db } from '../../db/client.js'
import { links, linkTargets, pages } from '../../db/schema/index.js'
import { invalidateLinks } from '../redirect-cache.js'
import { Matcher, type Entry } from './match.js'

/** Links read per step: small enough that visits and API calls interleave with a rescan. */
const CHUNK = 500

/**
 * Rescans of existing links after entries were added (DECISIONS §10.6), off the request path:
 * links in id order, a chunk at a time, each link's URL fields and targets matched in memory
 * against the NEW entries only (a link an admin released stays released until a new entry matches
 * it). Matches are quarantined and dropped from every instance's redirect cache. One rescan runs
 * at a time per app; entries added meanwhile join the next pass.
 */
class Rescanner {
  private pending: Entry[] = []
  private running: Promise<void> | null = null

  constructor(private readonly app: FastifyInstance) {}

  add(entries: Entry[]): void {
    if (!entries.length) return
    this.pending.push(...entries)
    if (!this.running) {
      this.running = this.drain()
        .catch((err: unknown) => this.app.log.error({ err }, 'blocklist rescan failed'))
        .finally(() => (this.running = null))
    }
  }

  /** Resolves when no rescan is running or waiting (tests, and the CLI before it exits). */
  async idle(): Promise<void> {
    while (this.running) await this.running
  }

  private async drain(): Promise<void> {
    while (this.pending.length) {
      const matcher = new Matcher(this.pending.splice(0))
      const quarantined = await rescanLinks(this.app.db, matcher, (ids) => invalidateLinks(this.app, ids))
      if (quarantined) this.app.log.info({ quarantined, entries: matcher.size }, 'blocklist rescan quarantined links')
    }
  }
}

/**
 * Quarantines every link not yet quarantined that `matcher` matches; returns how many. `quarantined`
 * hears of each chunk's matches once they are written (the server drops them from its caches).
 */
export async function rescanLinks(db: Db, matcher: Matcher, quarantined: (ids: number[]) => Promise<void>): Promise<number> {
  let cursor = 0
  let total = 0
  for (;;) {
    const rows = await db
      .select({
        id: links.id,
        url: links.url,
        expirationUrl: links.expirationUrl,
        deepLink: links.deepLink,
        metaImage: links.metaImage,
        fallback: links.fallback,
        // a splash page's image and an overlay's button link are shown to the link's visitors
        pageImage: pages.imageUrl,
        pageButton: pages.buttonUrl,
      })
      .from(links)
      .leftJoin(pages, eq(pages.id, links.pageId))
      .where(and(gt(links.id, cursor), eq(links.quarantined, false)))
      .orderBy(asc(links.id))
      .limit(CHUNK)
    if (!rows.length) return total
    cursor = rows[rows.length - 1].id
    const targets = await db
      .select({ linkId: linkTargets.linkId, url: linkTargets.url })
      .from(linkTargets)
      .where(inArray(linkTargets.linkId, rows.map((r) => r.id)))
    const urlsOf = new Map<number, string[]>()
    for (const r of rows) {
      const urls = [r.url, r.expirationUrl, r.deepLink?.apple, r.deepLink?.google, r.metaImage, r.fallback, r.pageImage, r.pageButton]
      urlsOf.set(r.id, urls.filter((u): u is string => !!u))
    }
    for (const t of targets) urlsOf.get(t.linkId)?.push(t.url)
    const hits = [...urlsOf].filter(([, urls]) => urls.some((u) => matcher.match(u))).map(([id]) => id)
    if (hits.length) {
      await db.update(links).set({ quarantined: true }).where(inArray(links.id, hits))
      await quarantined(hits)
      total += hits.length
    }
    await yieldToEventLoop()
  }
}

// keyed by the database: a plugin's encapsulated instance and the root app share it
const byDb = new WeakMap<object, Rescanner>()

function rescanner(app: FastifyInstance): Rescanner {
  let r = byDb.get(app.db)
  if (!r) byDb.set(app.db, (r = new Rescanner(app)))
  return r
}

/** Starts (or extends) the background rescan for entries just added. */
export const rescanFor = (app: FastifyInstance, entries: Entry[]) => rescanner(app).add(entries)

/** Resolves when the rescans started so far are done. */
export const rescansDone = (app: FastifyInstance) => rescanner(app).idle()
