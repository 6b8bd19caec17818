import type { PixelType } from '../../db/schema/index.js'

/** What every tag is made of (DECISIONS §7): snippets are templates, so a tag can never carry markup. */
export const TAG_CHARSET = /^[A-Za-z0-9._/-]{1,64}$/

/**
 * Per type, the vendor's id shape where it is well known and stable; the other vendors have changed
 * their formats over the years, so they get the charset rule only. Prefixes are case-insensitive
 * (people paste `gtm-abc123` too); the tag is stored as sent.
 */
const SHAPES: Partial<Record<PixelType, { re: RegExp; example: string }>> = {
  gtmpixel: { re: /^GTM-[A-Z0-9]{1,20}$/i, example: 'GTM-AB12CD3' },
  gapixel: { re: /^(?:G-[A-Z0-9]{1,20}|UA-\d{1,12}-\d{1,4}|GT-[A-Z0-9]{1,20})$/i, example: 'G-AB12CD34EF or UA-12345678-1' },
  adwordspixel: { re: /^(?:AW-)?\d{1,20}(?:\/[A-Za-z0-9_-]{1,40})?$/i, example: 'AW-123456789 or AW-123456789/AbCdEf-123' },
  fbpixel: { re: /^\d{1,20}$/, example: '123456789012345 (digits only)' },
  linkedinpixel: { re: /^\d{1,20}$/, example: '1234567 (digits only)' },
  pinterest: { re: /^\d{1,20}$/, example: '2612345678901 (digits only)' },
  bing: { re: /^\d{1,20}$/, example: '12345678 (digits only)' },
}

/** null when the tag fits its type, else a message a person can act on. */
export function checkTag(type: PixelType, tag: string): string | null {
  if (!TAG_CHARSET.test(tag)) return 'tag must be 1 to 64 letters, digits, dots, dashes, underscores or slashes.'
  const shape = SHAPES[type]
  if (shape && !shape.re.test(tag)) return `tag is not a valid ${type} id: expected something like ${shape.example}.`
  return null
}
