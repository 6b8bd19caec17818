import { useState, type FormEvent } from 'react'
import { api } from '../api/client'
import type { Feature, Plan } from '../api/types'
import { announce } from '../ui/announce'
import { useAction, useLoad } from '../ui/hooks'
import { AdminsOnly, Badge, ErrorNote, Field, Loading, Modal, PageHead } from '../ui/parts'
import { useSession } from '../session'
import { useRefusal } from '../ui/refusal'

const FEATURES = ['custom', 'team', 'splash', 'overlay', 'pixels', 'domain', 'multiple', 'alias', 'device', 'geo', 'bundle', 'parameters', 'export', 'api'] as const
const COUNTED = ['team', 'splash', 'overlay', 'pixels', 'domain']
const LABELS: Record<string, string> = {
  custom: 'Custom aliases', team: 'Team members', splash: 'Splash pages', overlay: 'CTA overlays', pixels: 'Pixels', domain: 'Branded domains',
  multiple: 'More than one domain', alias: 'Aliases on branded domains', device: 'Device targeting', geo: 'Country targeting', bundle: 'Campaigns', parameters: 'Parameters', export: 'Export', api: 'API access',
}
const limit = (n: number) => (n === 0 ? 'Unlimited' : String(n))
const PERIODS = [
  ['monthly', '/month'],
  ['yearly', '/year'],
  ['lifetime', ' lifetime'],
] as const
const priceLabel = (k: string) => `${k[0].toUpperCase()}${k.slice(1)} price (optional)`
/** The plan form's labels by body name (`limits.links`, `prices.monthly`, `limits.team.count`): an API message names its field by the latter. */
const PLAN_LABELS: Record<string, string> = {
  name: 'Plan name',
  'limits.links': 'Links',
  'limits.clicks': 'Clicks a month',
  'limits.retention': 'Retention (days)',
  ...Object.fromEntries(PERIODS.map(([k]) => [`prices.${k}`, priceLabel(k)])),
  ...Object.fromEntries(FEATURES.flatMap((f) => [[`limits.${f}`, LABELS[f]], [`limits.${f}.count`, `${LABELS[f]} allowed`]])),
}
const money = new Intl.NumberFormat(undefined, { minimumFractionDigits: 0, maximumFractionDigits: 2 })

const hasPrice = (prices: Plan['prices']) => PERIODS.some(([k]) => (prices?.[k] ?? 0) > 0)

/**
 * A plan's prices as people read them: only the prices that are set. The API keeps an unset price
 * as 0, so a 0 is never shown as a price, and a plan without any price costs nothing.
 */
function priceLine(prices: Plan['prices']): string {
  const set = PERIODS.filter(([k]) => (prices?.[k] ?? 0) > 0).map(([k, per]) => `${money.format(prices![k])}${per}`)
  return set.length ? set.join(' · ') : 'Free of charge: no price set'
}

export function PlansPage() {
  const { user } = useSession()
  const plans = useLoad(() => api.get<{ data: Plan[] }>('/api/plans'), [])
  const [editing, setEditing] = useState<Plan | 'new' | null>(null)
  if (!user.admin) return <AdminsOnly />
  return (
    <>
      <PageHead title="Plans">
        <button type="button" onClick={() => setEditing('new')}>New plan</button>
      </PageHead>
      <ErrorNote message={plans.error} onRetry={plans.reload} />
      {plans.loading && !plans.data && <Loading />}
      <div className="grid three">
        {plans.data?.data.map((p) => (
          <section className="card" key={p.id} aria-labelledby={`plan-${p.id}`}>
            <div className="page-head">
              <h2 id={`plan-${p.id}`}>{p.name}</h2>
              <Badge tone={p.free || !hasPrice(p.prices) ? 'plain' : 'good'}>{p.free || !hasPrice(p.prices) ? 'Free' : 'Paid'}</Badge>
            </div>
            <p className="sub">{p.free ? 'Free of charge' : priceLine(p.prices)}</p>
            <p>
              Links: {limit(p.limits.links)} · Clicks: {limit(p.limits.clicks)} · Retention: {p.limits.retention} days
            </p>
            <p className="sub">
              {FEATURES.filter((f) => (p.limits[f] as Feature | undefined)?.enabled === '1')
                .map((f) => LABELS[f])
                .join(', ') || 'No features'}
            </p>
            <button type="button" className="secondary small" onClick={() => setEditing(p)} aria-label={`Edit ${p.name}`}>Edit</button>
          </section>
        ))}
      </div>
      <Modal title={editing === 'new' ? 'New plan' : `Edit ${editing?.name ?? ''}`} open={!!editing} onClose={() => setEditing(null)} wide>
        {editing && <PlanEditor plan={editing === 'new' ? undefined : editing} onDone={() => (setEditing(null), plans.reload())} />}
      </Modal>
    </>
  )
}

function PlanEditor({ plan, onDone }: { plan?: Plan; onDone: () => void }) {
  const [name, setName] = useState(plan?.name ?? '')
  const [free, setFree] = useState(plan?.free ?? false)
  // an unset price is kept as 0 by the API: the form shows it blank, as it was left
  const price = (n: number | undefined) => (n ? String(n) : '')
  const [prices, setPrices] = useState({ monthly: price(plan?.prices?.monthly), yearly: price(plan?.prices?.yearly), lifetime: price(plan?.prices?.lifetime) })
  const [nums, setNums] = useState({ links: String(plan?.limits.links ?? 0), clicks: String(plan?.limits.clicks ?? 0), retention: String(plan?.limits.retention ?? 90) })
  const [features, setFeatures] = useState<Record<string, Feature>>(() =>
    Object.fromEntries(FEATURES.map((f) => [f, (plan?.limits[f] as Feature | undefined) ?? { enabled: '1', ...(COUNTED.includes(f) ? { count: '0' } : {}) }])),
  )
  const save = useAction()
  const refused = useRefusal(save.error, PLAN_LABELS)
  async function submit(e: FormEvent) {
    e.preventDefault()
    const body = {
      name: name.trim(),
      free,
      ...(free ? {} : { prices: { monthly: Number(prices.monthly || 0), yearly: Number(prices.yearly || 0), lifetime: Number(prices.lifetime || 0) } }),
      limits: { links: Number(nums.links), clicks: Number(nums.clicks), retention: Number(nums.retention), ...features },
    }
    if (await save.run(() => (plan ? api.put(`/api/plan/${plan.id}/update`, body) : api.post('/api/plan/add', body)))) {
      announce(plan ? `Plan ${body.name} saved.` : `Plan ${body.name} created.`)
      onDone()
    }
  }
  return (
    <form onSubmit={submit}>
      <div className="row">
        <Field label={PLAN_LABELS.name}>{(id) => <input id={id} {...refused.field('name')} value={name} onChange={(e) => setName(e.target.value)} required />}</Field>
        <label className="check">
          <input type="checkbox" checked={free} onChange={(e) => setFree(e.target.checked)} /> Free plan
        </label>
      </div>
      {!free && (
        <fieldset>
          <legend>Prices (optional)</legend>
          <p className="hint" id="price-hint">
            Fill in the periods you sell; leave the others blank. A plan with no price is shown as free of charge.
          </p>
          <div className="row">
            {(['monthly', 'yearly', 'lifetime'] as const).map((k) => (
              <Field key={k} label={priceLabel(k)}>
                {(id) => <input id={id} {...refused.field(`prices.${k}`, 'price-hint')} type="number" min={0} step="0.01" placeholder="Not sold" value={prices[k]} onChange={(e) => setPrices({ ...prices, [k]: e.target.value })} />}
              </Field>
            ))}
          </div>
        </fieldset>
      )}
      <div className="row">
        <Field label={PLAN_LABELS['limits.links']} hint="0 means unlimited">{(id, hint) => <input id={id} {...refused.field('limits.links', hint)} type="number" min={0} value={nums.links} onChange={(e) => setNums({ ...nums, links: e.target.value })} />}</Field>
        <Field label={PLAN_LABELS['limits.clicks']} hint="0 means unlimited">{(id, hint) => <input id={id} {...refused.field('limits.clicks', hint)} type="number" min={0} value={nums.clicks} onChange={(e) => setNums({ ...nums, clicks: e.target.value })} />}</Field>
        <Field label={PLAN_LABELS['limits.retention']}>{(id) => <input id={id} {...refused.field('limits.retention')} type="number" min={0} value={nums.retention} onChange={(e) => setNums({ ...nums, retention: e.target.value })} />}</Field>
      </div>
      <fieldset>
        <legend>Features</legend>
        <div className="grid two">
          {FEATURES.map((f) => (
            <div key={f} className="row">
              <label className="check">
                <input type="checkbox" {...refused.field(`limits.${f}`)} checked={features[f].enabled === '1'} onChange={(e) => setFeatures({ ...features, [f]: { ...features[f], enabled: e.target.checked ? '1' : '0' } })} /> {LABELS[f]}
              </label>
              {COUNTED.includes(f) && features[f].enabled === '1' && (
                <Field label={PLAN_LABELS[`limits.${f}.count`]} hint="0 means unlimited">
                  {(id, hint) => <input id={id} {...refused.field(`limits.${f}.count`, hint)} type="number" min={0} value={features[f].count ?? '0'} onChange={(e) => setFeatures({ ...features, [f]: { ...features[f], count: e.target.value } })} />}
                </Field>
              )}
            </div>
          ))}
        </div>
      </fieldset>
      <ErrorNote {...refused.note} />
      <div className="actions">
        <button type="submit" disabled={save.busy}>{plan ? 'Save plan' : 'Create plan'}</button>
      </div>
    </form>
  )
}
