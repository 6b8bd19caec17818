import type { Db, Tx } from '../../db/client.js'
import { badRequest } from '../../http/errors.js'
import type { Entry } from './match.js'
import { findBlocked } from './repo.js'

/** What a refusal says: which entry matched, so an honest user knows what to change. */
export const blockedReason = (entry: Entry) =>
  entry.type === 'domain' ? `is refused: ${entry.value} is on this service's blocklist.` : `is refused: it contains "${entry.value}", which is on this service's blocklist.`

/** Other resources' URL fields (QR data, domain redirects): a 400 naming the field as sent. */
export async function refuseBlocked(db: Db | Tx, fields: { field: string; url: string | null | undefined }[]): Promise<void> {
  const urls = fields.filter((f): f is { field: string; url: string } => typeof f.url === 'string' && f.url !== '')
  const hit = await findBlocked(db, urls)
  if (hit) throw badRequest(`${hit.item.field} ${blockedReason(hit.entry)}`, hit.item.field)
}

/**
 * A splash page or overlay made before a blocklist entry may still hold a listed URL (its image, its
 * button's link): why attaching it to a link is refused, or null.
 */
export async function blockedPage(db: Db | Tx, page: { imageUrl: string | null; buttonUrl: string | null }): Promise<string | null> {
  const urls = [
    { what: 'image', url: page.imageUrl },
    { what: 'button link', url: page.buttonUrl },
  ].filter((f): f is { what: string; url: string } => typeof f.url === 'string' && f.url !== '')
  const hit = await findBlocked(db, urls)
  if (!hit) return null
  const listed = hit.entry.type === 'domain' ? hit.entry.value : `"${hit.entry.value}"`
  return `its ${hit.item.what} matches ${listed}, which is on this service's blocklist.`
}
