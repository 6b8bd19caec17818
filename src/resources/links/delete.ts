import type { FastifyInstance } from 'fastify'
import { and, eq } from 'drizzle-orm'
import { links } from '../../db/schema/index.js'
import type { AuthUser } from '../../http/auth.js'
import { invalidateLinks } from '../redirect-cache.js'
import { deleteChannelItemsOf } from './repo.js'
import { enqueueLinkEvent } from '../webhooks/outbox.js'

/** Deletes the caller's link, its clicks (FK cascade) and its channel items, in one transaction. */
export async function deleteLink(app: FastifyInstance, user: AuthUser, id: number): Promise<boolean> {
  const deleted = await app.db.transaction(async (tx) => {
    const [row] = await tx
      .delete(links)
      .where(and(eq(links.id, id), eq(links.userId, user.id)))
      .returning({ id: links.id, userId: links.userId, alias: links.alias, domainId: links.domainId, url: links.url })
    if (!row) return false
    await deleteChannelItemsOf(tx, [id])
    await enqueueLinkEvent(tx, app.config.publicUrl, 'link.deleted', row)
    return true
  })
  if (deleted) await invalidateLinks(app, [id])
  return deleted
}
