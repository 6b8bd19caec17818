import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import { eq } from 'drizzle-orm'
import { z } from 'zod'
import type { ZodTypeProvider } from '../../http/zod.js'
import { clickQuota, domains, links, users } from '../../db/schema/index.js'
import { requireAdmin } from '../../http/auth.js'
import { badRequest, forbidden, notFound } from '../../http/errors.js'
import { bodyId, email, optional, password, pathId, timestamp, username } from '../../http/fields.js'
import { offsetOf, pageQuery } from '../../http/pagination.js'
import { addMonths } from '../../lib/time.js'
import { findPlan, listPlans, planInput, presentPlan, savePlan } from './plans.js'
import { apiKeyOf, apiKeysOf, createUser, findUser, listUsers, presentUser } from './users.js'
import { findUserWithPlan } from '../../accounts/effective-plan.js'
import { issueSsoUrl } from './sso.js'
import { invalidateDomain, invalidateLinks } from '../redirect-cache.js'

const subscribeParams = z.object({ planid: pathId, userid: pathId })
const subscribeBody = z.object({
  type: z.enum(['monthly', 'yearly', 'lifetime'], { message: 'type must be one of: monthly, yearly, lifetime.' }),
  expiration: optional(timestamp('expiration')),
})

const usersQuery = pageQuery.extend({
  filter: optional(z.enum(['admin', 'free', 'pro'], { message: 'filter must be one of: admin, free, pro.' })),
  email: optional(z.string().max(254, 'email must be at most 254 characters.')),
  search: optional(z.string().max(254, 'search must be at most 254 characters.')),
  q: optional(z.string().max(254, 'q must be at most 254 characters.')),
})

const createUserBody = z.object({
  username: username(),
  email: email(),
  password: password(),
  planid: optional(bodyId('planid')),
  expiration: optional(timestamp('expiration')),
})

const admin: FastifyPluginAsync = async (app) => {
  const r = app.withTypeProvider<ZodTypeProvider>()
  // preValidation: after the rate limiter (refusals still cost budget), before body validation
  // (a non-admin learns nothing about the body of an endpoint they may not call)
  r.addHook('preValidation', requireAdmin)

  // GET /api/plans – every plan
  r.get('/api/plans', async () => ({ error: '0', data: (await listPlans(app.db)).map(presentPlan) }))

  // POST /api/plan/add – (extension) create a plan
  r.post('/api/plan/add', { schema: { body: planInput } }, async (req) => {
    const plan = await savePlan(app.db, req.body)
    // a new default plan is what ended subscriptions fall back to
    await app.accountsChanged()
    return { error: 0, id: plan!.id, data: presentPlan(plan!) }
  })

  // PUT /api/plan/:id/update – (extension) change a plan; fields not sent keep their values
  r.put('/api/plan/:id/update', { schema: { params: z.object({ id: pathId }), body: planInput.partial() } }, async (req) => {
    const plan = await savePlan(app.db, req.body, req.params.id)
    if (!plan) throw notFound('Plan not found.')
    await app.accountsChanged()
    return { error: 0, message: 'Plan has been updated successfully.', data: presentPlan(plan) }
  })

  // PUT /api/plan/:planid/user/:userid – subscribe a user to a plan
  r.put('/api/plan/:planid/user/:userid', { schema: { params: subscribeParams, body: subscribeBody } }, async (req) => {
    const plan = await findPlan(app.db, req.params.planid)
    if (!plan) throw notFound('Plan not found.')
    if (!(await findUser(app.db, req.params.userid))) throw notFound('User not found.')
    const { type, expiration } = req.body
    const now = new Date()
    // a past expiration is a subscription already over: the user is back on the default free plan
    // at their next request (DECISIONS §3), as any passed subscription
    const planExpires =
      expiration ?? (plan.free || type === 'lifetime' ? null : type === 'monthly' ? addMonths(now, 1) : addMonths(now, 12))
    await app.db.update(users).set({ planId: plan.id, planExpires }).where(eq(users.id, req.params.userid))
    await app.accountsChanged()
    return { error: 0, message: `User has been subscribed to the ${plan.name} plan.` }
  })

  // GET /api/users – users, newest first; filter admin|free|pro; email substring search
  r.get('/api/users', { schema: { querystring: usersQuery } }, async (req) => {
    const q = req.query
    const rows = await listUsers(app.db, { filter: q.filter, email: q.email ?? q.search ?? q.q, limit: q.limit, offset: offsetOf(q) })
    const keys = await apiKeysOf(app.db, app.keys, rows.map((r) => r.user.id))
    return { error: '0', data: rows.map(({ user, plan }) => presentUser(user, plan, keys.get(user.id) ?? null)) }
  })

  // GET /api/user/:id – one user with their API key
  r.get('/api/user/:id', { schema: { params: z.object({ id: pathId }) } }, async (req) => {
    const found = await findUserWithPlan(app.db, req.params.id)
    if (!found) throw notFound('User not found.')
    return { error: 0, data: presentUser(found.user, found.plan, await apiKeyOf(app.db, app.keys, found.user.id)) }
  })

  // POST /api/user/add – create a user (an API key is generated)
  r.post('/api/user/add', { schema: { body: createUserBody } }, async (req) => {
    const { username: name, email: mail, password: pass, planid, expiration } = req.body
    if (planid !== undefined && !(await findPlan(app.db, planid))) throw badRequest('planid: no plan has that id.', 'planid')
    const { user } = await createUser(app.db, app.keys, { username: name, email: mail, password: pass, planId: planid, planExpires: expiration ?? null })
    return { error: 0, message: 'User has been registered.', data: { id: user.id, email: user.email, username: user.username } }
  })

  // DELETE /api/user/:id/delete – delete a user and everything they own
  r.delete('/api/user/:id/delete', { schema: { params: z.object({ id: pathId }) } }, async (req) => {
    const id = req.params.id
    if (id === req.user.id) throw badRequest('You cannot delete your own account.')
    const gone = await app.db.transaction(async (tx) => {
      const ownedLinks = await tx.select({ id: links.id }).from(links).where(eq(links.userId, id))
      const ownedDomains = await tx.select({ id: domains.id }).from(domains).where(eq(domains.userId, id))
      // every owned table cascades from users; the click quota has no foreign key, so it goes by hand
      await tx.delete(clickQuota).where(eq(clickQuota.userId, id))
      const deleted = await tx.delete(users).where(eq(users.id, id)).returning({ id: users.id })
      return deleted.length ? { links: ownedLinks.map((l) => l.id), domains: ownedDomains.map((d) => d.id) } : null
    })
    if (!gone) throw notFound('User not found.')
    await app.accountsChanged()
    await forgetCached(app, gone.links, gone.domains)
    return { error: 0, message: 'User has been deleted.' }
  })

  // GET /api/user/login/:id – single-use SSO login URL, valid one hour
  r.get('/api/user/login/:id', { schema: { params: z.object({ id: pathId }) } }, async (req) => {
    const target = await findUser(app.db, req.params.id)
    if (!target) throw notFound('User not found.')
    if (target.admin && target.id !== req.user.id) throw forbidden('Admins cannot sign in as another admin.')
    return { error: 0, url: await issueSsoUrl(app.db, app.config.publicUrl, target.id, req.user.id) }
  })
}
/** Deleted links and domains must stop answering at once, on every instance. */
async function forgetCached(app: FastifyInstance, linkIds: number[], domainIds: number[]) {
  await invalidateLinks(app, linkIds)
  for (const id of domainIds) await invalidateDomain(app, id)
}

export default admin
