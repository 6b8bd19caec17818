import { existsSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { chromium, type Browser } from 'playwright-core'

/** Debian's chromium package; browser tests skip where it is not installed. */
export const CHROMIUM = '/usr/bin/chromium'
export const hasChromium = existsSync(CHROMIUM)

/**
 * Headless Chromium with nothing of its own on the network (no QUIC, updates, sync or first-run pages),
 * so a test sees only the requests the page makes. Playwright gives every launch a fresh temporary
 * user-data dir and deletes it on close (it refuses a --user-data-dir flag), so no state leaks between files.
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
}

/** Starts the app on a free local port, for a real browser or client; returns its origin. */
export async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' })
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
}
