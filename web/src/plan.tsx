import type { CountedFeature, Feature } from '../../src/db/schema/plans.js'
import { useSession } from './session'

export type { Feature }

/**
 * The plan features (SPEC.md Plan `limits`) in words, for the sentences that say what a plan
 * lacks: the plan's keys ("bundle", "multiple") mean little to someone filling in a form.
 */
export const FEATURE_WORDS: Record<Feature, string> = {
  custom: 'custom aliases',
  alias: 'custom aliases on branded domains',
  domain: 'branded domains',
  multiple: 'more than one branded domain',
  splash: 'splash pages',
  overlay: 'CTA overlays',
  pixels: 'pixels',
  geo: 'targeting by country',
  device: 'targeting by device',
  bundle: 'campaigns',
  parameters: 'parameters',
  export: 'exports',
  api: 'API access',
  team: 'team members',
}

export const lacking = (f: Feature) => `Your plan does not include ${FEATURE_WORDS[f]}.`

/** A counted feature's objects, as a cap names them: "Your plan allows 5 pixels". */
const COUNTED_WORDS: Record<CountedFeature, [one: string, many: string]> = {
  pixels: ['pixel', 'pixels'],
  splash: ['splash page', 'splash pages'],
  overlay: ['CTA overlay', 'CTA overlays'],
  domain: ['branded domain', 'branded domains'],
  team: ['team member', 'team members'],
}

export interface PlanCheck {
  /** the sentence saying the plan lacks `f`, or undefined when it has it (an admin has every feature) */
  locked: (f: Feature) => string | undefined
  /**
   * Whether one more of `f` can be made while `have` exist: the sentence saying why not (the plan
   * lacks it, or its cap is reached), else undefined. `have` unknown (still loading) is no cap yet.
   */
  blocked: (f: Feature, have?: number) => string | undefined
}

/**
 * What the signed-in user's plan allows. The session is read once, when the dashboard starts; the
 * API still decides each request, and a form reads its refusal as before.
 */
export function usePlan(): PlanCheck {
  const { plan } = useSession().user
  const locked = (f: Feature) => (plan.features.includes(f) ? undefined : lacking(f))
  const blocked = (f: Feature, have?: number) => {
    const cap = (plan.counts as Partial<Record<Feature, number>>)[f]
    if (locked(f)) return locked(f)
    if (cap === undefined || have === undefined || have < cap) return undefined
    const [one, many] = COUNTED_WORDS[f as CountedFeature]
    return `Your plan allows ${cap} ${cap === 1 ? one : many}; delete one to make another.`
  }
  return { locked, blocked }
}

/**
 * The note a page shows where its plan lacks `feature`, or (given `have`, how many exist) where
 * its cap is reached; nothing otherwise.
 */
export function PlanNote({ feature, have }: { feature: Feature; have?: number }) {
  const message = usePlan().blocked(feature, have)
  if (!message) return null
  return (
    <p className="note" role="note">
      {message} An administrator can move your account to a plan that {message.startsWith('Your plan allows') ? 'allows more' : 'has it'}.
    </p>
  )
}
