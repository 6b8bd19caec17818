import { createHash } from 'node:crypto'
import { badRequest } from '../../http/errors.js'
import { safeFetch, SsrfError, type SafeFetchOptions } from '../../lib/ssrf.js'
import { inspectImage } from './render.js'

export const MAX_LOGO_BYTES = 256 * 1024

export interface StoredLogo {
  /** data:image/png|jpeg;base64,… */
  dataUrl: string
  /** short hash of the bytes (qr_codes.logo_hash) */
  hash: string
}

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
const JPEG_MAGIC = Buffer.from([0xff, 0xd8, 0xff])

/** The real type of the bytes, from their magic numbers; null when neither PNG nor JPEG. */
export function sniffImage(bytes: Buffer): 'image/png' | 'image/jpeg' | null {
  if (bytes.subarray(0, 8).equals(PNG_MAGIC)) return 'image/png'
  if (bytes.subarray(0, 3).equals(JPEG_MAGIC)) return 'image/jpeg'
  return null
}

// Image hosts and CDNs often serve uploads as octet-stream; the bytes decide either way.
const LOGO_TYPES = ['image/png', 'image/jpeg', 'image/jpg', 'image/pjpeg', 'application/octet-stream', 'binary/octet-stream']

const refuse = (message: string) => badRequest(`logo ${message}`, 'logo')

/**
 * A logo as sent: an https URL, fetched once here through the SSRF guard, or a `data:` URL of a PNG
 * or JPEG. At most 256 KiB, really a PNG or JPEG (magic bytes, then a full decode with a pixel
 * limit). Throws a 400 naming `logo`. `fetchOptions` exists for tests (a loopback server).
 */
export async function loadLogo(input: string, fetchOptions: Partial<SafeFetchOptions> = {}): Promise<StoredLogo> {
  const value = input.trim()
  let bytes: Buffer
  if (/^data:/i.test(value)) {
    const m = /^data:([a-z]+\/[a-z0-9.+-]+)?(;[^,]*)?,(.*)$/is.exec(value)
    if (!m || !/;base64$/i.test(m[2] ?? '')) throw refuse('must be a base64 data: URL such as data:image/png;base64,….')
    if (m[1] && !/^image\/(png|jpe?g)$/i.test(m[1])) throw refuse('must be a PNG or JPEG image.')
    const b64 = m[3].replace(/\s+/g, '')
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64)) throw refuse('is not valid base64.')
    if (Math.floor((b64.length * 3) / 4) - (b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0) > MAX_LOGO_BYTES) {
      throw refuse(`must be at most ${MAX_LOGO_BYTES / 1024} KiB.`)
    }
    bytes = Buffer.from(b64, 'base64')
  } else if (/^https:\/\//i.test(value) || (fetchOptions.protocols?.includes('http:') && /^http:\/\//i.test(value))) {
    try {
      const res = await safeFetch(value, { protocols: ['https:'], ...fetchOptions, maxBytes: MAX_LOGO_BYTES, contentTypes: LOGO_TYPES, headers: { accept: 'image/png,image/jpeg;q=0.9' } })
      bytes = res.body
    } catch (err) {
      if (err instanceof SsrfError) {
        if (err.code === 'too_large') throw refuse(`must be at most ${MAX_LOGO_BYTES / 1024} KiB.`)
        throw refuse(`could not be fetched: the URL ${err.message}.`)
      }
      throw err
    }
  } else {
    throw refuse('must be an https:// URL or a data: URL of a PNG or JPEG image.')
  }
  if (bytes.length === 0) throw refuse('is empty.')
  if (bytes.length > MAX_LOGO_BYTES) throw refuse(`must be at most ${MAX_LOGO_BYTES / 1024} KiB.`)
  const mime = sniffImage(bytes)
  if (!mime) throw refuse('must be a PNG or JPEG image.')
  let info: { format: string }
  try {
    info = await inspectImage(bytes)
  } catch {
    throw refuse('could not be decoded as a PNG or JPEG image (damaged, or larger than 4096 × 4096 pixels).')
  }
  if (info.format !== (mime === 'image/png' ? 'png' : 'jpeg')) throw refuse('must be a PNG or JPEG image.')
  return {
    dataUrl: `data:${mime};base64,${bytes.toString('base64')}`,
    hash: createHash('sha256').update(bytes).digest('base64url').slice(0, 22),
  }
}
