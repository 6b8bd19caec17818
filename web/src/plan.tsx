import type { Feature } from '../../src/db/schema/plans.js'
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

/**
 * What the signed-in user's plan lacks: `locked(f)` is the sentence saying so, or undefined when
 * the plan has `f` (an admin has every feature). The session is read once, when the dashboard
 * starts; the API still decides each request, and a form reads its refusal as before.
 */
export function usePlan(): { locked: (f: Feature) => string | undefined } {
  const { user } = useSession()
  return { locked: (f) => (user.plan.features.includes(f) ? undefined : lacking(f)) }
}

/** The note a page shows where its plan lacks `feature` (nothing when the plan has it). */
export function PlanNote({ feature }: { feature: Feature }) {
  const message = usePlan().locked(feature)
  if (!message) return null
  return (
    <p className="note" role="note">
      {message} An administrator can move your account to a plan that has it.
    </p>
  )
}
