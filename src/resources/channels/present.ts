import type { Config } from '../../config.js'
import { toDay } from '../../http/format.js'
import { shortUrlOf } from '../../lib/short-url.js'
import type { Channel, ChannelItemRow } from './repo.js'

export function presentChannel(c: Channel) {
  return { id: c.id, name: c.name, description: c.description, color: c.color, starred: c.starred }
}

/**
 * DECISIONS §7: title = the link's title (else its long URL) or the QR code's name; preview = the
 * destination (links) or the image URL (QR); link = the short or scan URL; date = created, YYYY-MM-DD.
 */
export function presentChannelItem(config: Config, row: ChannelItemRow) {
  if (row.type === 'qr') {
    return {
      type: row.type,
      id: row.id,
      title: row.qrName!,
      preview: `${config.publicUrl}/qr/${row.qrAlias}`,
      // text and wifi codes carry their content, not a tracked scan URL: their link is the image
      link: row.qrType === 'text' || row.qrType === 'wifi' ? `${config.publicUrl}/qr/${row.qrAlias}` : `${config.publicUrl}/q/${row.qrAlias}`,
      date: toDay(row.qrCreatedAt!),
    }
  }
  return {
    type: row.type,
    id: row.id,
    title: row.linkTitle || row.linkUrl!,
    preview: row.linkUrl!,
    link: shortUrlOf(config, { alias: row.linkAlias! }, row.linkDomain ? { domain: row.linkDomain } : null),
    date: toDay(row.linkCreatedAt!),
  }
}
