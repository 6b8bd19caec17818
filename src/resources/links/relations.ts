import { and, eq } from 'drizzle-orm'
import type { Db, Tx } from '../../db/client.js'
import { channelItems, linkPixels, linkTargets, TARGET_KINDS } from '../../db/schema/index.js'
import type { LinkInput } from './model.js'
import { deleteChannelItemsOf } from './repo.js'

/**
 * Writes a link's targets, pixels and channel items from the input, inside the link write's
 * transaction. Each one sent replaces what the link had (`replace`, on update); absent ones stay.
 */
export async function writeRelations(db: Db | Tx, linkId: number, input: LinkInput, replace: boolean): Promise<void> {
  for (const kind of TARGET_KINDS) {
    const list = input[kind]
    if (list === undefined) continue
    if (replace) await db.delete(linkTargets).where(and(eq(linkTargets.linkId, linkId), eq(linkTargets.kind, kind)))
    if (list?.length) {
      await db.insert(linkTargets).values(list.map((t, position) => ({ linkId, kind, key: t.key, match: t.match, url: t.url, position })))
    }
  }
  if (input.pixelIds !== undefined) {
    if (replace) await db.delete(linkPixels).where(eq(linkPixels.linkId, linkId))
    if (input.pixelIds?.length) await db.insert(linkPixels).values(input.pixelIds.map((pixelId) => ({ linkId, pixelId })))
  }
  if (input.channelIds !== undefined) {
    if (replace) await deleteChannelItemsOf(db, [linkId])
    if (input.channelIds?.length) {
      await db.insert(channelItems).values(input.channelIds.map((channelId) => ({ channelId, itemType: 'links' as const, itemId: linkId })))
    }
  }
}
