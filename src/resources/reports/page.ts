import type { FastifyReply } from 'fastify'
import { html, messagePage, sendPage } from '../../lib/html.js'

/** Why a visitor reports a link: the value stored, and the label shown. */
export const REPORT_REASONS = {
  phishing: 'Phishing or a fake login page',
  malware: 'Malware or an unwanted download',
  spam: 'Spam',
  scam: 'Scam or fraud',
  illegal: 'Illegal content',
  other: 'Something else',
} as const
export type ReportReason = keyof typeof REPORT_REASONS

export interface ReportFormOptions {
  /** the short URL being reported, shown so the visitor knows which one */
  shortUrl: string
  /** where the form posts: the page's own path */
  action: string
  error?: string
  /** what was sent, kept after an error */
  values?: { reason?: string; comment?: string; email?: string }
}

/** The public report form of DECISIONS §10.6; every value is escaped, and nothing runs (strict CSP). */
export function reportForm(reply: FastifyReply, status: 200 | 400 | 429, o: ReportFormOptions) {
  const v = o.values ?? {}
  const options = Object.entries(REPORT_REASONS).map(
    ([value, label]) => html`<option value="${value}"${v.reason === value ? html` selected` : ''}>${label}</option>`,
  )
  return sendPage(reply, status, {
    title: 'Report a link',
    // the fields as wide as the card, as the comment box is
    head: '<style>#reason,#email{width:100%}</style>',
    body: html`<main><h1>Report a link</h1>
<p>You are reporting <code>${o.shortUrl}</code>. An administrator of this service will look at it.</p>
${o.error ? html`<p class="error" role="alert">${o.error}</p>` : ''}
<form method="post" action="${o.action}">
<p><label for="reason">What is wrong with it?</label><br><select id="reason" name="reason" required>${options}</select></p>
<p><label for="comment">Details (optional)</label><br><textarea id="comment" name="comment" rows="4" maxlength="2000">${v.comment ?? ''}</textarea></p>
<p><label for="email">Your email, if we may ask you more (optional)</label><br><input type="email" id="email" name="email" maxlength="254" value="${v.email ?? ''}"></p>
<p><button type="submit">Send report</button></p>
</form></main>`.value,
  })
}

/** After a post; `stored` false: the link already has as many reports waiting as are kept. */
export const reportThanks = (reply: FastifyReply, stored: boolean) =>
  messagePage(
    reply,
    200,
    'Thank you',
    stored
      ? 'Your report has been sent to the administrators of this service.'
      : 'This link has already been reported by others and is waiting for the administrators of this service.',
  )
