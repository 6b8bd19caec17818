import { customAlphabet } from 'nanoid'

/**
 * Aliases that would shadow a path the service itself answers (DECISIONS §4). Refused as custom
 * aliases whatever their case: `/API` is not a route today, but an alias that differs from a route
 * only in case invites confusion and breaks behind case-folding proxies.
 */
export const RESERVED_ALIASES = [
  'api', 'links', 'r', 'u', 'q', 'qr', 'sso', 'login', 'logout', 'dashboard', 'static',
  'healthz', 'readyz', 'favicon.ico', 'robots.txt',
  // routes added after DECISIONS §4's list: a link there would be shadowed by the route
  'docs', 'metrics', 'openapi.json',
] as const

const RESERVED = new Set<string>(RESERVED_ALIASES)

export const ALIAS_PATTERN = /^[A-Za-z0-9_-]{3,64}$/

/** Why a custom alias is refused (each door puts its own field name in front), or null when it is acceptable. */
export function aliasProblem(alias: string): string | null {
  if (alias.endsWith('+')) return `an alias cannot end with "+" (that path is the link's statistics page).`
  if (RESERVED.has(alias.toLowerCase())) return `"${alias}" is reserved by the service; choose another alias.`
  if (!ALIAS_PATTERN.test(alias)) return 'must be 3 to 64 letters, digits, dashes or underscores.'
  return null
}

const ALPHANUMERIC = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const generators = new Map<number, () => string>()

/** A random alias from a CSPRNG (nanoid), 6 characters unless collisions asked for more. */
export function randomAlias(length = 6): string {
  let gen = generators.get(length)
  if (!gen) generators.set(length, (gen = customAlphabet(ALPHANUMERIC, length)))
  return gen()
}

/** Attempts per length before growing the alias by one character (DECISIONS §4: 6, then 7+). */
export const ATTEMPTS_PER_LENGTH = 3
