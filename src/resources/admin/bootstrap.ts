import type { FastifyInstance } from 'fastify'
import { randomBytes } from 'node:crypto'
import { createUser, findUserByEmail } from './users.js'

export interface CreatedAdmin {
  email: string
  username: string
  /** the generated key; null when it is ADMIN_API_KEY's */
  apiKey: string | null
  /** the generated password; null when it is ADMIN_PASSWORD's */
  password: string | null
}

/**
 * ADMIN_EMAIL on start: create that admin unless a user already has the email. What was generated
 * is returned for the server to show once on its console, never logged (DECISIONS §3, §10.7).
 */
export async function bootstrapAdmin(app: FastifyInstance): Promise<CreatedAdmin | null> {
  const { email, username, password, apiKey } = app.config.admin
  if (!email) return null
  if (await findUserByEmail(app.db, email)) {
    // a key or password given on every start would look active while the first one stays in use
    const given = [apiKey && 'ADMIN_API_KEY', password && 'ADMIN_PASSWORD'].filter(Boolean).join(' and ')
    if (given) app.log.warn(`${given} ignored: they apply only when ADMIN_EMAIL's admin is created, and ${email} exists (npm run cli -- keys:rotate ${email} issues a new key)`)
    return null
  }
  const pass = password ?? randomBytes(18).toString('base64url')
  try {
    const created = await createUser(app.db, app.keys, { email, username, password: pass, admin: true, apiKey })
    app.log.info({ email, userId: created.user.id }, apiKey ? 'admin created with ADMIN_API_KEY' : 'admin created with a generated API key (printed on the console, once)')
    return { email, username, apiKey: apiKey ? null : created.apiKey, password: password ? null : pass }
  } catch (err) {
    // another instance starting at the same moment created it first
    if (!(await findUserByEmail(app.db, email))) throw err
    return null
  }
}
