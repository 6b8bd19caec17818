import type { FastifyReply } from 'fastify'
import { html, newNonce, raw, sendPage, type PageOptions, type Raw } from '../../lib/html.js'
import type { Page, ServeLink } from '../loader.js'
import { pixelMarkup, type PixelMarkup } from './pixels.js'

/**
 * The pages a visit can get (DECISIONS §5 step 7). Every value is escaped by the `html` template,
 * every page sends a strict CSP through sendPage, and every page works without JavaScript: the
 * ones that move on do it with a meta refresh and a plain link; frame and overlay pages show the
 * destination in an iframe beside a plain link to it. Scripts, where present, only decorate (a
 * countdown) or are the tracking pixels the owner configured.
 */

export const DEFAULT_SPLASH_SECONDS = 5
/** long enough for pixel scripts to send their beacons, short enough to feel like a redirect */
export const PIXEL_PAGE_SECONDS = 1

export interface VisitPage {
  link: ServeLink
  /** the final destination, already safe for a header or attribute (safeUrl) */
  dest: string
  /** the short URL of the link */
  shortUrl: string
}

const HEX = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/
/** Colours go into a style attribute: only a strict #hex passes, anything else is the default. */
const color = (value: unknown, fallback: string) => (typeof value === 'string' && HEX.test(value) ? value : fallback)
/** Relative luminance (WCAG) of a strict #hex colour, 0 (black) to 1 (white). */
function luminance(hex: string): number {
  const h = hex.length === 4 ? hex.slice(1).replace(/./g, (c) => c + c) : hex.slice(1)
  const [r, g, b] = [0, 2, 4].map((i) => {
    const v = parseInt(h.slice(i, i + 2), 16) / 255
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4
  })
  return 0.2126 * r + 0.7152 * g + 0.0722 * b
}

/** CSP source for the destination's origin; a scheme source when the origin cannot be written as a host-source. */
export function frameSource(dest: string): string | null {
  if (!/^https?:/i.test(dest)) return null
  try {
    const u = new URL(dest)
    return /^https?:\/\/[A-Za-z0-9.-]+(?::\d+)?$/.test(u.origin) ? u.origin : u.protocol
  } catch {
    return null
  }
}

/** Last line of defence for href values: a script-capable scheme never reaches an attribute. */
export const safeHref = (url: string | null | undefined) => (!url || /^[\s\u0000-\u001f]*(?:javascript|data|vbscript|file):/i.test(url) ? '#' : url)

const hostOf = (dest: string) => {
  try {
    return new URL(dest).host || dest
  } catch {
    return dest
  }
}

const refresh = (seconds: number, dest: string) => html`<meta http-equiv="refresh" content="${seconds};url=${dest}">`

function withPixels(link: ServeLink, o: PageOptions & { headParts?: Raw[]; bodyEnd?: Raw[] }): PageOptions {
  const nonce = o.scriptNonce ?? newNonce()
  const px: PixelMarkup | null = pixelMarkup(link.pixels, nonce)
  const head = [...(o.headParts ?? []), ...(px ? [px.head] : [])]
  const body = o.body + (px ? px.body.value : '') + (o.bodyEnd ?? []).map((r) => r.value).join('')
  const usesScript = Boolean(px) || Boolean(o.scriptNonce)
  return {
    title: o.title,
    head: (o.head ?? '') + head.map((r) => r.value).join(''),
    body,
    scriptNonce: usesScript ? nonce : undefined,
    scriptSrc: px ? px.csp.scriptSrc : undefined,
    imgSrc: px ? px.csp.imgSrc : undefined,
    connectSrc: px ? px.csp.connectSrc : undefined,
    frameSrc: [...(o.frameSrc ?? []), ...(px ? px.csp.frameSrc : [])],
    // pixel vendors run code their customers write (a GTM container is any JavaScript): in an
    // opaque origin it cannot open /dashboard as a same-origin window and read it
    sandbox: Boolean(px),
  }
}

/**
 * Script that goes on to the page's own `#destination` link (so no URL is written into script): the
 * countdown's end and the pixel page's timer, which count from when the page starts rather than from
 * its load event, which a vendor script that never answers can hold back as long as the network waits.
 */
const MOVE_ON = `var a=document.getElementById('destination');if(a)location.replace(a.href)`

const countdownScript = (nonce: string, seconds: number) =>
  raw(
    `<script nonce="${nonce}">(function(){var n=${Math.max(0, Math.floor(seconds))},e=document.getElementById('countdown');` +
      `if(!e)return;var t=setInterval(function(){n=Math.max(0,n-1);e.textContent=String(n);if(n===0){clearInterval(t);${MOVE_ON}}},1000)})();</script>`,
  )

/** The link's own title, if it has one. Frame and overlay pages never redirect: without one they are named after what they show. */
const shownTitle = (link: ServeLink) => link.title || link.metaTitle || null
const pageTitle = (link: ServeLink) => shownTitle(link) ?? 'Redirecting'

/** Moves on after the same seconds as the meta refresh (kept for visitors without JavaScript). */
const moveOnScript = (nonce: string, seconds: number) => raw(`<script nonce="${nonce}">setTimeout(function(){${MOVE_ON}},${Math.max(0, seconds) * 1000});</script>`)

/** A link with pixels and the `direct` type: load the pixels, then move on. */
export function pixelPage(reply: FastifyReply, v: VisitPage) {
  const nonce = newNonce()
  return sendPage(
    reply,
    200,
    withPixels(v.link, {
      title: 'Redirecting…',
      scriptNonce: nonce,
      // the timer first, before any vendor code: the meta refresh stays for visitors without JavaScript
      headParts: [refresh(PIXEL_PAGE_SECONDS, v.dest), moveOnScript(nonce, PIXEL_PAGE_SECONDS)],
      body: html`<main><h1>Redirecting…</h1><p>You are being taken to <a id="destination" href="${v.dest}" rel="noreferrer">${hostOf(v.dest)}</a>.</p>
<p><a href="${v.dest}" rel="noreferrer">Continue</a></p></main>`.value,
    }),
  )
}

/**
 * `frame`: the destination in a full-size iframe under a bar with a plain link to it. The bar grows
 * with its text and the iframe takes the rest; a long title is cut short (ellipsis), never the link.
 */
export function framePage(reply: FastifyReply, v: VisitPage) {
  const src = frameSource(v.dest)
  const shown = shownTitle(v.link)
  const title = shown ?? hostOf(v.dest)
  return sendPage(
    reply,
    200,
    withPixels(v.link, {
      title,
      head: `<style>html,body{height:100%;margin:0;overflow:hidden}body{display:flex;flex-direction:column}
.kurz-bar{flex:none;display:flex;align-items:center;gap:.75rem;min-height:2.25rem;box-sizing:border-box;padding:.35rem 1rem;background:#1d2330;color:#fff;font-size:.9rem;line-height:1.3}
.kurz-bar h1{flex:1 1 auto;min-width:0;margin:0;font-size:inherit;font-weight:600;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.kurz-bar a{flex:0 0 auto;max-width:65%;margin-left:auto;color:#fff;overflow-wrap:anywhere;text-align:right}.kurz-bar a:focus-visible{outline-color:#fff}
main.kurz-view{flex:1 1 auto;min-height:0;max-width:none;margin:0;padding:0;border-radius:0;background:none;box-shadow:none}
.kurz-frame{display:block;border:0;width:100%;height:100%}</style>`,
      frameSrc: src ? [src] : [],
      body: html`<header class="kurz-bar">${shown ? html`<h1 title="${shown}"><span>${shown}</span></h1>` : html`<h1 class="kurz-sr">Short link</h1>`}<a id="destination" href="${v.dest}" target="_top" rel="noreferrer">Open ${hostOf(v.dest)} directly</a></header>
${src ? html`<main class="kurz-view"><iframe class="kurz-frame" src="${v.dest}" title="${title}"></iframe></main>` : html`<main><p><a href="${v.dest}" rel="noreferrer">Continue to ${hostOf(v.dest)}</a></p></main>`}`.value,
    }),
  )
}

/** `splash`: the destination and a 5 s countdown; the meta refresh moves on, with or without JS. */
export function splashPage(reply: FastifyReply, v: VisitPage) {
  const nonce = newNonce()
  const seconds = DEFAULT_SPLASH_SECONDS
  return sendPage(
    reply,
    200,
    withPixels(v.link, {
      title: pageTitle(v.link),
      scriptNonce: nonce,
      headParts: [refresh(seconds, v.dest)],
      body: html`<main><h1>${v.link.title || 'You are being redirected'}</h1>
<p>This link takes you to:</p>
<p class="kurz-url"><a id="destination" href="${v.dest}" rel="noreferrer">${v.dest}</a></p>
<p class="muted">Continuing in <span id="countdown">${seconds}</span> seconds…</p>
<p><a class="kurz-button" href="${v.dest}" rel="noreferrer">Continue now</a></p></main>`.value,
      bodyEnd: [countdownScript(nonce, seconds)],
    }),
  )
}

/** A custom splash page (pages row of kind `splash`). */
export function customSplashPage(reply: FastifyReply, v: VisitPage, page: Page) {
  const nonce = newNonce()
  const seconds = Math.min(Math.max(page.countdown ?? DEFAULT_SPLASH_SECONDS, 0), 120)
  const image = page.imageUrl && /^https:\/\//i.test(page.imageUrl) ? page.imageUrl : null
  const button = safeHref(page.buttonUrl ?? v.dest)
  return sendPage(
    reply,
    200,
    withPixels(v.link, {
      title: page.title || pageTitle(v.link),
      scriptNonce: nonce,
      headParts: [refresh(seconds, v.dest)],
      body: html`<main class="kurz-splash">${image ? html`<p><img src="${image}" alt="" style="max-width:100%;border-radius:8px"></p>` : ''}
<h1>${page.title || pageTitle(v.link)}</h1>
${page.message ? html`<p>${page.message}</p>` : ''}
${page.buttonLabel ? html`<p><a class="kurz-button" href="${button}" rel="noreferrer">${page.buttonLabel}</a></p>` : ''}
<p class="muted">Continuing to <a id="destination" href="${v.dest}" rel="noreferrer">${hostOf(v.dest)}</a> in <span id="countdown">${seconds}</span> seconds…</p>
<p><a href="${v.dest}" rel="noreferrer">Skip</a></p></main>`.value,
      bodyEnd: [countdownScript(nonce, seconds)],
    }),
  )
}

const POSITIONS: Record<string, string> = {
  'bottom-left': 'left:1rem;bottom:1rem',
  'bottom-right': 'right:1rem;bottom:1rem',
  top: 'left:50%;top:1rem;transform:translateX(-50%)',
  bottom: 'left:50%;bottom:1rem;transform:translateX(-50%)',
  center: 'left:50%;top:50%;transform:translate(-50%,-50%)',
}

/** An overlay (pages row of kind `overlay`): the destination in an iframe, the overlay on top. */
export function overlayPage(reply: FastifyReply, v: VisitPage, page: Page) {
  const s = (page.settings ?? {}) as Record<string, unknown>
  const position = POSITIONS[typeof s.position === 'string' ? s.position : ''] ?? POSITIONS['bottom-left']
  const bg = color(s.background, '#ffffff')
  const fg = color(s.color, '#1d2330')
  const btnBg = color(s.buttonBackground, '#2554c7')
  const btnFg = color(s.buttonColor, '#ffffff')
  const options = Array.isArray(s.options) ? s.options.filter((o): o is string => typeof o === 'string') : []
  const src = frameSource(v.dest)
  const buttonStyle = `background:${btnBg};color:${btnFg};border:0;border-radius:6px;padding:.5rem .9rem;text-decoration:none;display:inline-block;cursor:pointer`
  const action = `/_/overlay/${page.id}`

  let content: Raw
  if (page.overlayType === 'contact') {
    content = html`<form method="post" action="${action}" target="_top">
<input type="hidden" name="link" value="${v.link.id}">
<p><label>Name<br><input name="name" maxlength="255" required></label></p>
<p><label>Email<br><input type="email" name="email" maxlength="254" required></label></p>
<p><label>Message<br><textarea name="message" maxlength="2000" rows="3" required></textarea></label></p>
<p><button type="submit" style="${buttonStyle}">${page.buttonLabel || 'Send'}</button></p></form>`
  } else if (page.overlayType === 'poll') {
    // the question is the group's legend, so a screen reader names it with every answer
    const legend = page.title ? html`<h2>${page.title}</h2>` : html`<span class="kurz-sr">${page.message || 'Poll'}</span>`
    content = html`<form method="post" action="${action}" target="_top">
<input type="hidden" name="link" value="${v.link.id}">
<fieldset><legend>${legend}</legend>${page.message ? html`<p>${page.message}</p>` : ''}
${options.map((o, i) => html`<p class="kurz-option"><label><input type="radio" name="option" value="${i}" required> ${o}</label></p>`)}
</fieldset>
<p><button type="submit" style="${buttonStyle}">${page.buttonLabel || 'Vote'}</button></p></form>`
  } else {
    content =
      page.buttonLabel && page.buttonUrl
        ? html`<p><a href="${safeHref(page.buttonUrl)}" target="_top" rel="noreferrer" style="${buttonStyle}">${page.buttonLabel}</a></p>`
        : html``
  }

  const shown = shownTitle(v.link)
  const title = shown ?? hostOf(v.dest)
  // form controls follow the overlay's own background, not the visitor's colour scheme; an overlay
  // never reaches the top 2.75rem, where the "Open … directly" link is: one at the top sits below
  // it (a phone is narrow), and a tall one at the bottom or centre stops short of it
  const dark = luminance(bg) < 0.3
  const fields = dark ? 'background:#202532;color:#e6e9f0;border-color:#2d3342' : 'background:#fff;color:#1d2330;border-color:#c8ccd4'
  // a poll's title and message live in its fieldset
  const intro = page.overlayType === 'poll' ? html`` : html`${page.title ? html`<h2>${page.title}</h2>` : ''}${page.message ? html`<p>${page.message}</p>` : ''}`
  return sendPage(
    reply,
    200,
    withPixels(v.link, {
      title,
      // The close control is a CSS checkbox (no JavaScript): visually hidden but focusable and named,
      // so Tab reaches it and Space closes; the × shows its focus ring.
      head: `<style>html,body{height:100%;margin:0;overflow:hidden}.kurz-frame{display:block;border:0;width:100%;height:100%}
main.kurz-view{height:100%;max-width:none;margin:0;padding:0;border-radius:0;background:none;box-shadow:none}
.kurz-overlay{position:fixed;z-index:10;box-sizing:border-box;width:max-content;max-width:min(22rem,calc(100vw - 2rem));max-height:calc(100vh - 3.75rem);max-height:calc(100dvh - 3.75rem);overflow:auto;padding:1rem 2rem 1rem 1.25rem;border-radius:10px;box-shadow:0 4px 18px rgba(0,0,0,.25);overflow-wrap:anywhere}
.kurz-overlay h2{margin:.2rem 0 .5rem;font-size:1.1rem}.kurz-overlay input:not([type=radio]),.kurz-overlay textarea{width:100%;box-sizing:border-box}
.kurz-overlay fieldset{border:0;margin:0;padding:0;min-width:0}.kurz-overlay legend{padding:0;max-width:100%}
.kurz-option label{display:flex;align-items:flex-start;gap:.5rem;cursor:pointer}.kurz-option input{flex:none;margin:.2rem 0 0;padding:0}
.kurz-overlay{color-scheme:${dark ? 'dark' : 'light'}${position === POSITIONS.top ? ';margin-top:1.75rem' : position === POSITIONS.center ? ';margin-top:.875rem' : ''}}.kurz-overlay input:not([type=radio]),.kurz-overlay textarea{${fields}}
#kurz-close{position:fixed;top:0;left:0;width:1px;height:1px;margin:0;padding:0;opacity:0;overflow:hidden;clip-path:inset(50%)}#kurz-close:checked~.kurz-overlay{display:none}
.kurz-x{position:absolute;right:.6rem;top:.3rem;cursor:pointer;font-size:1.2rem;line-height:1.2;padding:0 .2rem;border-radius:4px}#kurz-close:focus~.kurz-overlay .kurz-x{outline:2px solid currentColor;outline-offset:1px}
.kurz-direct{position:fixed;right:.5rem;top:.5rem;z-index:5;max-width:calc(100vw - 1rem);box-sizing:border-box;overflow-wrap:anywhere;font-size:.8rem;background:#fff;color:#2554c7;padding:.2rem .5rem;border-radius:4px;box-shadow:0 1px 3px rgba(0,0,0,.2)}
@media (prefers-color-scheme:dark){.kurz-direct{background:#181c25;color:#9db0ff}}</style>`,
      frameSrc: src ? [src] : [],
      body: html`<main class="kurz-view"><h1 class="kurz-sr">${shown ?? 'Short link'}</h1>
<a class="kurz-direct" id="destination" href="${v.dest}" target="_top" rel="noreferrer">Open ${hostOf(v.dest)} directly</a>
${src ? html`<iframe class="kurz-frame" src="${v.dest}" title="${title}"></iframe>` : ''}
<input type="checkbox" id="kurz-close" aria-label="Close">
<aside class="kurz-overlay" style="${`${position};background:${bg};color:${fg}`}">
<label class="kurz-x" for="kurz-close" title="Close">×</label>
${intro}${content}
</aside></main>`.value,
    }),
  )
}

/** Social crawlers on a link with meta fields (DECISIONS §5 step 5): Open Graph and Twitter card tags. */
export function crawlerPage(reply: FastifyReply, link: ServeLink, shortUrl: string, dest: string) {
  const title = link.metaTitle || link.title || shortUrl
  const description = link.metaDescription || link.description || ''
  const image = link.metaImage
  const head = html`
<meta property="og:type" content="website">
<meta property="og:url" content="${shortUrl}">
<meta property="og:title" content="${title}">
${description ? html`<meta property="og:description" content="${description}">` : ''}
${image ? html`<meta property="og:image" content="${image}">` : ''}
<meta name="twitter:card" content="${image ? 'summary_large_image' : 'summary'}">
<meta name="twitter:title" content="${title}">
${description ? html`<meta name="twitter:description" content="${description}">` : ''}
${image ? html`<meta name="twitter:image" content="${image}">` : ''}
${description ? html`<meta name="description" content="${description}">` : ''}`
  return sendPage(reply, 200, {
    title,
    head: head.value,
    body: html`<main><h1>${title}</h1>${description ? html`<p>${description}</p>` : ''}
<p><a href="${safeHref(dest)}" rel="noreferrer">${dest}</a></p></main>`.value,
  })
}
