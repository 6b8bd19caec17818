/**
 * A search term matched literally by LIKE/ILIKE: `%`, `_` and the escape character itself would
 * otherwise be wildcards, so a search for "50%" would match everything starting with "50".
 */
export const likeEscape = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`)

/** `%term%`, escaped: the pattern of a "contains" search. */
export const containsPattern = (s: string): string => `%${likeEscape(s)}%`
