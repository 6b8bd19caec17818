import type { FastifyInstance } from 'fastify'
import { badRequest } from '../../http/errors.js'
import { refuseBlocked } from '../blocklist/check.js'
import { firstOwnUrl } from '../links/self-loop.js'
import type { QrContent } from './content.js'

/**
 * The URL rule's checks that need the database, for QR data (DECISIONS §4, §10.6): a link QR code
 * already is a short link of this service, so one pointing at another short link is refused; and
 * a destination on the blocklist is refused like a link's. Both read the URL as the browser will
 * (the parsed `target`), so a disguised host cannot slip past.
 */
export async function checkQrUrls(app: FastifyInstance, parsed: QrContent): Promise<void> {
  if (!parsed.target) return
  const urls = [parsed.target]
  if (await firstOwnUrl(app, app.db, urls.map((url) => ({ url })))) {
    throw badRequest('data points at a short link of this service; use the destination URL itself.', 'data')
  }
  await refuseBlocked(app.db, urls.map((url) => ({ field: 'data', url })))
}
