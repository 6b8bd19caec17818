import type { DeepLink, LinkParameter, LinkType } from '../../db/schema/index.js'

/** One target as stored: `key` as the caller sent it, `url` where matching visitors go. */
export interface TargetInput {
  key: string | null
  url: string
}

/**
 * The one internal shape of a link write. Both interfaces (management JSON and v1 form) translate
 * their bodies into this and call the same create/update service, so a link written through one
 * reads back identically through the other.
 *
 * On update, `undefined` means "keep", `null` means "clear". On create, `null` is the same as absent.
 * Errors thrown by the service name fields by the keys of this type's management-interface names
 * (`url`, `custom`, `domain`, `channel`, `campaign`, `pixels`, `type`, ...); v1 maps them back to
 * its own field names.
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
}
