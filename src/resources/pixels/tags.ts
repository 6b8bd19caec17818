import type { PixelType } from '../../db/schema/index.js'

/** What every tag is made of (DECISIONS §7): snippets are templates, so a tag can never carry markup. */
export const TAG_CHARSET = /^[A-Za-z0-9._/-]{1,64}$/

/**
 * null when the tag fits, else a message a person can act on. Vendor id shapes (GTM-…, digits for
 * Facebook) are deliberately not enforced: vendors change them, and DECISIONS §7 defines the
 * format as this character set, so a stricter rule would refuse tags a client may rightly send.
 */
export function checkTag(_type: PixelType, tag: string): string | null {
  return TAG_CHARSET.test(tag) ? null : 'tag must be 1 to 64 letters, digits, dots, dashes, underscores or slashes.'
}
