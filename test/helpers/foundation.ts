import { createHash } from 'node:crypto'
import { count } from 'drizzle-orm'
import type { Db } from '../../src/db/client.js'
import { apiKeys, domains, links, pixels, plans, sessions, ssoTokens, users } from '../../src/db/schema/index.js'

/** Row counts of the tables the foundation's endpoints write, to prove a failure wrote nothing. */
export async function rowCounts(db: Db) {
  const tables = { users, apiKeys, plans, sessions, ssoTokens, links, domains, pixels }
  const out: Record<string, number> = {}
  for (const [name, table] of Object.entries(tables)) {
    const [{ n }] = await db.select({ n: count() }).from(table)
    out[name] = n
  }
  return out
}

export const gravatar = (email: string) =>
  `https://www.gravatar.com/avatar/${createHash('md5').update(email.trim().toLowerCase()).digest('hex')}?d=identicon`

/** A cookie header from a response's set-cookie, for the next request. */
export function cookieFrom(setCookie: string | string[] | undefined): string {
  const all = Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : []
  return all.map((c) => c.split(';')[0]).join('; ')
}
