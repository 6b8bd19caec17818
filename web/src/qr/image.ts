import { localPath } from '../ui/format'

/**
 * A saved code's image files, the same from the list and from the code's page: one PNG size, so
 * the same button gives the same file. `version` changes after an edit: the server lets an image
 * be cached for five minutes, and an edited code must not show or download the old one.
 */
export const PNG_SIZE = 600

const src = (link: string, params: Record<string, string | number>, version = 0) =>
  `${localPath(link)}?${new URLSearchParams(Object.entries({ ...params, ...(version ? { v: version } : {}) }).map(([k, v]) => [k, String(v)]))}`

export const pngHref = (link: string, version?: number) => src(link, { format: 'png', size: PNG_SIZE }, version)
export const svgHref = (link: string, version?: number) => src(link, { format: 'svg' }, version)
/** A preview drawn `size` pixels wide (a thumbnail, the detail page's picture). */
export const previewSrc = (link: string, size: number, version?: number) => src(link, { size }, version)
