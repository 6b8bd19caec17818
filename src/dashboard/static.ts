import { readFile, stat } from 'node:fs/promises'
import { basename, extname, join, resolve } from 'node:path'
import { Negotiator } from '@fastify/accept-negotiator'
import type { FastifyReply } from 'fastify'

/**
 * Where `vite build` writes the app: dist/web beside the repository root. The server runs either
 * from src/ (tsx, tests) or from dist/src/ (npm start), so both layouts are recognised.
 */
export function webRoot(): string {
  const up = resolve(import.meta.dirname, '../..')
  return basename(up) === 'dist' ? join(up, 'web') : join(up, 'dist', 'web')
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
}

/**
 * The SPA's policy: its own scripts and styles only, API calls to this origin, images from here,
 * data:/blob: (QR previews, uploaded logos) and https (social-card previews of a link's meta image).
 */
export const SPA_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob: https:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "frame-src 'none'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ')

const ASSET_NAME = /^[A-Za-z0-9_.-]{1,200}$/

/** The encodings the build wrote beside each script and stylesheet (vite.config.ts), best first. */
const encodings = new Negotiator({ supportedValues: ['br', 'gzip'] })
const SUFFIX = { br: '.br', gzip: '.gz' } as const

/**
 * Hashed build assets, cached for a year; names are checked, so no path leaves the assets folder.
 * A browser that accepts brotli or gzip gets the build's compressed copy when there is one.
 */
export async function sendAsset(reply: FastifyReply, root: string, name: string) {
  // the compressed copies are sent only as the encoding of their asset, never as files of their own
  if (!ASSET_NAME.test(name) || name.startsWith('.') || /\.(br|gz)$/.test(name)) return reply.code(404).send({ error: 1, message: 'Not found.' })
  const file = join(root, 'assets', name)
  const accepted = reply.request.headers['accept-encoding']
  const encoding = typeof accepted === 'string' ? encodings.negotiate(accepted) : null
  let body: Buffer | null = encoding ? await readFile(file + SUFFIX[encoding]).catch(() => null) : null
  if (body && encoding) reply.header('content-encoding', encoding)
  try {
    body ??= await readFile(file)
  } catch {
    return reply.code(404).send({ error: 1, message: 'Not found.' })
  }
  return reply
    .header('content-type', TYPES[extname(name)] ?? 'application/octet-stream')
    .header('cache-control', 'public, max-age=31536000, immutable')
    .header('vary', 'accept-encoding')
    .header('x-content-type-options', 'nosniff')
    .send(body)
}

let shell: { html: string; mtime: number } | undefined

/** index.html of the build, re-read when a new build replaces it; null when there is no build. */
export async function appShell(root: string): Promise<string | null> {
  const file = join(root, 'index.html')
  try {
    const { mtimeMs } = await stat(file)
    if (!shell || shell.mtime !== mtimeMs) shell = { html: await readFile(file, 'utf8'), mtime: mtimeMs }
    return shell.html
  } catch {
    return null
  }
}

/**
 * Kurz's icon (the dashboard's "K" mark), for the dashboard's and the sign-in page's
 * `<link rel="icon">`: served from this origin, which their CSPs allow, so a browser never asks
 * for a /favicon.ico that is not there.
 */
export const ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#3b5bdb"/>' +
  '<path d="M10 7h4v7.2L20.4 7h4.9l-7.1 7.7L25.6 25h-4.9l-5.3-7.6L14 18.9V25h-4z" fill="#fff"/></svg>'
export const ICON_PATH = '/favicon.svg'

export function sendIcon(reply: FastifyReply) {
  return reply
    .header('content-type', 'image/svg+xml')
    .header('cache-control', 'public, max-age=86400')
    .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
    .header('x-content-type-options', 'nosniff')
    .send(ICON_SVG)
}
