import { PNG } from 'pngjs'
import jsQRModule from 'jsqr'
import sharp from 'sharp'
import { count } from 'drizzle-orm'
import type { LightMyRequestResponse } from 'fastify'
import { qrCodes } from '../../src/db/schema/index.js'
import type { TestApp } from '../helpers/app.js'

// jsqr is CommonJS with `export default` typings: under NodeNext the callable sits on .default at type level
const jsQR = ((jsQRModule as unknown as { default?: typeof jsQRModule }).default ?? jsQRModule) as unknown as typeof jsQRModule.default

export const PUBLIC = 'http://kurz.test'
export const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36'
export const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'

export interface Decoded {
  width: number
  height: number
  /** RGBA bytes */
  pixels: Buffer
  /** the decoded QR content, or null when no code was found */
  text: string | null
}

export function decodePng(body: Buffer): Decoded {
  const png = PNG.sync.read(body)
  const code = jsQR(new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length), png.width, png.height)
  return { width: png.width, height: png.height, pixels: png.data, text: code ? code.data : null }
}

export function pixel(d: Decoded, x: number, y: number): [number, number, number] {
  const i = (y * d.width + x) * 4
  return [d.pixels[i], d.pixels[i + 1], d.pixels[i + 2]]
}

/** Rasterises an SVG with librsvg (sharp) and decodes it: proves the SVG is valid and scannable. */
export async function decodeSvg(body: Buffer): Promise<Decoded> {
  return decodePng(await sharp(body).png().toBuffer())
}

/** A PNG or JPEG logo as a data: URL. */
export async function logoDataUrl(format: 'png' | 'jpeg', colour = { r: 220, g: 20, b: 60 }, size = 120): Promise<string> {
  const img = sharp({ create: { width: size, height: size, channels: 3, background: colour } })
  const bytes = format === 'png' ? await img.png().toBuffer() : await img.jpeg({ quality: 90 }).toBuffer()
  return `data:image/${format};base64,${bytes.toString('base64')}`
}

export const aliasOf = (link: string) => link.split('/').pop()!

export async function qrCount(t: TestApp): Promise<number> {
  const [{ n }] = await t.app.db.select({ n: count() }).from(qrCodes)
  return n
}

export function get(t: TestApp, url: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET'): Promise<LightMyRequestResponse> {
  return t.app.inject({ method, url, headers: { host: 'kurz.test', 'user-agent': CHROME, ...headers } })
}
