import type { PixelType } from '../../db/schema/index.js'
import { html, raw, type Raw } from '../../lib/html.js'

/**
 * Tracking-pixel snippets, one fixed template per SPEC.md type. Only the tag is variable; it was
 * validated on write (DECISIONS §7: letters, digits, `-`, `_`, `/`, `.`) and is checked again here,
 * then placed as a JSON string literal in scripts and escaped in URLs, so no pixel can ever carry
 * markup. The CSP of the page allows exactly the hosts of the vendors present.
 */

export interface PixelSnippetInput {
  type: PixelType
  tag: string
}

interface Vendor {
  /** external scripts the snippet loads (and they load in turn) */
  script: string[]
  /** beacons: images, XHR / fetch, iframes */
  img?: string[]
  connect?: string[]
  frame?: string[]
  /** inline bootstrap (runs under the page nonce); `t` is the tag as a JS string literal */
  inline: (t: string, tag: string) => string
  /** the image beacon of the vendor's <noscript> form */
  noscript?: (tag: string) => string
}

const GOOGLE_SCRIPT = ['https://www.googletagmanager.com']
const GOOGLE_BEACONS = ['https://www.google-analytics.com', 'https://*.google-analytics.com', 'https://*.analytics.google.com', 'https://www.googletagmanager.com']
const ADS_BEACONS = ['https://www.googleadservices.com', 'https://googleads.g.doubleclick.net', 'https://www.google.com', 'https://td.doubleclick.net']

const gtag = (t: string) =>
  `window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments);}gtag('js',new Date());gtag('config',${t});`

const VENDORS: Record<PixelType, Vendor> = {
  gtmpixel: {
    script: GOOGLE_SCRIPT,
    img: GOOGLE_BEACONS,
    connect: GOOGLE_BEACONS,
    frame: ['https://www.googletagmanager.com'],
    inline: (t) =>
      `(function(w,d,i){w.dataLayer=w.dataLayer||[];w.dataLayer.push({'gtm.start':new Date().getTime(),event:'gtm.js'});` +
      `var s=d.createElement('script');s.async=true;s.src='https://www.googletagmanager.com/gtm.js?id='+encodeURIComponent(i);d.head.appendChild(s);})(window,document,${t});`,
  },
  gapixel: {
    script: GOOGLE_SCRIPT,
    img: GOOGLE_BEACONS,
    connect: GOOGLE_BEACONS,
    inline: (t) =>
      `(function(d,i){var s=d.createElement('script');s.async=true;s.src='https://www.googletagmanager.com/gtag/js?id='+encodeURIComponent(i);d.head.appendChild(s);})(document,${t});` +
      gtag(t),
  },
  adwordspixel: {
    script: [...GOOGLE_SCRIPT, 'https://www.googleadservices.com'],
    img: [...GOOGLE_BEACONS, ...ADS_BEACONS],
    connect: [...GOOGLE_BEACONS, ...ADS_BEACONS],
    frame: ['https://td.doubleclick.net'],
    inline: (t) =>
      `(function(d,i){var s=d.createElement('script');s.async=true;s.src='https://www.googletagmanager.com/gtag/js?id='+encodeURIComponent(i.split('/')[0]);d.head.appendChild(s);})(document,${t});` +
      gtag(t),
  },
  fbpixel: {
    script: ['https://connect.facebook.net'],
    img: ['https://www.facebook.com'],
    connect: ['https://www.facebook.com', 'https://connect.facebook.net'],
    inline: (t) =>
      `!function(f,b){if(f.fbq)return;var n=f.fbq=function(){n.callMethod?n.callMethod.apply(n,arguments):n.queue.push(arguments)};` +
      `if(!f._fbq)f._fbq=n;n.push=n;n.loaded=!0;n.version='2.0';n.queue=[];var s=b.createElement('script');s.async=!0;` +
      `s.src='https://connect.facebook.net/en_US/fbevents.js';b.head.appendChild(s)}(window,document);fbq('init',${t});fbq('track','PageView');`,
    noscript: (tag) => `https://www.facebook.com/tr?id=${encodeURIComponent(tag)}&ev=PageView&noscript=1`,
  },
  linkedinpixel: {
    script: ['https://snap.licdn.com'],
    img: ['https://px.ads.linkedin.com'],
    connect: ['https://px.ads.linkedin.com'],
    inline: (t) =>
      `window._linkedin_partner_id=${t};window._linkedin_data_partner_ids=window._linkedin_data_partner_ids||[];` +
      `window._linkedin_data_partner_ids.push(${t});(function(d){var s=d.createElement('script');s.async=true;` +
      `s.src='https://snap.licdn.com/li.lms-analytics/insight.min.js';d.head.appendChild(s);})(document);`,
    noscript: (tag) => `https://px.ads.linkedin.com/collect/?pid=${encodeURIComponent(tag)}&fmt=gif`,
  },
  twitterpixel: {
    script: ['https://static.ads-twitter.com'],
    img: ['https://analytics.twitter.com', 'https://t.co'],
    connect: ['https://analytics.twitter.com', 'https://static.ads-twitter.com'],
    inline: (t) =>
      `!function(e,n){if(e.twq)return;var s=e.twq=function(){s.exe?s.exe.apply(s,arguments):s.queue.push(arguments)};` +
      `s.version='1.1';s.queue=[];var u=n.createElement('script');u.async=!0;u.src='https://static.ads-twitter.com/uwt.js';` +
      `n.head.appendChild(u)}(window,document);twq('config',${t});`,
  },
  adrollpixel: {
    script: ['https://s.adroll.com'],
    img: ['https://d.adroll.com'],
    connect: ['https://d.adroll.com', 'https://s.adroll.com'],
    // tag: "<advertisable id>/<pixel id>", or the advertisable id alone
    inline: (t) =>
      `(function(w,d,v){var p=v.split('/');w.adroll_adv_id=p[0];w.adroll_pix_id=p[1]||'';w.adroll_version='2.0';` +
      `var s=d.createElement('script');s.async=true;s.src='https://s.adroll.com/j/'+encodeURIComponent(p[0])+'/roundtrip.js';d.head.appendChild(s);})(window,document,${t});`,
  },
  quorapixel: {
    script: ['https://a.quora.com'],
    img: ['https://q.quora.com'],
    connect: ['https://q.quora.com'],
    inline: (t) =>
      `!function(q,e){if(q.qp)return;var n=q.qp=function(){n.qp?n.qp.apply(n,arguments):n.queue.push(arguments)};n.queue=[];` +
      `var t=e.createElement('script');t.async=!0;t.src='https://a.quora.com/qevents.js';e.head.appendChild(t)}(window,document);` +
      `qp('init',${t});qp('track','ViewContent');`,
    noscript: (tag) => `https://q.quora.com/_/ad/${encodeURIComponent(tag)}/pixel?tag=ViewContent&noscript=1`,
  },
  pinterest: {
    script: ['https://s.pinimg.com'],
    img: ['https://ct.pinterest.com'],
    connect: ['https://ct.pinterest.com'],
    inline: (t) =>
      `!function(e){if(!window.pintrk){window.pintrk=function(){window.pintrk.queue.push(Array.prototype.slice.call(arguments))};` +
      `var n=window.pintrk;n.queue=[],n.version='3.0';var s=document.createElement('script');s.async=!0;s.src=e;document.head.appendChild(s)}}` +
      `('https://s.pinimg.com/ct/core.js');pintrk('load',${t});pintrk('page');`,
    noscript: (tag) => `https://ct.pinterest.com/v3/?event=init&tid=${encodeURIComponent(tag)}&noscript=1`,
  },
  bing: {
    script: ['https://bat.bing.com'],
    img: ['https://bat.bing.com'],
    connect: ['https://bat.bing.com'],
    inline: (t) =>
      `(function(w,d,u){w.uetq=w.uetq||[];var s=d.createElement('script');s.async=true;s.src='https://bat.bing.com/bat.js';` +
      `s.onload=function(){var o={ti:u,enableAutoSpaTracking:true};o.q=w.uetq;w.uetq=new UET(o);w.uetq.push('pageLoad')};d.head.appendChild(s);})(window,document,${t});`,
    noscript: (tag) => `https://bat.bing.com/action/0?ti=${encodeURIComponent(tag)}&Ver=2`,
  },
  snapchat: {
    script: ['https://sc-static.net'],
    img: ['https://tr.snapchat.com'],
    connect: ['https://tr.snapchat.com', 'https://tr-shadow.snapchat.com'],
    inline: (t) =>
      `(function(e,t,n){if(e.snaptr)return;var a=e.snaptr=function(){a.handleRequest?a.handleRequest.apply(a,arguments):a.queue.push(arguments)};` +
      `a.queue=[];var r=t.createElement('script');r.async=!0;r.src=n;t.head.appendChild(r)})(window,document,'https://sc-static.net/scevent.min.js');` +
      `snaptr('init',${t});snaptr('track','PAGE_VIEW');`,
  },
  reddit: {
    script: ['https://www.redditstatic.com'],
    img: ['https://alb.reddit.com'],
    connect: ['https://alb.reddit.com', 'https://pixel-config.reddit.com'],
    inline: (t) =>
      `!function(w,d){if(!w.rdt){var p=w.rdt=function(){p.sendEvent?p.sendEvent.apply(p,arguments):p.callQueue.push(arguments)};p.callQueue=[];` +
      `var s=d.createElement('script');s.src='https://www.redditstatic.com/ads/pixel.js';s.async=!0;d.head.appendChild(s)}}(window,document);` +
      `rdt('init',${t});rdt('track','PageVisit');`,
  },
  tiktok: {
    script: ['https://analytics.tiktok.com'],
    img: ['https://analytics.tiktok.com'],
    connect: ['https://analytics.tiktok.com'],
    inline: (t) =>
      `!function(w,d,i){w.TiktokAnalyticsObject='ttq';var q=w.ttq=w.ttq||[];q.methods=['page','track','identify','load','ready'];` +
      `q.setAndDefer=function(o,m){o[m]=function(){o.push([m].concat(Array.prototype.slice.call(arguments,0)))}};` +
      `for(var k=0;k<q.methods.length;k++)q.setAndDefer(q,q.methods[k]);var s=d.createElement('script');s.async=!0;` +
      `s.src='https://analytics.tiktok.com/i18n/pixel/events.js?sdkid='+encodeURIComponent(i)+'&lib=ttq';d.head.appendChild(s);ttq.page()}(window,document,${t});`,
  },
}

const TAG = /^[A-Za-z0-9._/-]{1,64}$/

/** A JS string literal that cannot end a <script> element, whatever the tag held. */
const jsString = (s: string) => JSON.stringify(s).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026')

export interface PixelMarkup {
  /** inline bootstrap scripts, one <script nonce> */
  head: Raw
  /** <noscript> image beacons */
  body: Raw
  csp: { scriptSrc: string[]; imgSrc: string[]; connectSrc: string[]; frameSrc: string[] }
}

/** Pixels with a known type and a tag that is a plain id; anything else is skipped. */
export const usablePixels = (list: PixelSnippetInput[]) => list.filter((p) => VENDORS[p.type] && TAG.test(p.tag))

export function pixelMarkup(list: PixelSnippetInput[], nonce: string): PixelMarkup | null {
  const valid = usablePixels(list)
  if (valid.length === 0) return null
  const script = new Set<string>()
  const img = new Set<string>()
  const connect = new Set<string>()
  const frame = new Set<string>()
  let code = ''
  const beacons: Raw[] = []
  for (const p of valid) {
    const v = VENDORS[p.type]
    v.script.forEach((h) => script.add(h))
    v.img?.forEach((h) => img.add(h))
    v.connect?.forEach((h) => connect.add(h))
    v.frame?.forEach((h) => frame.add(h))
    // each vendor in its own try, so one failing snippet cannot stop the others
    code += `try{${v.inline(jsString(p.tag), p.tag)}}catch(e){}\n`
    if (v.noscript) beacons.push(html`<img height="1" width="1" style="display:none" alt="" src="${v.noscript(p.tag)}">`)
  }
  return {
    head: raw(`<script nonce="${nonce}">\n${code}</script>`),
    body: beacons.length ? html`<noscript>${beacons}</noscript>` : raw(''),
    csp: { scriptSrc: [...script], imgSrc: [...img], connectSrc: [...connect], frameSrc: [...frame] },
  }
}
