import type { FastifyReply } from 'fastify'
import type { ServeLink } from './loader.js'
import { usablePixels } from './pages/pixels.js'
import { customSplashPage, framePage, overlayPage, pixelPage, safeHref, splashPage } from './pages/visit.js'

/** A redirect: the Location is already safe (visit/url safeUrl); never cached by shared caches. */
export function redirectTo(reply: FastifyReply, status: number, location: string) {
  return reply.code(status).header('location', location).header('cache-control', 'private, max-age=0').send()
}

/**
 * DECISIONS §5 step 7: the answer by the link's type. `direct` is the configured REDIRECT_STATUS
 * (or a 302 where the spec says so: rotator), through the pixel page when the link has pixels.
 */
export function sendDestination(reply: FastifyReply, link: ServeLink, dest: string, shortUrl: string, directStatus: number) {
  const v = { link, dest: safeHref(dest), shortUrl }
  switch (link.type) {
    case 'frame':
      return framePage(reply, v)
    case 'splash':
      return splashPage(reply, v)
    case 'splash-page':
      if (link.page?.kind === 'splash') return customSplashPage(reply, v, link.page)
      break
    case 'overlay':
      if (link.page?.kind === 'overlay') return overlayPage(reply, v, link.page)
      break
  }
  // direct, or a custom page that no longer exists
  if (usablePixels(link.pixels).length > 0) return pixelPage(reply, v)
  return redirectTo(reply, directStatus, dest)
}
