import type { Plan, User } from '../../accounts/types.js'
import type { CountedFeature } from '../../db/schema/plans.js'
import { featureCap, hasFeature } from '../../accounts/plan-rules.js'

/** One capped thing: how many the account has and the plan's cap (0: no cap, as in a plan's `limits`). */
export interface Allowance {
  used: number
  limit: number
}

/** A counted feature (SPEC.md Plan): whether the plan includes it, then as an allowance. */
export interface CountedAllowance extends Allowance {
  enabled: boolean
}

export interface AccountUsage {
  plan: { id: number; name: string }
  links: Allowance
  /** detailed clicks recorded in `month` (UTC), against the plan's monthly `clicks` */
  clicks: Allowance & { month: string }
  /** days of click detail kept (0: forever) */
  retention: number
  domain: CountedAllowance
  pixels: CountedAllowance
  splash: CountedAllowance
  overlay: CountedAllowance
}

/** What usage.ts counted, by the name of its allowance. */
export type UsageCounts = Record<'links' | 'clicks' | 'domain' | 'pixels' | 'splash' | 'overlay', number>

/** The answer of GET /api/account/usage: the counts against the plan's caps (an admin has none). */
export function presentUsage(user: Pick<User, 'admin'> & { plan: Plan }, month: string, n: UsageCounts): AccountUsage {
  const plan = user.plan
  const cap = (limit: number) => (user.admin ? 0 : limit)
  const feature = (f: CountedFeature, used: number): CountedAllowance => ({
    enabled: hasFeature(user, plan, f),
    used,
    limit: featureCap(user, plan, f),
  })
  return {
    plan: { id: plan.id, name: plan.name },
    links: { used: n.links, limit: cap(plan.maxLinks) },
    clicks: { month, used: n.clicks, limit: cap(plan.maxClicks) },
    retention: plan.retentionDays,
    domain: feature('domain', n.domain),
    pixels: feature('pixels', n.pixels),
    splash: feature('splash', n.splash),
    overlay: feature('overlay', n.overlay),
  }
}
