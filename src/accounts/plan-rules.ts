import { COUNTED_FEATURES, FEATURES, type CountedFeature, type Feature } from '../db/schema/plans.js'
import type { Plan, User } from './types.js'

/**
 * What a plan lets an account use, in one place: the API's refusals (http/auth.ts, link updates),
 * the session the dashboard reads and the usage report all ask these. An admin is never limited.
 */
type Holder = Pick<User, 'admin'>

/** Whether `feature` is switched on in `plan` for `user`. */
export function hasFeature(user: Holder, plan: Plan, feature: Feature): boolean {
  return user.admin || plan.features[feature]?.enabled === '1'
}

/** How many of `feature` `user` may own: the plan's count, 0 meaning no cap. */
export function featureCap(user: Holder, plan: Plan, feature: CountedFeature): number {
  return user.admin ? 0 : Number(plan.features[feature]?.count ?? '0') || 0
}

/** Every feature `user` may use. */
export function allowedFeatures(user: Holder, plan: Plan): Feature[] {
  return FEATURES.filter((f) => hasFeature(user, plan, f))
}

/** The caps on the counted features `user` may use, where the plan sets one. */
export function featureCounts(user: Holder, plan: Plan): Partial<Record<CountedFeature, number>> {
  const caps = COUNTED_FEATURES.map((f) => [f, featureCap(user, plan, f)] as const)
  return Object.fromEntries(caps.filter(([f, n]) => n > 0 && hasFeature(user, plan, f)))
}
