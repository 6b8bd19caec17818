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

const countdownScript = (nonce: string, seconds: number) =>
  raw(
    `<script nonce="${nonce}">(function(){var n=${Math.max(0, Math.floor(seconds))},e=document.getElementById('countdown');` +
      `if(!e)return;var t=setInterval(function(){n=Math.max(0,n-1);e.textContent=String(n);if(n===0)clearInterval(t)},1000)})();</script>`,
  )

const pageTitle = (link: ServeLink) => link.title || link.metaTitle || 'Redirecting'

/** A link with pixels and the `direct` type: load the pixels, then move on. */
export function pixelPage(reply: FastifyReply, v: VisitPage) {
  return sendPage(
    reply,
    200,
    withPixels(v.link, {
      title: 'Redirecting…',
      headParts: [refresh(PIXEL_PAGE_SECONDS, v.dest)],
      body: html`<main><h1>Redirecting…</h1><p>You are being taken to <a id="destination" href="${v.dest}" rel="noreferrer">${hostOf(v.dest)}</a>.</p>
<p><a href="${v.dest}" rel="noreferrer">Continue</a></p></main>`.value,
    }),
  )
}

/** `frame`: the destination in a full-size iframe under a thin bar with a plain link to it. */
export function framePage(reply: FastifyReply, v: VisitPage) {
  const src = frameSource(v.dest)
  return sendPage(
    reply,
    200,
    withPixels(v.link, {
      title: pageTitle(v.link),
      head: `<style>html,body{height:100%;margin:0;overflow:hidden}.kurz-bar{height:2.25rem;display:flex;align-items:center;gap:1rem;padding:0 1rem;background:#1d2330;color:#fff;font-size:.9rem}.kurz-bar a{color:#fff}.kurz-frame{display:block;border:0;width:100%;height:calc(100% - 2.25rem)}</style>`,
      frameSrc: src ? [src] : [],
      body: html`<div class="kurz-bar"><span>${pageTitle(v.link)}</span><a id="destination" href="${v.dest}" target="_top" rel="noreferrer">Open ${hostOf(v.dest)} directly</a></div>
${src ? html`<iframe class="kurz-frame" src="${v.dest}" title="${pageTitle(v.link)}"></iframe>` : html`<main><p><a href="${v.dest}" rel="noreferrer">Continue to ${hostOf(v.dest)}</a></p></main>`}`.value,
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
<p><a id="destination" href="${v.dest}" rel="noreferrer">${v.dest}</a></p>
<p class="muted">Continuing in <span id="countdown">${seconds}</span> seconds…</p>
<p><a href="${v.dest}" rel="noreferrer"><button type="button" tabindex="-1">Continue now</button></a></p></main>`.value,
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
    content = html`<form method="post" action="${action}" target="_top">
<input type="hidden" name="link" value="${v.link.id}">
${options.map((o, i) => html`<p><label><input type="radio" name="option" value="${i}" required> ${o}</label></p>`)}
<p><button type="submit" style="${buttonStyle}">${page.buttonLabel || 'Vote'}</button></p></form>`
  } else {
    content =
      page.buttonLabel && page.buttonUrl
        ? html`<p><a href="${safeHref(page.buttonUrl)}" target="_top" rel="noreferrer" style="${buttonStyle}">${page.buttonLabel}</a></p>`
        : html``
  }

  return sendPage(
    reply,
    200,
    withPixels(v.link, {
      title: pageTitle(v.link),
      head: `<style>html,body{height:100%;margin:0;overflow:hidden}.kurz-frame{display:block;border:0;width:100%;height:100%}
.kurz-overlay{position:fixed;z-index:10;max-width:22rem;padding:1rem 1.25rem;border-radius:10px;box-shadow:0 4px 18px rgba(0,0,0,.25)}
.kurz-overlay h2{margin:.2rem 0 .5rem;font-size:1.1rem}.kurz-overlay input,.kurz-overlay textarea{width:100%;box-sizing:border-box}
#kurz-close{display:none}#kurz-close:checked~.kurz-overlay{display:none}.kurz-x{position:absolute;right:.6rem;top:.3rem;cursor:pointer;font-size:1.2rem}
.kurz-direct{position:fixed;right:.5rem;top:.5rem;z-index:5;font-size:.8rem;background:rgba(255,255,255,.85);padding:.2rem .5rem;border-radius:4px}</style>`,
      frameSrc: src ? [src] : [],
      body: html`${src ? html`<iframe class="kurz-frame" src="${v.dest}" title="${pageTitle(v.link)}"></iframe>` : ''}
<a class="kurz-direct" id="destination" href="${v.dest}" target="_top" rel="noreferrer">Open ${hostOf(v.dest)} directly</a>
<input type="checkbox" id="kurz-close">
<aside class="kurz-overlay" style="${`${position};background:${bg};color:${fg}`}">
<label class="kurz-x" for="kurz-close" title="Close">×</label>
${page.title ? html`<h2>${page.title}</h2>` : ''}${page.message ? html`<p>${page.message}</p>` : ''}${content}
</aside>`.value,
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
