import type { FastifyPluginAsync } from 'fastify'
import { ANY_CONTROL_CHAR, MAX_ID } from '../../http/fields.js'
import { html, notFoundPage, sendPage } from '../../lib/html.js'
import { shortUrlOf } from '../../lib/short-url.js'
import * as repo from './repo.js'

const PER_PAGE = 100
const ID = /^\d{1,10}$/

/** The public list page of a campaign (DECISIONS §5): public campaigns only, everything escaped. */
const campaignPages: FastifyPluginAsync = async (app) => {
  // GET /u/:username/:id – a public campaign's links (short URL and title), 100 a page
  app.get<{ Params: { username: string; id: string }; Querystring: { page?: string } }>('/u/:username/:id', async (req, reply) => {
    const { username, id } = req.params
    const idNum = ID.test(id) ? Number(id) : 0
    // a control character (a NUL above all, which Postgres cannot compare) names no account
    if (idNum < 1 || idNum > MAX_ID || username.length > 64 || ANY_CONTROL_CHAR.test(username)) return notFoundPage(reply)
    const found = await repo.findPublicCampaign(app.db, username, idNum)
    if (!found) return notFoundPage(reply)
    const pageParam = typeof req.query.page === 'string' && /^\d{1,6}$/.test(req.query.page) ? Number(req.query.page) : 1
    const page = Math.max(1, pageParam)
    const { rows, total } = await repo.listVisibleCampaignLinks(app.db, found.campaign.id, { limit: PER_PAGE, page })
    const maxpage = Math.max(1, Math.ceil(total / PER_PAGE))
    const self = `/u/${encodeURIComponent(found.username)}/${found.campaign.id}`
    const items = rows.map(({ link, domain }) => {
      const short = shortUrlOf(app.config, link, domain ? { domain } : null)
      // the long URL is never shown: the short link may be password-protected or targeted
      const title = link.title || link.metaTitle || short
      return html`<li><a href="${short}" rel="noopener">${title}</a><br><span class="muted">${short}</span></li>`
    })
    const nav =
      maxpage > 1
        ? html`<p>${page > 1 ? html`<a href="${self}?page=${page - 1}">Previous</a> ` : ''}Page ${page} of ${maxpage}${
            page < maxpage ? html` <a href="${self}?page=${page + 1}">Next</a>` : ''
          }</p>`
        : ''
    return sendPage(reply, 200, {
      title: found.campaign.name,
      body: html`<main><h1>${found.campaign.name}</h1>
<p class="muted">${total === 1 ? '1 link' : `${total} links`} shared by ${found.username}</p>
${items.length ? html`<ul class="links">${items}</ul>` : html`<p>No links here yet.</p>`}
${nav}</main>`.value,
    })
  })
}
export default campaignPages
