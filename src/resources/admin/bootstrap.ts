import type { FastifyInstance } from 'fastify'
import { randomBytes } from 'node:crypto'
import { createUser, findUserByEmail } from './users.js'

/**
 * ADMIN_EMAIL on start: create that admin unless a user already has the email. A generated key is
 * logged this once and never again (DECISIONS §3).
 */
export async function bootstrapAdmin(app: FastifyInstance) {
  const { email, username, password, apiKey } = app.config.admin
  if (!email) return
  if (await findUserByEmail(app.db, email)) return
  try {
    const created = await createUser(app.db, app.keys, {
      email,
      username,
      password: password ?? randomBytes(18).toString('base64url'),
      admin: true,
      apiKey,
    })
    const msg = apiKey ? 'admin created with ADMIN_API_KEY' : `admin created; API key (shown once): ${created.apiKey}`
    app.log.info({ email, userId: created.user.id }, msg)
  } catch (err) {
    // another instance starting at the same moment created it first
    if (!(await findUserByEmail(app.db, email))) throw err
  }
}
