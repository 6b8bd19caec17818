import type { FastifyReply } from 'fastify'
import type { ServeLink } from './loader.js'
import { usablePixels } from './pages/pixels.js'
import { customSplashPage, framePage, overlayPage, pixelPage, safeHref, splashPage } from './pages/visit.js'

/** How a `direct` answer goes out: its status and how long shared caches may keep it. */
export interface DirectPolicy {
  status: number
  /** seconds; 0 = `private, max-age=0` */
  cacheTtl: number
  /** the destination depends on who visits (targets, rotation, deep links): only the visitor's own browser may keep it */
  perVisitor: boolean
}

const policies = new Map<number, DirectPolicy>()

/** Whether who visits picks the destination (DECISIONS §5.6): a shared cache must not hand one visitor's answer to the next. */
const chosenPerVisitor = (link: Pick<ServeLink, 'targets' | 'deepLink'>) => {
  const t = link.targets
  const d = link.deepLink
  return t.device.length > 0 || t.geo.length > 0 || t.language.length > 0 || t.rotation.length > 0 || (d !== null && (d.auto || Boolean(d.apple) || Boolean(d.google)))
}

/**
 * A link's own `direct` answer (DECISIONS §10.5): its status, else REDIRECT_STATUS. Links with the
 * same status, lifetime and kind of destination share one (frozen) policy: nothing per cached link.
 */
export function directPolicy(link: Pick<ServeLink, 'redirectStatus' | 'cacheTtl' | 'targets' | 'deepLink'>, defaultStatus: number): DirectPolicy {
  const status = link.redirectStatus ?? defaultStatus
  const perVisitor = link.cacheTtl > 0 && chosenPerVisitor(link)
  const key = (link.cacheTtl * 1000 + status) * 2 + (perVisitor ? 1 : 0)
  let p = policies.get(key)
  if (p === undefined) {
    p = Object.freeze({ status, cacheTtl: link.cacheTtl, perVisitor })
    // the same guard as cacheControls: few distinct lifetimes in practice
    if (policies.size < 1000) policies.set(key, p)
  }
  return p
}

const cacheControls = new Map<number, string>()

/**
 * `Cache-Control` of a redirect: nothing cached unless the link asked for a lifetime, and then by
 * shared caches only when every visitor gets the same destination.
 */
export function cacheControlOf(cacheTtl: number, perVisitor = false): string {
  const key = perVisitor ? -cacheTtl - 1 : cacheTtl
  let v = cacheControls.get(key)
  if (v === undefined) {
    v = cacheTtl > 0 ? `${perVisitor ? 'private' : 'public'}, max-age=${cacheTtl}` : 'private, max-age=0'
    // lifetimes are few in practice; the bound only guards against a flood of distinct ones
    if (cacheControls.size < 1000) cacheControls.set(key, v)
  }
  return v
}

/** The rotator picks at random per visit: a 302 no cache may keep (DECISIONS §5). */
export const ROTATOR_POLICY: DirectPolicy = { status: 302, cacheTtl: 0, perVisitor: true }


/** A redirect: the Location is already safe (visit/url safeUrl); never cached by shared caches unless a ttl is given. */
export function redirectTo(reply: FastifyReply, status: number, location: string, cacheTtl = 0, perVisitor = false) {
  return reply.code(status).header('location', location).header('cache-control', cacheControlOf(cacheTtl, perVisitor)).send()
}

/** The page a visit that reached its destination is answered with (DECISIONS §5 step 7). */
export type DestinationPage = 'direct' | 'frame' | 'splash' | 'overlay' | 'pixels'

/** A cached link is one object until it is reloaded, and nothing its page kind depends on changes in it: kept on it. */
export function destinationPage(link: ServeLink): DestinationPage {
  return (link.answer ??= pageKind(link))
}

function pageKind(link: ServeLink): DestinationPage {
  switch (link.type) {
    case 'frame':
      return 'frame'
    case 'splash':
      return 'splash'
    case 'splash-page':
      if (link.page?.kind === 'splash') return 'splash'
      break
    case 'overlay':
      if (link.page?.kind === 'overlay') return 'overlay'
      break
  }
  // direct, or a custom page that no longer exists
  return usablePixels(link.pixels).length > 0 ? 'pixels' : 'direct'
}

/**
 * DECISIONS §5 step 7 and §10.5: the answer by the link's type. `direct` is the link's own status
 * and cache lifetime (or a 302 where the spec says so: rotator), through the pixel page when the
 * link has pixels.
 */
export function sendDestination<D>(reply: FastifyReply, link: ServeLink, dest: string, direct: DirectPolicy, domain: D, shortUrlOf: (domain: D, link: ServeLink) => string) {
  const page = destinationPage(link)
  // the common answer first: a redirect needs neither the page's href nor the short URL
  if (page === 'direct') return redirectTo(reply, direct.status, dest, direct.cacheTtl, direct.perVisitor)
  const v = { link, dest: safeHref(dest), shortUrl: shortUrlOf(domain, link) }
  switch (page) {
    case 'frame':
      return framePage(reply, v)
    case 'splash':
      return link.type === 'splash-page' ? customSplashPage(reply, v, link.page!) : splashPage(reply, v)
    case 'overlay':
      return overlayPage(reply, v, link.page!)
    case 'pixels':
      return pixelPage(reply, v)
  }
}
