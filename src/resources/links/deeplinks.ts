import { MAX_URL_LENGTH } from '../../lib/url.js'

/**
 * `deeplink.auto` (DECISIONS §4): app links derived from the long URL for hosts whose apps are
 * known. `apple` is where iOS visitors go (the app's URL scheme, or the https URL itself where the
 * app claims it as a universal link); `google` is an Android intent URL that opens the app when it
 * is installed and falls back to the web page otherwise. Pure; no network.
 */
export interface DerivedDeepLink {
  apple: string | null
  google: string | null
}

interface App {
  hosts: RegExp
  android: string
  ios: (u: URL) => string | null
}

const enc = encodeURIComponent
const pathOf = (u: URL) => u.pathname.split('/').filter(Boolean)

const APPS: App[] = [
  {
    hosts: /^(?:(?:www|m|music)\.)?youtube\.com$|^youtu\.be$/,
    android: 'com.google.android.youtube',
    ios: (u) => {
      if (u.hostname === 'youtu.be') {
        const id = pathOf(u)[0]
        return id ? `youtube://www.youtube.com/watch?v=${enc(id)}` : null
      }
      return `youtube://www.youtube.com${u.pathname}${u.search}`
    },
  },
  {
    hosts: /^(?:www\.)?instagram\.com$|^instagr\.am$/,
    android: 'com.instagram.android',
    ios: (u) => {
      const [first, second] = pathOf(u)
      if (first && !second && !['p', 'reel', 'reels', 'tv', 'explore', 'stories'].includes(first)) {
        return `instagram://user?username=${enc(first)}`
      }
      return u.href // posts and reels: Instagram claims them as universal links
    },
  },
  {
    hosts: /^open\.spotify\.com$/,
    android: 'com.spotify.music',
    ios: (u) => {
      const parts = pathOf(u).filter((p) => !/^intl-/.test(p))
      return parts.length >= 2 ? `spotify:${parts.slice(0, 2).map(enc).join(':')}` : 'spotify:'
    },
  },
  {
    hosts: /^(?:(?:www|mobile)\.)?(?:twitter|x)\.com$/,
    android: 'com.twitter.android',
    ios: (u) => {
      const [user, kind, id] = pathOf(u)
      if (user && kind === 'status' && id && /^\d+$/.test(id)) return `twitter://status?id=${id}`
      if (user && !kind) return `twitter://user?screen_name=${enc(user)}`
      return 'twitter://'
    },
  },
  {
    hosts: /^(?:(?:www|m|web)\.)?facebook\.com$|^fb\.com$|^fb\.me$/,
    android: 'com.facebook.katana',
    ios: (u) => `fb://facewebmodal/f?href=${enc(u.href)}`,
  },
  {
    hosts: /^(?:(?:www|m|vm|vt)\.)?tiktok\.com$/,
    android: 'com.zhiliaoapp.musically',
    ios: (u) => u.href, // TikTok opens its own links as universal links
  },
  {
    hosts: /^(?:(?:www|[a-z]{2})\.)?linkedin\.com$|^lnkd\.in$/,
    android: 'com.linkedin.android',
    ios: (u) => {
      const [kind, name] = pathOf(u)
      if (kind === 'in' && name) return `linkedin://in/${enc(name)}`
      if (kind === 'company' && name) return `linkedin://company/${enc(name)}`
      return u.href
    },
  },
  {
    hosts: /^(?:(?:www|smile)\.)?amazon\.(?:com|ca|de|fr|it|es|nl|se|pl|in|co\.uk|co\.jp|com\.au|com\.br|com\.mx|com\.tr|ae|sa|sg|eg)$|^amzn\.(?:to|eu)$|^a\.co$/,
    android: 'com.amazon.mShop.android.shopping',
    ios: (u) => `com.amazon.mobile.shopping.web://${u.hostname.replace(/^(?:www|smile)\./, '')}${u.pathname}${u.search}`,
  },
  {
    hosts: /^(?:www\.)?pinterest\.[a-z.]+$|^pin\.it$/,
    android: 'com.pinterest',
    ios: (u) => u.href,
  },
  {
    hosts: /^(?:(?:www|old|new)\.)?reddit\.com$|^redd\.it$/,
    android: 'com.reddit.frontpage',
    ios: (u) => u.href,
  },
  {
    hosts: /^(?:www\.)?twitch\.tv$/,
    android: 'tv.twitch.android.app',
    ios: (u) => `twitch://open?url=${enc(u.href)}`,
  },
  {
    hosts: /^t\.me$|^telegram\.me$/,
    android: 'org.telegram.messenger',
    ios: (u) => {
      const name = pathOf(u)[0]
      return name && /^[A-Za-z0-9_]{3,64}$/.test(name) ? `tg://resolve?domain=${name}` : null
    },
  },
  {
    hosts: /^wa\.me$|^(?:api|www)\.whatsapp\.com$/,
    android: 'com.whatsapp',
    ios: (u) => {
      const phone = u.hostname === 'wa.me' ? pathOf(u)[0] : u.searchParams.get('phone')
      const text = u.searchParams.get('text')
      const params = [phone && /^\d{5,20}$/.test(phone) ? `phone=${phone}` : '', text ? `text=${enc(text)}` : ''].filter(Boolean)
      return `whatsapp://send${params.length ? `?${params.join('&')}` : ''}`
    },
  },
  {
    hosts: /^(?:www\.)?snapchat\.com$/,
    android: 'com.snapchat.android',
    ios: (u) => u.href,
  },
]

/** An Android intent URL for the https link in `pkg`, with the web page as the fallback when it fits. */
function intentUrl(u: URL, pkg: string): string {
  const base = `intent://${u.host}${u.pathname}${u.search}#Intent;scheme=${u.protocol.replace(':', '')};package=${pkg};`
  const withFallback = `${base}S.browser_fallback_url=${enc(u.href)};end`
  return withFallback.length <= MAX_URL_LENGTH ? withFallback : `${base}end`
}

/** Derived app links for a long URL, or nulls when its host has no known app. */
export function deriveDeepLink(longUrl: string): DerivedDeepLink {
  let u: URL
  try {
    u = new URL(longUrl)
  } catch {
    return { apple: null, google: null }
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return { apple: null, google: null }
  const host = u.hostname.toLowerCase().replace(/\.$/, '')
  const app = APPS.find((a) => a.hosts.test(host))
  if (!app) return { apple: null, google: null }
  const apple = app.ios(u)
  const google = intentUrl(u, app.android)
  return {
    apple: apple && apple.length <= MAX_URL_LENGTH ? apple : null,
    google: google.length <= MAX_URL_LENGTH ? google : null,
  }
}
