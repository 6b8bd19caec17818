import { TARGET_KINDS, type DeepLink, type TargetKind } from '../../db/schema/index.js'
import { deriveDeepLink } from './deeplinks.js'
import type { LinkInput } from './model.js'

/*
 * Stored values that follow from others: what a link write computes rather than takes as sent.
 */

export const blankToNull = (v: string | null | undefined) => (v === undefined ? undefined : v === null || v.trim() === '' ? null : v)

/** `auto` fills the app links the caller left out from the destination URL (deeplinks.ts). */
export function deepLinkOf(input: DeepLink | null | undefined, url: string): DeepLink | null | undefined {
  if (!input) return input
  const derived = input.auto ? deriveDeepLink(url) : { apple: null, google: null }
  return { auto: Boolean(input.auto), apple: input.apple || derived.apple || null, google: input.google || derived.google || null }
}

/**
 * `title` (and `description`) default to the meta field. On update: sent → that value; cleared →
 * the meta field again; not sent → follows a changed meta field while it was still the default.
 */
export function nextDerived(sent: string | null | undefined, current: string | null, currentMeta: string | null, nextMeta: string | null): string | null {
  if (sent === undefined) return current === null || current === currentMeta ? nextMeta : current
  return blankToNull(sent) ?? nextMeta
}

/** v1 `target_type` from the kinds a link has: geo, then device, language, rotation. */
export function derivedTargetType(kinds: Set<TargetKind>): number {
  if (kinds.has('geo')) return 1
  if (kinds.has('device')) return 2
  if (kinds.has('language')) return 3
  if (kinds.has('rotation')) return 4
  return 0
}

/** The target kinds this input sets to a non-empty list. */
export const kindsSent = (input: LinkInput) => new Set(TARGET_KINDS.filter((kind) => input[kind]?.length))
