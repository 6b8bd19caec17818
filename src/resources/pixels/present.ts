import { toTimestamp } from '../../http/format.js'
import type { Pixel } from './repo.js'

export function presentPixel(p: Pixel) {
  return { id: p.id, type: p.type, name: p.name, tag: p.tag, date: toTimestamp(p.createdAt) }
}
