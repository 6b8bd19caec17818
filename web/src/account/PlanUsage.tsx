import { api } from '../api/client'
import type { AccountUsage } from '../api/types'
import { FEATURE_WORDS, type Feature } from '../plan'
import { useSession } from '../session'
import { formatNumber } from '../ui/format'
import { useLoad } from '../ui/hooks'
import { ErrorNote, Loading } from '../ui/parts'

type Allowance = { used: number; limit: number; enabled?: boolean }

const monthName = (month: string) => new Date(`${month}-01T00:00:00Z`).toLocaleDateString(undefined, { month: 'long', year: 'numeric', timeZone: 'UTC' })

/** One row: "12 of 1,000" with a meter where the plan caps it, "12, no limit" where not. */
function Row({ label, a }: { label: string; a: Allowance }) {
  const text = a.enabled === false ? 'Not in your plan' : a.limit > 0 ? `${formatNumber(a.used)} of ${formatNumber(a.limit)}` : `${formatNumber(a.used)}, no limit`
  return (
    <>
      <dt>{label}</dt>
      <dd>
        {text}
        {a.enabled !== false && a.limit > 0 && <meter className="usage" min={0} max={a.limit} high={a.limit * 0.9} value={Math.min(a.used, a.limit)} aria-label={`${label}: ${text}`} />}
      </dd>
    </>
  )
}

/**
 * The Account page's "Plan and usage": what the account uses of its plan against each cap
 * (GET /api/account/usage), and the features the plan leaves out (the session's).
 */
export function PlanUsage() {
  const { plan } = useSession().user
  const usage = useLoad(() => api.get<{ data: AccountUsage }>('/api/account/usage'), [])
  const u = usage.data?.data
  const missing = (Object.keys(FEATURE_WORDS) as Feature[]).filter((f) => !plan.features.includes(f)).map((f) => FEATURE_WORDS[f])
  return (
    <section className="card" aria-labelledby="usage-head">
      <h2 id="usage-head">Plan and usage</h2>
      <ErrorNote message={usage.error} onRetry={usage.reload} />
      {usage.loading && !u && <Loading />}
      {u && (
        <dl className="kv usage">
          <Row label="Links" a={u.links} />
          <Row label={`Detailed clicks in ${monthName(u.clicks.month)}`} a={u.clicks} />
          <dt>Click details kept</dt>
          <dd>{u.retention > 0 ? `${formatNumber(u.retention)} days` : 'Forever'}</dd>
          <Row label="Branded domains" a={u.domain} />
          <Row label="Pixels" a={u.pixels} />
          <Row label="Splash pages" a={u.splash} />
          <Row label="CTA overlays" a={u.overlay} />
        </dl>
      )}
      <p className="sub">{missing.length ? `Not in your plan: ${missing.join(', ')}.` : 'Your plan includes every feature.'}</p>
    </section>
  )
}
