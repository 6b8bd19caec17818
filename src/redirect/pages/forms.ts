import type { FastifyReply } from 'fastify'
import { html, messagePage, sendPage } from '../../lib/html.js'

export interface PasswordFormOptions {
  /** where the form posts: the same path (and query) the visitor asked for */
  action: string
  /** what the password opens: the link, or its statistics page */
  purpose: 'link' | 'stats'
  /** hidden fields carried to the POST (the link id of a rotator visit, the original referrer) */
  hidden?: Record<string, string>
  error?: string
  /**
   * schemes the right answer may redirect to (`https:`, `spotify:`): the CSP form-action covers
   * the redirect that follows a submission, so they must be allowed besides 'self'
   */
  destinationSchemes?: string[]
}

/**
 * The password form of DECISIONS §5 step 4: one field named `password`, form-encoded POST to the
 * same path. 200 when asked for, 401 after a wrong answer, 429 while throttled, 503 while too many
 * passwords are being checked at once.
 */
export function passwordForm(reply: FastifyReply, status: 200 | 401 | 429 | 503, o: PasswordFormOptions) {
  const heading = o.purpose === 'link' ? 'This link is protected' : 'These statistics are protected'
  const hidden = Object.entries(o.hidden ?? {}).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)
  return sendPage(reply, status, {
    title: 'Password required',
    formAction: ["'self'", ...(o.destinationSchemes ?? [])],
    body: html`<main><h1>${heading}</h1>
<p>Enter the password to continue.</p>
${o.error ? html`<p class="error" role="alert">${o.error}</p>` : ''}
<form method="post" action="${o.action}">
${hidden}
<p><label for="password">Password</label><br><input type="password" id="password" name="password" required autofocus autocomplete="current-password"></p>
<p><button type="submit">Continue</button></p>
</form></main>`.value,
  })
}

export const expiredPage = (reply: FastifyReply) =>
  messagePage(reply, 410, 'Link expired', 'This short link has expired and no longer leads anywhere.')

export function homePage(reply: FastifyReply, publicUrl: string) {
  return sendPage(reply, 200, {
    title: 'Kurz',
    body: html`<main><h1>Kurz</h1><p>Short links, branded domains, campaigns, QR codes and click statistics.</p>
<p class="muted">This is a link shortener: short links on this host lead to their destinations. The service lives at <a href="${publicUrl}">${publicUrl}</a>.</p>
<p><a href="/login">Sign in</a></p></main>`.value,
  })
}
