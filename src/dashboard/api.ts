import type { FastifyPluginAsync } from 'fastify'
import { notFound } from '../http/errors.js'
import { apiKeyOf } from '../resources/admin/users.js'

/**
 * JSON routes the dashboard needs beside SPEC.md's, in the key/session-authenticated scope. The key
 * is never written into a page: the account page fetches it when the user asks to see it.
 */
const dashboardApi: FastifyPluginAsync = async (app) => {
  // GET /api/account/apikey – (extension) the caller's current API key
  app.get('/api/account/apikey', async (req, reply) => {
    reply.header('cache-control', 'private, no-store')
    const apikey = await apiKeyOf(app.db, app.keys, req.user.id)
    if (!apikey) throw notFound('This account has no API key: issue one with POST /api/account/apikey.')
    return { error: 0, apikey }
  })
}
export default dashboardApi
