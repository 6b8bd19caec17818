import { createHash } from 'node:crypto'
import type { Db } from '../../src/db/client.js'
import { apiKeys, domains, links, pixels, plans, sessions, ssoTokens, users } from '../../src/db/schema/index.js'
import { rowCountsOf } from './fixtures.js'

/* What the account, admin, auth and SSO tests check the service against. */

/** Row counts of the tables the account and admin endpoints write, to prove a failure wrote nothing. */
export const rowCounts = (db: Db) => rowCountsOf(db, { users, apiKeys, plans, sessions, ssoTokens, links, domains, pixels })

/** The avatar URL an account answers with: Gravatar's identicon for the trimmed, lower-cased address. */
export const gravatar = (email: string) =>
  `https://www.gravatar.com/avatar/${createHash('md5').update(email.trim().toLowerCase()).digest('hex')}?d=identicon`
