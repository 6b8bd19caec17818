import type { ClickRecorder } from '../clicks/recorder.js'
import type { Visitor } from '../visit/visitor.js'
import type { LinkCache } from './cache.js'
import type { ServeLink } from './loader.js'

/**
 * A visit's click, off the response path (a synchronous push), for Fastify's visit handler and the
 * cached visit path alike. HEAD is never counted; bots are bot hits, not clicks.
 */
export function recordVisit(
  clicks: ClickRecorder,
  cache: LinkCache,
  method: string | undefined,
  link: ServeLink,
  visitor: Visitor,
  source: 'link' | 'rotator',
  rotation?: number,
) {
  if (method === 'HEAD') return
  const human = !visitor.isBot
  clicks.record({ linkId: link.id, userId: link.userId, source, visitor, rotation: human ? rotation : undefined })
  if (human) {
    cache.countClick(link.id)
    if (rotation !== undefined) link.lastRotation = rotation
  }
}
