import { randomBytes } from 'node:crypto'
import type { FastifyReply } from 'fastify'
import { escapeHtml } from './escape-html.js'

export { escapeHtml }

export interface PageOptions {
  title: string
  /** trusted HTML built with `html` / escapeHtml; never raw user input */
  body: string
  /** extra trusted markup for <head> (meta refresh, Open Graph tags) */
  head?: string
  /** origins the page may frame (frame and overlay pages) */
  frameSrc?: string[]
  /** allow the inline script carrying this nonce */
  scriptNonce?: string
  /** extra script/img sources (pixel pages) */
  scriptSrc?: string[]
  imgSrc?: string[]
  connectSrc?: string[]
  /**
   * where forms may go, redirects after a submission included (default 'self'); the link password
   * form needs the destination's scheme, since a right answer redirects there
   */
  formAction?: string[]
  /**
   * run the page in an opaque origin (CSP sandbox without allow-same-origin): for pages that load
   * third-party code, so it cannot reach the cookies, storage or same-origin windows of the service
   */
  sandbox?: boolean
}

export const newNonce = () => randomBytes(16).toString('base64')

/** Tagged template that escapes every interpolated value unless it is `raw(...)`. */
export class Raw {
  constructor(readonly value: string) {}
  toString() {
    return this.value
  }
}
export const raw = (value: string) => new Raw(value)
export function html(strings: TemplateStringsArray, ...values: unknown[]): Raw {
  let out = strings[0]
  values.forEach((v, i) => {
    const part = Array.isArray(v)
      ? v.map((x) => (x instanceof Raw ? x.value : escapeHtml(x))).join('')
      : v instanceof Raw
        ? v.value
        : escapeHtml(v)
    out += part + strings[i + 1]
  })
  return new Raw(out)
}

const SANDBOX = 'sandbox allow-scripts allow-forms allow-popups allow-top-navigation'

/** A strict CSP: nothing runs or loads unless a page opts in to exactly what it needs. */
export function contentSecurityPolicy(o: PageOptions): string {
  const script = ["'self'"]
  if (o.scriptNonce) script.push(`'nonce-${o.scriptNonce}'`)
  if (o.scriptSrc) script.push(...o.scriptSrc)
  return [
    "default-src 'none'",
    `script-src ${o.scriptNonce || o.scriptSrc ? script.join(' ') : "'none'"}`,
    "style-src 'unsafe-inline'",
    `img-src 'self' data: https: ${(o.imgSrc ?? []).join(' ')}`.trim(),
    `frame-src ${o.frameSrc?.length ? o.frameSrc.join(' ') : "'none'"}`,
    `connect-src ${o.connectSrc?.length ? o.connectSrc.join(' ') : "'none'"}`,
    `form-action ${o.formAction?.length ? o.formAction.join(' ') : "'self'"}`,
    "base-uri 'none'",
    "frame-ancestors 'self'",
    ...(o.sandbox ? [SANDBOX] : []),
  ].join('; ')
}

// Text on these pages is often the visitor's or a link owner's (URLs with long query strings,
// unbroken words): it wraps anywhere rather than pushing the card, and the page, sideways. It may
// be Arabic or Hebrew: each paragraph, heading, label and cell takes its direction from its own
// first letters (as dir="auto" would), so a right-to-left title reads and aligns right to left with
// its punctuation in place. A URL shown as text (up to 8 KiB) stops after four lines (.kurz-url),
// so what follows it (a Continue button, the figures) is not pages below; its link holds all of it.
const STYLE = `body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;background:#f6f7f9;color:#1d2330}
main{max-width:40rem;margin:3rem auto;padding:2rem;background:#fff;border-radius:12px;box-shadow:0 1px 3px rgba(0,0,0,.08);overflow-wrap:anywhere}
h1{font-size:1.4rem;margin-top:0}h2{font-size:1.1rem}a{color:#2554c7}
input,button,select,textarea{font:inherit;padding:.5rem .75rem;border-radius:6px;border:1px solid #c8ccd4;max-width:100%;box-sizing:border-box}
select{background:#fff;color:inherit}textarea{width:100%;display:block}
button,.kurz-button{background:#2554c7;color:#fff;border:0;cursor:pointer}
.kurz-button{display:inline-block;padding:.5rem .9rem;border-radius:6px;text-decoration:none}
:focus-visible{outline:2px solid #2554c7;outline-offset:2px}
table{border-collapse:collapse;width:100%}td,th{padding:.35rem .5rem;border-bottom:1px solid #eceef2;text-align:left}
.muted{color:#6b7280}.error{color:#b91c1c}
.kurz-sr{position:absolute;width:1px;height:1px;margin:-1px;padding:0;overflow:hidden;clip:rect(0 0 0 0);clip-path:inset(50%);white-space:nowrap;border:0}
h1,h2,p,li,legend,label,td,th,button,.kurz-button{unicode-bidi:plaintext}
.kurz-url{display:-webkit-box;-webkit-box-orient:vertical;-webkit-line-clamp:4;overflow:hidden}.kurz-url a:focus-visible{outline-offset:-2px}
@media (max-width:30rem){main{margin:1rem .75rem;padding:1.25rem}}
@media (prefers-color-scheme:dark){:root{color-scheme:dark}body{background:#10131a;color:#e6e9f0}main{background:#181c25;box-shadow:none}a{color:#7b93ff}
input,select,textarea{background:#202532;color:#e6e9f0;border-color:#2d3342}button,.kurz-button{background:#7b93ff;color:#0b0f1a}:focus-visible{outline-color:#7b93ff}
td,th{border-color:#2d3342}.muted{color:#a0a8ba}.error{color:#ff8787}}`

/** The one HTML layout: every server-rendered page goes through it, with its CSP. */
export function renderPage(o: PageOptions): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="strict-origin-when-cross-origin">
<title>${escapeHtml(o.title)}</title>${o.head ?? ''}<style>${STYLE}</style></head>
<body>${o.body}</body></html>`
}

export function sendPage(reply: FastifyReply, status: number, o: PageOptions) {
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', contentSecurityPolicy(o))
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', 'private, no-store')
    .send(renderPage(o))
}

export function messagePage(reply: FastifyReply, status: number, title: string, message: string) {
  return sendPage(reply, status, { title, body: html`<main><h1>${title}</h1><p>${message}</p></main>`.value })
}

export const notFoundPage = (reply: FastifyReply) =>
  messagePage(reply, 404, 'Link not found', 'This short link does not exist or is no longer active.')
