import type { Config } from '../../config.js'
import { PRIVACY } from '../../db/schema/index.js'
import { toTimestamp } from '../../http/format.js'
import { shortUrlOf } from '../../lib/short-url.js'
import { targetsOf, type Domain, type Link, type LinkRelations } from './repo.js'

/** SPEC.md "Link, list form". */
export function presentLinkListItem(config: Config, link: Link, domain: Domain | null) {
  return {
    id: link.id,
    alias: link.alias,
    shorturl: shortUrlOf(config, link, domain),
    longurl: link.url,
    clicks: link.clicks,
    title: link.title ?? '',
    description: link.description ?? '',
    date: toTimestamp(link.createdAt),
  }
}

/** `{key as sent: url}` in the order the targets were sent. */
function targetMap(targets: LinkRelations['targets'], kind: 'geo' | 'device' | 'language') {
  const out: Record<string, string> = {}
  for (const t of targetsOf(targets, kind)) if (t.key !== null && !(t.key in out)) out[t.key] = t.url
  return out
}

/** The `type` value a create body would take to produce this link. */
export function typeValueOf(link: Pick<Link, 'type' | 'pageId'>): string {
  if (link.type === 'splash-page') return link.pageId ? `splash-${link.pageId}` : 'splash'
  if (link.type === 'overlay') return link.pageId ? `overlay-${link.pageId}` : 'direct'
  return link.type
}

/** `details.health` and the answer of `POST /api/url/:id/check` (DECISIONS §10.5). */
export function presentHealth(link: Pick<Link, 'healthState' | 'healthStatus' | 'healthReason' | 'checkedAt'>) {
  return {
    state: link.healthState,
    status: link.healthStatus,
    reason: link.healthReason,
    checkedAt: link.checkedAt ? toTimestamp(link.checkedAt) : null,
  }
}

/** `details.aliases`: earlier aliases still serving the link, oldest first. */
export type AliasHistory = { alias: string; date: Date }[]

/**
 * SPEC.md "Link, single form" `details`. With `full`, the stored settings SPEC.md has no field for
 * are added after the SPEC.md keys (an opt-in, so a SPEC.md client sees exactly the SPEC.md shape).
 */
export function presentLinkDetails(config: Config, link: Link, rel: LinkRelations, full = false, aliases: AliasHistory = []) {
  const details = {
    id: link.id,
    shorturl: shortUrlOf(config, link, rel.domain),
    longurl: link.url,
    title: link.title ?? '',
    description: link.description ?? '',
    location: targetMap(rel.targets, 'geo'),
    device: targetMap(rel.targets, 'device'),
    expiry: toTimestamp(link.expiresAt),
    date: toTimestamp(link.createdAt),
    // only when set: a SPEC.md client sees the SPEC.md shape for every link that is not quarantined
    ...(link.quarantined ? { quarantined: true } : {}),
  }
  if (!full) return details
  return {
    ...details,
    alias: link.alias,
    domain: rel.domain?.domain ?? null,
    type: typeValueOf(link),
    status: link.privacy === PRIVACY.public ? 'public' : 'private',
    privacy: link.privacy,
    password: link.passwordHash !== null,
    disabled: link.disabled,
    language: targetMap(rel.targets, 'language'),
    rotation: targetsOf(rel.targets, 'rotation').map((t) => t.url),
    metatitle: link.metaTitle ?? '',
    metadescription: link.metaDescription ?? '',
    metaimage: link.metaImage ?? '',
    deeplink: link.deepLink ?? { auto: false, apple: null, google: null },
    parameters: link.parameters,
    pixels: rel.pixelIds,
    channels: rel.channelIds,
    campaign: link.campaignId,
    expiration_url: link.expirationUrl,
    expiration_clicks: link.expirationClicks,
    uniqueClicks: link.uniqueClicks,
    updated: toTimestamp(link.updatedAt),
    redirectstatus: link.redirectStatus ?? config.redirect.status,
    cachettl: link.cacheTtl,
    fallback: link.fallback,
    aliases: aliases.map((a) => ({ alias: a.alias, date: toTimestamp(a.date) })),
    health: presentHealth(link),
  }
}
