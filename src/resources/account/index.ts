import type { FastifyPluginAsync } from 'fastify'
import { eq } from 'drizzle-orm'
import { z } from 'zod'
import type { ZodTypeProvider } from '../../http/zod.js'
import { sessions, users } from '../../db/schema/index.js'
import { badRequest, conflict, isUniqueViolation } from '../../http/errors.js'
import { email, optional, password } from '../../http/fields.js'
import { hashPassword } from '../../lib/passwords.js'
import { presentAccount, rotateApiKey } from '../admin/users.js'

const updateBody = z.object({
  email: optional(email()),
  password: optional(password()),
})

const account: FastifyPluginAsync = async (app) => {
  const r = app.withTypeProvider<ZodTypeProvider>()

  // GET /api/account – the caller's account
  r.get('/api/account', async (req) => ({ error: 0, data: presentAccount(req.user, req.user.plan) }))

  // PUT /api/account/update – change email and/or password
  r.put('/api/account/update', { schema: { body: updateBody } }, async (req) => {
    const { email: newEmail, password: newPassword } = req.body
    if (newEmail === undefined && newPassword === undefined) throw badRequest('Send email, password or both.')
    const changes: Partial<typeof users.$inferInsert> = {}
    if (newEmail !== undefined) changes.email = newEmail
    if (newPassword !== undefined) changes.passwordHash = await hashPassword(newPassword)
    try {
      await app.db.transaction(async (tx) => {
        await tx.update(users).set(changes).where(eq(users.id, req.user.id))
        // a new password signs out every dashboard session (the API key is unaffected)
        if (newPassword !== undefined) await tx.delete(sessions).where(eq(sessions.userId, req.user.id))
      })
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict('That email address is already registered.', 'email')
      throw err
    }
    await app.accountsChanged()
    return { error: 0, message: 'Account has been updated successfully.' }
  })

  // POST /api/account/apikey – (extension) issue a new key; the old one answers 401 from now on
  r.post('/api/account/apikey', async (req) => {
    const apikey = await rotateApiKey(app.db, app.keys, req.user.id)
    await app.accountsChanged()
    return { error: 0, message: 'A new API key has been issued; the previous key no longer works.', apikey }
  })
}
export default account
