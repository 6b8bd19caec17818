import type { FastifyPluginAsync } from 'fastify'
import { eq } from 'drizzle-orm'
import { z } from 'zod'
import type { ZodTypeProvider } from '../../http/zod.js'
import { BLOCKLIST_TYPES, links } from '../../db/schema/index.js'
import { requireAdmin } from '../../http/auth.js'
import { badRequest, conflict, notFound } from '../../http/errors.js'
import { idParam, optional, text } from '../../http/fields.js'
import { listResponse, pageQuery } from '../../http/pagination.js'
import { toTimestamp } from '../../http/format.js'
import { invalidateLinks } from '../redirect-cache.js'
import { domainValue, keywordValue, MAX_KEYWORD, MIN_KEYWORD } from './match.js'
import { deleteEntry, insertEntries, listEntries, type BlocklistEntry } from './repo.js'
import { rescanFor } from './rescan.js'

const typeField = z.enum(BLOCKLIST_TYPES, { message: `must be one of: ${BLOCKLIST_TYPES.join(', ')}.` })
const listQuery = pageQuery.extend({ type: optional(typeField) })
const addBody = z.object({
  type: typeField,
  value: z.string({ message: 'must be a string: a domain such as evil.example, or a keyword.' }).max(2048, 'must be at most 2048 characters.'),
  reason: optional(text('reason', 500)),
})

export const presentEntry = (e: BlocklistEntry) => ({
  id: e.id,
  type: e.type,
  value: e.value,
  reason: e.reason ?? '',
  date: toTimestamp(e.createdAt),
})

/** The admin blocklist and link release (DECISIONS §10.6); every route here is admin-only. */
const blocklist: FastifyPluginAsync = async (app) => {
  const r = app.withTypeProvider<ZodTypeProvider>()
  // before body validation: a non-admin learns nothing about the body of an endpoint they may not call
  r.addHook('preValidation', requireAdmin)

  // GET /api/blocklist – entries, newest first; ?type=domain|keyword
  r.get('/api/blocklist', { schema: { querystring: listQuery } }, async (req) => {
    const { rows, total } = await listEntries(app.db, req.query)
    return listResponse('entries', rows.map(presentEntry), total, req.query)
  })

  // POST /api/blocklist/add – {type, value, reason?}; existing links that match are quarantined in the background
  r.post('/api/blocklist/add', { schema: { body: addBody } }, async (req) => {
    const { type, reason } = req.body
    const value = type === 'domain' ? domainValue(req.body.value) : keywordValue(req.body.value)
    if (value === null) {
      throw badRequest(
        type === 'domain' ? 'value must be a domain of two or more parts, such as evil.example: a top-level domain alone would block every site under it.' : `value must be a keyword of ${MIN_KEYWORD} to ${MAX_KEYWORD} characters on one line.`,
        'value',
      )
    }
    const [entry] = await insertEntries(app.db, [{ type, value, reason: reason ?? null, createdBy: req.user.id }])
    if (!entry) throw conflict(`${value} is already on the blocklist.`, 'value')
    rescanFor(app, [entry])
    return { error: 0, id: entry.id, data: presentEntry(entry), message: 'Added; existing links that match are being quarantined.' }
  })

  // DELETE /api/blocklist/:id/delete – the entry goes; links it quarantined stay so until released
  r.delete('/api/blocklist/:id/delete', { schema: { params: idParam } }, async (req) => {
    if (!(await deleteEntry(app.db, req.params.id))) throw notFound('Blocklist entry not found.')
    return { error: 0, message: 'Blocklist entry has been deleted successfully.' }
  })

  // POST /api/url/:id/release – lift a link's quarantine (any account's link)
  r.post('/api/url/:id/release', { schema: { params: idParam } }, async (req) => {
    const [row] = await app.db.update(links).set({ quarantined: false }).where(eq(links.id, req.params.id)).returning({ id: links.id })
    if (!row) throw notFound('Link not found.')
    await invalidateLinks(app, [row.id])
    return { error: 0, message: 'Link has been released.' }
  })
}
export default blocklist
