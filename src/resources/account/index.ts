import type { FastifyPluginAsync } from 'fastify'
import { eq } from 'drizzle-orm'
import { z } from 'zod'
import type { ZodTypeProvider } from '../../http/zod.js'
import { sessions, users } from '../../db/schema/index.js'
import { badRequest, conflict, isUniqueViolation } from '../../http/errors.js'
import { email, optional, password } from '../../http/fields.js'
import { hashPassword } from '../../lib/passwords.js'
import { presentAccount, rotateApiKey } from '../admin/users.js'
import { accountSeries } from '../../clicks/account-series.js'
import { accountUsage } from './usage.js'
import { parseRange, statsQuery } from '../../clicks/series.js'

const updateBody = z.object({
  email: optional(email()),
  password: optional(password()),
})

const account: FastifyPluginAsync = async (app) => {
  const r = app.withTypeProvider<ZodTypeProvider>()

  // GET /api/account – the caller's account
  r.get('/api/account', async (req) => ({ error: 0, data: presentAccount(req.user, req.user.plan) }))

  // GET /api/account/stats – (extension) clicks over time, totals and top lists of all the caller's links together
  r.get(
    '/api/account/stats',
    {
      schema: {
        summary: 'Statistics over time of all your links',
        description:
          'The answer of `GET /api/url/{id}/stats` (same query, defaults, limits and errors) over every link of your account, plus `topLinks`: ' +
          'the 10 links with the most clicks in the range (`id`, `alias`, `shorturl`, `title`, `clicks`). A QR code\'s own scans are not counted ' +
          '(a link\'s QR code encodes its short URL, so its scans are that link\'s clicks). `uniqueClicks` is the sum of each link\'s unique ' +
          'visitors per day (per hour with `interval=hour`): a visitor of two links counts twice.',
        querystring: statsQuery,
      },
    },
    async (req) => ({ error: 0, data: await accountSeries(app.db, app.config, req.user.id, parseRange(req.query)) }),
  )

  // GET /api/account/usage – (extension) what the account uses of its plan, against its caps
  r.get('/api/account/usage', async (req) => ({ error: 0, data: await accountUsage(app.db, req.user) }))

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
