import type { Config } from '../../config.js'
import type { Db } from '../../db/client.js'
import { toTimestamp } from '../../http/format.js'
import { shortUrlOf } from '../../lib/short-url.js'
import { loadRelated, type LinkRow, type Related } from './repo.js'


type Target = { key: string; value: string }

/** The v1 Link object (DECISIONS §8), field for field. */
export function presentV1Link(config: Config, link: LinkRow, related: Related) {
  const targets = related.targets.get(link.id) ?? []
  const of = (kind: 'geo' | 'device' | 'language'): Target[] | null => {
    const list = targets.filter((t) => t.kind === kind).map((t) => ({ key: t.key ?? '', value: t.url }))
    return list.length ? list : null
  }
  const rotation = targets.filter((t) => t.kind === 'rotation').map((t) => ({ value: t.url }))
  const domain = link.domainId !== null ? (related.domains.get(link.domainId) ?? null) : null
  return {
    id: link.id,
    alias: link.alias,
    url: link.url,
    short_url: shortUrlOf(config, link, domain),
    title: link.title ?? '',
    target_type: link.targetType,
    country_target: of('geo'),
    platform_target: of('device'),
    language_target: of('language'),
    rotation_target: rotation.length ? rotation : null,
    last_rotation: link.lastRotation,
    disabled: link.disabled ? 1 : 0,
    privacy: link.privacy,
    privacy_password: link.privacyPasswordHash !== null,
    password: link.passwordHash !== null,
    expiration_url: link.expirationUrl ?? null,
    expiration_clicks: link.expirationClicks ? link.expirationClicks : null,
    clicks: link.clicks,
    user_id: link.userId,
    space: related.space.get(link.id) ?? null,
    domain: domain ? { id: domain.id, name: domain.name } : null,
    pixels: related.pixels.get(link.id) ?? [],
    ends_at: toTimestamp(link.expiresAt),
    created_at: toTimestamp(link.createdAt),
    updated_at: toTimestamp(link.updatedAt),
  }
}
export type V1Link = ReturnType<typeof presentV1Link>

/** A page of v1 Links, their related rows loaded in one go. */
export async function presentV1Links(db: Db, config: Config, rows: LinkRow[]): Promise<V1Link[]> {
  const related = await loadRelated(db, rows)
  return rows.map((r) => presentV1Link(config, r, related))
}
