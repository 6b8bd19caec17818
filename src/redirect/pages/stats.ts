import type { FastifyReply } from 'fastify'
import { html, sendPage, type Raw } from '../../lib/html.js'
import type { LinkStats, Top } from '../../clicks/stats.js'

export interface StatsPageLink {
  alias: string
  /** null for a password-protected link: its destination is what the password guards */
  url: string | null
  title: string | null
  shortUrl: string
  created: string
}

/** A top-N list: what was counted (`column`: Country, Referrer…) and its clicks. */
function table(heading: string, column: string, top: Top, id: string): Raw {
  const rows = top === 0 ? [] : Object.entries(top)
  return html`<section id="${id}"><h2>${heading}</h2>${
    rows.length
      ? html`<table><thead><tr><th>${column}</th><th>Clicks</th></tr></thead><tbody>${rows.map(
          ([label, n]) => html`<tr><td>${label}</td><td>${n}</td></tr>`,
        )}</tbody></table>`
      : html`<p class="muted">No data yet.</p>`
  }</section>`
}

/**
 * A count keeps its column however long the labels beside it are (an unbroken referrer host would
 * otherwise squeeze "Clicks" to a letter a line); .kurz-url stops the destination after four lines.
 */
const STATS_STYLE = '<style>section th:last-child,section td:last-child{white-space:nowrap}</style>'

/** The public statistics page `/<alias>+`: the same figures as `GET /api/url/:id`. */
export function statsPage(reply: FastifyReply, link: StatsPageLink, s: LinkStats) {
  return sendPage(reply, 200, {
    title: `Statistics · ${link.shortUrl}`,
    head: STATS_STYLE,
    body: html`<main><h1>Statistics</h1>
<p><strong>${link.title || link.shortUrl}</strong><br><span class="muted kurz-url">${link.url === null ? html`${link.shortUrl} · the destination is password-protected` : html`${link.shortUrl} → ${link.url}`}</span><span class="muted">Created ${link.created} UTC</span></p>
<table id="totals"><tbody>
<tr><th>Clicks</th><td id="clicks">${s.clicks}</td></tr>
<tr><th>Unique clicks</th><td id="unique-clicks">${s.uniqueClicks}</td></tr>
<tr><th>Facebook</th><td>${s.socialCount.facebook}</td></tr>
<tr><th>Twitter / X</th><td>${s.socialCount.twitter}</td></tr>
<tr><th>Google</th><td>${s.socialCount.google}</td></tr>
</tbody></table>
${table('Top countries', 'Country', s.topCountries, 'countries')}
${table('Top referrers', 'Referrer', s.topReferrers, 'referrers')}
${table('Top browsers', 'Browser', s.topBrowsers, 'browsers')}
${table('Top operating systems', 'Operating system', s.topOs, 'os')}
</main>`.value,
  })
}
