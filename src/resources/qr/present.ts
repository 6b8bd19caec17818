import type { Config } from '../../config.js'
import { toTimestamp } from '../../http/format.js'

/** The image URL, which is the QR code's `link` in every response (DECISIONS §7). */
export const qrImageUrl = (config: Pick<Config, 'publicUrl'>, alias: string) => `${config.publicUrl}/qr/${alias}`
/** The tracked scan URL that link, email, phone, sms and vcard codes encode. */
export const qrScanUrl = (config: Pick<Config, 'publicUrl'>, alias: string) => `${config.publicUrl}/q/${alias}`

/** List item under `data.qrs`, and `details` of the single form (SPEC.md "QR code"). */
export function presentQr(config: Pick<Config, 'publicUrl'>, row: { id: number; alias: string; scans: number; name: string; createdAt: Date }) {
  return { id: row.id, link: qrImageUrl(config, row.alias), scans: row.scans, name: row.name, date: toTimestamp(row.createdAt) }
}
