import type { FastifyReply } from 'fastify'
import { html, sendPage } from '../../lib/html.js'

/**
 * The 451 warning page of a quarantined link (DECISIONS §10.6): the destination is neither linked
 * nor shown, so the page cannot be used to pass the visitor on; the short URL is escaped like any
 * other value and the default CSP lets nothing run.
 */
export function quarantinePage(reply: FastifyReply, shortUrl: string) {
  return sendPage(reply, 451, {
    title: 'Link blocked',
    body: html`<main><h1>This link has been blocked</h1>
<p>The short link <code>${shortUrl}</code> leads to a destination on this service's blocklist (for example phishing, malware or spam), so you are not sent there.</p>
<p class="muted">If you created this link and believe this is a mistake, contact the administrators of this service.</p></main>`.value,
  })
}
