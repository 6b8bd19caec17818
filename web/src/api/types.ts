/*
 * Response shapes of the JSON API, taken from the server's own presenters and statistics types
 * (type-only imports: nothing of the server is bundled), so the dashboard and the API cannot drift
 * apart silently: a changed presenter fails `npm run typecheck` here. Only the shapes the server
 * builds inline (the session, pagination, v1 list meta) are written out.
 */
import type { presentPlan } from '../../../src/resources/admin/plans.js'
import type { presentAccount, presentUser } from '../../../src/resources/admin/users.js'
import type { presentCampaign } from '../../../src/resources/campaigns/present.js'
import type { presentChannel, presentChannelItem } from '../../../src/resources/channels/present.js'
import type { presentDomain } from '../../../src/resources/domains/present.js'
import type { presentLinkDetails } from '../../../src/resources/links/present.js'
import type { presentOverlay, presentOverlayItem, presentSplash, presentSplashItem } from '../../../src/resources/pages/present.js'
import type { presentPixel } from '../../../src/resources/pixels/present.js'
import type { presentQr } from '../../../src/resources/qr/present.js'
import type { presentV1Link } from '../../../src/resources/v1-links/present.js'
import type { LinkStats, Top } from '../../../src/clicks/stats.js'
import type { CountedFeature, Feature as PlanFeature } from '../../../src/db/schema/plans.js'
import type { StatsSeries } from '../../../src/clicks/series.js'

/** SPEC.md pagination fields of every list's `data`. */
export interface Page {
  result: number
  perpage: number
  currentpage: number
  nextpage: number
  maxpage: number
}
export type ListOf<K extends string, T> = { error: '0'; data: Page & { [key in K]: T[] } }

export type Account = ReturnType<typeof presentAccount>
export type { AccountUsage } from '../../../src/resources/account/present-usage.js'
/** GET /api/session (src/dashboard/index.ts) */
export interface SessionUser extends Account {
  admin: boolean
  /** `features`: what the user may use (every feature for an admin); `counts`: how many of a counted feature, where capped */
  plan: { id: number; name: string; free: boolean; features: PlanFeature[]; counts: Partial<Record<CountedFeature, number>> }
}
export interface Session {
  user: SessionUser
  csrfToken: string
  publicUrl: string
}

export type V1Link = ReturnType<typeof presentV1Link>
export interface V1List {
  data: V1Link[]
  meta: { current_page: number; last_page: number; total: number; per_page: number; from: number | null; to: number | null }
}

export type TopMap = Top
export type LinkStatsSummary = Omit<LinkStats, 'socialCount'> & { socialCount?: Record<string, number> }

/** `details` of GET /api/url/:id?full=1, the form the dashboard always asks for */
export type LinkDetails = Extract<ReturnType<typeof presentLinkDetails>, { alias: string }>
export interface LinkSingle {
  id: number
  details: LinkDetails
  data: LinkStatsSummary
}

/** DECISIONS §10.2 */
export type Stats = StatsSeries
export type StatsSeriesPoint = StatsSeries['series'][number]

export type Domain = ReturnType<typeof presentDomain>
export type Campaign = ReturnType<typeof presentCampaign>
export type Channel = ReturnType<typeof presentChannel>
export type ChannelItem = ReturnType<typeof presentChannelItem>
export type Pixel = ReturnType<typeof presentPixel>
export type Qr = ReturnType<typeof presentQr>
export type SplashItem = ReturnType<typeof presentSplashItem>
export type OverlayItem = ReturnType<typeof presentOverlayItem>
export type Splash = ReturnType<typeof presentSplash>
export type Overlay = ReturnType<typeof presentOverlay>
export type User = ReturnType<typeof presentUser>
export type Plan = ReturnType<typeof presentPlan>
export type Feature = { enabled: '0' | '1'; count?: string }

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
