import { ilike, like, type Column, type SQL } from 'drizzle-orm'

/**
 * A search term matched literally by LIKE/ILIKE: `%`, `_` and the escape character itself would
 * otherwise be wildcards, so a search for "50%" would match everything starting with "50".
 */
export const likeEscape = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`)

/** `%term%`, escaped: the pattern of a "contains" search. */
export const containsPattern = (s: string): string => `%${likeEscape(s)}%`

/** ASCII without letters: no character of such a term has a case, nor does any character lower into one. */
const CASELESS = /^[\x00-\x40\x5b-\x60\x7b-\x7f]*$/

/**
 * `column` contains `term`, ignoring case. A term without letters (`%`, `_`, `\`, `50%`, a date) is
 * the same in every case, so it is a LIKE: ILIKE lowers every value it reads, six times LIKE's cost
 * a row on PGlite, and such a term mostly has no trigrams, so it is checked on each of the
 * account's links.
 */
export function containsText(column: Column, term: string): SQL {
  return CASELESS.test(term) ? like(column, containsPattern(term)) : ilike(column, containsPattern(term))
}
