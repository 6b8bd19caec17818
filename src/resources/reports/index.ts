import type { FastifyPluginAsync } from 'fastify'
import { z } from 'zod'
import type { ZodTypeProvider } from '../../http/zod.js'
import { requireAdmin } from '../../http/auth.js'
import { notFound } from '../../http/errors.js'
import { idParam, MAX_ID, optional } from '../../http/fields.js'
import { toTimestamp } from '../../http/format.js'
import { listResponse, pageQuery } from '../../http/pagination.js'
import { deleteReport, listReports, type ListedReport } from './repo.js'

const listQuery = pageQuery.extend({
  link: optional(z.coerce.number({ message: 'link must be a link id.' }).int('link must be a link id.').min(1, 'link must be a link id.').max(MAX_ID, 'link must be a link id.')),
})

const presentReport = ({ report: r, quarantined, url }: ListedReport) => ({
  id: r.id,
  link: r.linkId,
  shorturl: r.shortUrl,
  // where the reported link leads now, for the admin to judge without visiting it ('' once deleted)
  url: url ?? '',
  reason: r.reason,
  comment: r.comment ?? '',
  email: r.email ?? '',
  date: toTimestamp(r.createdAt),
  // what an admin acts on: a quarantined link is released with POST /api/url/:id/release
  quarantined: quarantined === true,
})

/**
 * GET /api/reports: what visitors reported through `/<alias>/report` (admin only, DECISIONS §10.6);
 * DELETE /api/reports/:id/delete dismisses one an admin has dealt with.
 */
const reports: FastifyPluginAsync = async (app) => {
  const r = app.withTypeProvider<ZodTypeProvider>()
  r.addHook('preValidation', requireAdmin)

  // GET /api/reports – newest first; ?link=<id> for one link's
  r.get('/api/reports', { schema: { querystring: listQuery } }, async (req) => {
    const { rows, total } = await listReports(app.db, req.query)
    return listResponse('reports', rows.map(presentReport), total, req.query)
  })

  // DELETE /api/reports/:id/delete – the report goes; its link is untouched (quarantine stays until released)
  r.delete('/api/reports/:id/delete', { schema: { params: idParam } }, async (req) => {
    if (!(await deleteReport(app.db, req.params.id))) throw notFound('Report not found.')
    return { error: 0, message: 'Report has been dismissed.' }
  })
}
export default reports
