import { createHash } from 'node:crypto'
import QRCode from 'qrcode'
import { LRUCache } from 'lru-cache'
import type { Sharp, SharpOptions } from 'sharp'
import { escapeHtml } from '../../lib/html.js'
import { sharedRun } from '../../lib/shared-run.js'
import type { Rgb } from '../../lib/colour.js'

/**
 * QR images, PNG or SVG, with colours and an optional centred logo (DECISIONS §5, §7, §9).
 *
 * Rendering cost is the resource to guard: sizes are capped at 1024 px, finished images sit in a
 * bounded LRU keyed by everything that shapes them (so an ETag is known before rendering), equal
 * concurrent requests share one render, and at most two renders run at once. The PNG work itself
 * (composite, encode) runs in sharp/libvips on libuv's thread pool, off the event loop; the only
 * synchronous part is building one raw row per module row.
 */

export const MIN_SIZE = 64
export const MAX_SIZE = 1024
export const DEFAULT_SIZE = 300
/** quiet zone in modules (ISO/IEC 18004 asks for 4) */
const MARGIN = 4
/** share of the symbol's width the logo box may take; with level H the code survives it */
const LOGO_SHARE = 0.22
/** bump when the drawing changes, so cached ETags change with it */
const RENDERER_VERSION = '1'

export type ImageFormat = 'png' | 'svg'

export const formatColour = (c: Rgb) => `rgb(${c.r},${c.g},${c.b})`


export type ErrorLevel = 'M' | 'H'
/** Level H (30 % recovery) whenever a logo covers the centre; M otherwise. */
export const errorLevelFor = (hasLogo: boolean): ErrorLevel => (hasLogo ? 'H' : 'M')

/** Throws when the content does not fit in a QR code at that level (qrcode's own check). */
export function assertFits(content: string, level: ErrorLevel): void {
  QRCode.create(content, { errorCorrectionLevel: level })
}

export interface Logo {
  /** identifies the logo bytes (a hash), so the cache key needs no logo loaded */
  key: string
  /** the logo as a data: URL; called only when the image is not cached */
  load: () => Promise<string | null>
}

export interface RenderOptions {
  size: number
  format: ImageFormat
  foreground: Rgb
  background: Rgb
  logo?: Logo | null
}

export interface RenderedQr {
  body: Buffer
  contentType: string
  etag: string
}

/** A stable key for (content, options); the ETag derives from it. */
export function renderKey(content: string, o: RenderOptions): string {
  return createHash('sha256')
    .update(
      JSON.stringify([RENDERER_VERSION, content, o.size, o.format, formatColour(o.foreground), formatColour(o.background), o.logo?.key ?? null]),
    )
    .digest('base64url')
}

export const etagOf = (key: string) => `"qr-${key.slice(0, 32)}"`

const cache = new LRUCache<string, RenderedQr>({
  max: 4000,
  maxSize: 64 * 1024 * 1024,
  sizeCalculation: (v) => v.body.length + 200,
})
const inflight = new Map<string, Promise<RenderedQr>>()

// at most two renders at once (two cores); the rest wait their turn
let running = 0
const waiting: (() => void)[] = []
async function withSlot<T>(fn: () => Promise<T>): Promise<T> {
  if (running >= 2) await new Promise<void>((r) => waiting.push(r))
  running++
  try {
    return await fn()
  } finally {
    running--
    waiting.shift()?.()
  }
}

/** Whether the image of (content, options) is cached or being drawn: serving it costs no render. */
export const isRendered = (content: string, o: RenderOptions) => {
  const key = renderKey(content, { ...o, size: Math.min(MAX_SIZE, Math.max(MIN_SIZE, Math.round(o.size))) })
  return cache.has(key) || inflight.has(key)
}

/** Renders (or serves from the cache) the QR code of `content`. Exported for reuse (interfaces §5). */
export async function renderQr(content: string, o: RenderOptions): Promise<RenderedQr> {
  const size = Math.min(MAX_SIZE, Math.max(MIN_SIZE, Math.round(o.size)))
  const opts = { ...o, size }
  const key = renderKey(content, opts)
  const hit = cache.get(key)
  if (hit) return hit
  return sharedRun(inflight, key, () =>
    withSlot(async () => {
      const logo = opts.logo ? await opts.logo.load() : null
      const body = opts.format === 'svg' ? drawSvg(content, opts, logo) : await drawPng(content, opts, logo)
      const out = { body, contentType: opts.format === 'svg' ? 'image/svg+xml' : 'image/png', etag: etagOf(key) }
      cache.set(key, out)
      return out
    }),
  )
}

// ---------------------------------------------------------------------------------------------
// Drawing

interface Layout {
  n: number
  /** pixels per module (fractional only when the size is smaller than one pixel per module) */
  scale: number
  /** pixels of extra background before the quiet zone, to centre a whole-pixel grid */
  offset: number
  dark: (row: number, col: number) => boolean
  /** logo box in modules: first module index and width; null when no logo */
  logoBox: { first: number; count: number } | null
}

function layout(content: string, size: number, hasLogo: boolean): Layout {
  const qr = QRCode.create(content, { errorCorrectionLevel: errorLevelFor(hasLogo) })
  const n = qr.modules.size
  const total = n + 2 * MARGIN
  const whole = Math.floor(size / total)
  const scale = whole >= 1 ? whole : size / total
  const offset = whole >= 1 ? Math.floor((size - whole * total) / 2) : 0
  const data = qr.modules.data
  let logoBox: Layout['logoBox'] = null
  if (hasLogo) {
    let count = Math.max(3, Math.round(n * LOGO_SHARE))
    if ((n - count) % 2 !== 0) count += 1
    logoBox = { first: (n - count) / 2, count }
  }
  return { n, scale, offset, dark: (r, c) => data[r * n + c] === 1, logoBox }
}

let sharpModule: Promise<typeof import('sharp')> | null = null
/** sharp (libvips) is loaded on first use, so a server that never renders never maps it. */
async function loadSharp() {
  sharpModule ??= import('sharp').then((m) => {
    m.default.cache(false) // our LRU holds finished images; libvips' own cache would only double memory
    m.default.concurrency(1)
    return m
  })
  return (await sharpModule).default
}

const LOGO_LIMITS: SharpOptions = { limitInputPixels: 4096 * 4096, failOn: 'error' }

export function decodeDataUrl(dataUrl: string): { mime: string; bytes: Buffer } | null {
  const m = /^data:(image\/(?:png|jpeg));base64,([A-Za-z0-9+/]+={0,2})$/.exec(dataUrl)
  return m ? { mime: m[1], bytes: Buffer.from(m[2], 'base64') } : null
}

async function drawPng(content: string, o: RenderOptions, logo: string | null): Promise<Buffer> {
  const sharp = await loadSharp()
  const L = layout(content, o.size, logo !== null)
  const { size } = o
  const fg = [o.foreground.r, o.foreground.g, o.foreground.b]
  const bg = [o.background.r, o.background.g, o.background.b]
  const raw = Buffer.alloc(size * size * 3)
  // module column of each pixel column (or -1 in the quiet zone)
  const colOf = new Int32Array(size)
  for (let x = 0; x < size; x++) {
    const m = Math.floor((x - L.offset) / L.scale) - MARGIN
    colOf[x] = x < L.offset || m < 0 || m >= L.n ? -1 : m
  }
  let previous = -2
  for (let y = 0; y < size; y++) {
    const mr = Math.floor((y - L.offset) / L.scale) - MARGIN
    const row = y < L.offset || mr < 0 || mr >= L.n ? -1 : mr
    const start = y * size * 3
    if (row === previous && y > 0) {
      raw.copy(raw, start, start - size * 3, start)
      continue
    }
    for (let x = 0; x < size; x++) {
      const c = colOf[x]
      const colour = row >= 0 && c >= 0 && L.dark(row, c) ? fg : bg
      const i = start + x * 3
      raw[i] = colour[0]
      raw[i + 1] = colour[1]
      raw[i + 2] = colour[2]
    }
    previous = row
  }
  let img: Sharp = sharp(raw, { raw: { width: size, height: size, channels: 3 } })
  const decoded = logo ? decodeDataUrl(logo) : null
  if (decoded && L.logoBox) {
    const boxStart = Math.round(L.offset + (MARGIN + L.logoBox.first) * L.scale)
    const boxSize = Math.max(1, Math.round(L.logoBox.count * L.scale))
    const pad = Math.max(1, Math.round(boxSize * 0.08))
    const inner = Math.max(1, boxSize - 2 * pad)
    const fitted = await sharp(decoded.bytes, LOGO_LIMITS)
      .resize(inner, inner, { fit: 'contain', background: { ...o.background, alpha: 0 } })
      .png()
      .toBuffer()
    img = img.composite([
      { input: { create: { width: boxSize, height: boxSize, channels: 3, background: o.background } }, left: boxStart, top: boxStart },
      { input: fitted, left: boxStart + pad, top: boxStart + pad },
    ])
  }
  // a two-colour image compresses best as a palette PNG; with a logo keep full colour
  return img.png(decoded ? { compressionLevel: 6 } : { compressionLevel: 9, palette: true, colours: 2, dither: 0 }).toBuffer()
}

function drawSvg(content: string, o: RenderOptions, logo: string | null): Buffer {
  const decoded = logo ? decodeDataUrl(logo) : null
  const L = layout(content, o.size, decoded !== null)
  const total = L.n + 2 * MARGIN
  const box = decoded ? L.logoBox : null
  const inBox = (r: number, c: number) =>
    box !== null && r >= box.first && r < box.first + box.count && c >= box.first && c < box.first + box.count
  let d = ''
  for (let r = 0; r < L.n; r++) {
    let c = 0
    while (c < L.n) {
      if (!L.dark(r, c) || inBox(r, c)) {
        c++
        continue
      }
      let run = 1
      while (c + run < L.n && L.dark(r, c + run) && !inBox(r, c + run)) run++
      d += `M${c + MARGIN} ${r + MARGIN}h${run}v1h-${run}z`
      c += run
    }
  }
  const fg = formatColour(o.foreground)
  const bg = formatColour(o.background)
  let logoMarkup = ''
  if (decoded && box) {
    const at = box.first + MARGIN
    const pad = box.count * 0.08
    const href = escapeHtml(`data:${decoded.mime};base64,${decoded.bytes.toString('base64')}`)
    logoMarkup =
      `<rect x="${at}" y="${at}" width="${box.count}" height="${box.count}" fill="${bg}"/>` +
      `<image x="${at + pad}" y="${at + pad}" width="${box.count - 2 * pad}" height="${box.count - 2 * pad}" preserveAspectRatio="xMidYMid meet" href="${href}" xlink:href="${href}"/>`
  }
  const svg =
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" version="1.1" width="${o.size}" height="${o.size}" viewBox="0 0 ${total} ${total}" shape-rendering="crispEdges">` +
    `<rect width="${total}" height="${total}" fill="${bg}"/>` +
    `<path fill="${fg}" d="${d}"/>` +
    logoMarkup +
    `</svg>\n`
  return Buffer.from(svg)
}

/** Decodes and bounds a logo: the real format (from its bytes) and its pixel size; throws when broken. */
export async function inspectImage(bytes: Buffer): Promise<{ format: string; width: number; height: number }> {
  const sharp = await loadSharp()
  const img = sharp(bytes, LOGO_LIMITS)
  const meta = await img.metadata()
  // metadata reads only the header; decoding a thumbnail proves the pixel data is whole
  await img.resize(32, 32, { fit: 'inside' }).raw().toBuffer()
  return { format: meta.format ?? '', width: meta.width ?? 0, height: meta.height ?? 0 }
}
