/*
 * Response shapes of the JSON API as SPEC.md and DECISIONS.md print them (the server's presenters
 * are their source); kept in this one file so a change of the contract is a change here.
 */

export interface Page {
  result: number
  perpage: number
  currentpage: number
  nextpage: number
  maxpage: number
}
export type ListOf<K extends string, T> = { error: '0'; data: Page & { [key in K]: T[] } }

export interface SessionUser {
  id: number
  email: string
  username: string
  avatar: string
  status: string
  expires: string | null
  registered: string
  admin: boolean
  plan: { id: number; name: string; free: boolean }
}
export interface Session {
  user: SessionUser
  csrfToken: string
  publicUrl: string
}

export interface V1Link {
  id: number
  alias: string
  url: string
  short_url: string
  title: string
  clicks: number
  disabled: number
  password: boolean
  space: { id: number; name: string; color: string } | null
  domain: { id: number; name: string } | null
  ends_at: string | null
  created_at: string
}
export interface V1List {
  data: V1Link[]
  meta: { current_page: number; last_page: number; total: number; per_page: number; from: number | null; to: number | null }
}

export type TopMap = 0 | Record<string, string | number>
export interface LinkStatsSummary {
  clicks: number
  uniqueClicks: number
  topCountries: TopMap
  topReferrers: TopMap
  topBrowsers: TopMap
  topOs: TopMap
  socialCount?: Record<string, number>
}

export interface LinkDetails {
  id: number
  shorturl: string
  longurl: string
  title: string
  description: string
  location: Record<string, string>
  device: Record<string, string>
  expiry: string | null
  date: string
  // with full=1
  alias?: string
  domain?: string | null
  type?: string
  status?: 'public' | 'private'
  password?: boolean
  language?: Record<string, string>
  metatitle?: string
  metadescription?: string
  metaimage?: string
  deeplink?: { auto: boolean; apple: string | null; google: string | null }
  parameters?: { name: string; value: string }[]
  pixels?: number[]
  channels?: number[]
  campaign?: number | null
  uniqueClicks?: number
}
export interface LinkSingle {
  id: number
  details: LinkDetails
  data: LinkStatsSummary
}

/** DECISIONS §10.2 */
export interface StatsSeriesPoint {
  date: string
  clicks: number
  uniqueClicks: number
  botClicks: number
}
export interface Stats {
  from: string
  to: string
  interval: 'day' | 'hour'
  series: StatsSeriesPoint[]
  totals: { clicks: number; uniqueClicks: number; botClicks: number }
  topCountries?: TopMap
  topReferrers?: TopMap
  topBrowsers?: TopMap
  topOs?: TopMap
  topDevices?: TopMap
  topLanguages?: TopMap
}

export interface Domain {
  id: number
  domain: string
  redirectroot: string
  redirect404: string
}
export interface Campaign {
  id: number
  name: string
  public: boolean
  rotator: string | false
  list: string
}
export interface Channel {
  id: number
  name: string
  description: string
  color: string
  starred: boolean
}
export interface ChannelItem {
  type: 'links' | 'bio' | 'qr'
  id: number
  title: string
  preview: string
  link: string
  date: string
}
export interface Pixel {
  id: number
  type: string
  name: string
  tag: string
  date: string
}
export interface Qr {
  id: number
  link: string
  scans: number
  name: string
  date: string
}
export interface SplashItem {
  id: number
  name: string
  date: string
}
export interface OverlayItem {
  id: number
  type: string
  name: string
  date: string
}
export interface Splash extends SplashItem {
  title: string
  message: string
  image: string
  button: string
  countdown: number
}
export interface Overlay extends OverlayItem {
  title: string
  message: string
  button: string
  buttonurl: string
  position: string
  background: string
  color: string
  buttonbackground: string
  buttoncolor: string
  options: string[]
}
export interface Account {
  id: number
  email: string
  username: string
  avatar: string
  status: string
  expires: string | null
  registered: string
}
export interface User extends Account {
  planid: number
  apikey: string
  admin?: boolean
}
export type Feature = { enabled: '0' | '1'; count?: string }
export interface Plan {
  id: number
  name: string
  free: boolean
  prices: { monthly: number; yearly: number; lifetime: number } | null
  limits: { links: number; clicks: number; retention: number } & Record<string, Feature | number>
}

export const PIXEL_TYPES = [
  ['gtmpixel', 'Google Tag Manager'],
  ['gapixel', 'Google Analytics'],
  ['fbpixel', 'Facebook'],
  ['adwordspixel', 'Google Ads'],
  ['linkedinpixel', 'LinkedIn'],
  ['twitterpixel', 'X (Twitter)'],
  ['adrollpixel', 'AdRoll'],
  ['quorapixel', 'Quora'],
  ['pinterest', 'Pinterest'],
  ['bing', 'Bing'],
  ['snapchat', 'Snapchat'],
  ['reddit', 'Reddit'],
  ['tiktok', 'TikTok'],
] as const

export const DEVICES = ['iPhone', 'iPad', 'Android', 'Windows Phone', 'Windows', 'Mac', 'Linux', 'Chrome OS', 'BlackBerry'] as const
