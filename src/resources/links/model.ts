import type { DeepLink, LinkParameter, LinkType, TargetKind } from '../../db/schema/index.js'
import type { FieldRef } from '../../http/errors.js'
import { normalizeCountry, normalizeDevice, normalizeLanguage } from '../../lib/targets.js'

/**
 * One target as stored: `key` as the caller sent it, `match` its normalised form the redirect
 * compares visitors against (null for rotation), `url` where matching visitors go.
 */
export interface TargetInput {
  key: string | null
  match: string | null
  url: string
}

/** The matching form of a target key; null when it names no known country, device or language. */
export function targetMatch(kind: Exclude<TargetKind, 'rotation'>, key: string): string | null {
  if (kind === 'geo') return normalizeCountry(key)
  if (kind === 'device') return normalizeDevice(key)
  return normalizeLanguage(key)
}

/**
 * The one internal shape of a link write. Every door (management JSON, v1 form/JSON) validates
 * its body once into this and calls the same create/update service, so a link written through one
 * reads back identically through the other, and the service only checks what needs the database.
 * A LinkInput is therefore already valid in itself: URLs pass the URL rule, lengths and ranges
 * hold, target keys are matched, id lists are free of duplicates.
 *
 * On update, `undefined` means "keep", `null` means "clear". On create, `null` is the same as absent.
 * Errors of the service carry `field: {key: keyof LinkInput, path}`; each door names the field as
 * its callers know it.
 */
export interface LinkInput {
  url?: string
  /** custom alias (management `custom`, v1 `alias`) */
  alias?: string | null
  /** branded domain id; null = the default domain */
  domainId?: number | null
  /** the management interface's `domain` string, resolved by the service to one of the caller's domains */
  domainName?: string | null
  type?: LinkType
  /** custom splash page or CTA overlay id when type is 'splash-page' or 'overlay' */
  pageId?: number | null
  /** plain text; hashed with argon2id by the service */
  password?: string | null
  expiresAt?: Date | null
  expirationUrl?: string | null
  expirationClicks?: number | null
  /** 0 public, 1 private, 2 password (stats page) */
  privacy?: 0 | 1 | 2
  privacyPassword?: string | null
  disabled?: boolean
  title?: string | null
  description?: string | null
  metaTitle?: string | null
  metaDescription?: string | null
  metaImage?: string | null
  deepLink?: DeepLink | null
  parameters?: LinkParameter[] | null
  /** each kind present replaces that kind's targets; an empty array clears it */
  geo?: TargetInput[] | null
  device?: TargetInput[] | null
  language?: TargetInput[] | null
  rotation?: TargetInput[] | null
  /** v1 target_type (0 none, 1 geo, 2 platform, 3 language, 4 rotation); derived when not given */
  targetType?: number
  pixelIds?: number[] | null
  /** channels the link sits in (management `channel`, v1 `space`): replaces the set when present */
  channelIds?: number[] | null
  campaignId?: number | null
  /** status of a `direct` answer (301, 302, 307, 308); null = REDIRECT_STATUS */
  redirectStatus?: number | null
  /** seconds a `direct` answer may be cached; 0 (or null on update) = not cached */
  cacheTtl?: number | null
  /** where visitors go while the long URL is broken (DECISIONS §10.5) */
  fallback?: string | null
}

/** Where a service error about a link input is. */
export type LinkField = FieldRef<keyof LinkInput>
