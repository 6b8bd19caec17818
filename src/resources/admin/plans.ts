import { asc, eq } from 'drizzle-orm'
import { z } from 'zod'
import type { Plan } from '../../accounts/types.js'
import type { Db, Tx } from '../../db/client.js'
import { conflict, isUniqueViolation } from '../../http/errors.js'
import { boolish, name as nameField, optional } from '../../http/fields.js'
import { COUNTED_FEATURES, FEATURES, plans, type PlanFeatures } from '../../db/schema/index.js'

export type { Plan }

export function allFeatures(enabled: '0' | '1', count: string, overrides: Partial<PlanFeatures> = {}): PlanFeatures {
  const out = {} as PlanFeatures
  for (const f of FEATURES) {
    out[f] = (COUNTED_FEATURES as readonly string[]).includes(f) ? { enabled, count } : { enabled }
  }
  return { ...out, ...overrides }
}

/** DECISIONS §3: the two plans every installation starts with. */
export const SEED_PLANS = [
  {
    name: 'Free',
    free: true,
    isDefault: true,
    maxLinks: 1000,
    maxClicks: 0,
    retentionDays: 90,
    features: allFeatures('1', '5', { team: { enabled: '0', count: '5' }, multiple: { enabled: '0' } }),
  },
  {
    name: 'Pro',
    free: false,
    isDefault: false,
    priceMonthly: 9.99,
    priceYearly: 99,
    priceLifetime: 299,
    maxLinks: 0,
    maxClicks: 0,
    retentionDays: 730,
    features: allFeatures('1', '0'),
  },
]

/** Inserts the seed plans once; a second instance starting at the same time inserts nothing. */
export async function seedPlans(db: Db): Promise<void> {
  const existing = await db.select({ id: plans.id }).from(plans).limit(1)
  if (existing.length) return
  await db.insert(plans).values(SEED_PLANS).onConflictDoNothing()
}

export const listPlans = (db: Db) => db.select().from(plans).orderBy(asc(plans.id))

export async function findPlan(db: Db | Tx, id: number): Promise<Plan | undefined> {
  const [row] = await db.select().from(plans).where(eq(plans.id, id))
  return row
}

/** SPEC.md Plan shape. */
export function presentPlan(p: Plan) {
  return {
    id: p.id,
    name: p.name,
    free: p.free,
    prices: p.free
      ? null
      : { monthly: Number(p.priceMonthly ?? 0), yearly: Number(p.priceYearly ?? 0), lifetime: Number(p.priceLifetime ?? 0) },
    limits: { links: p.maxLinks, clicks: p.maxClicks, retention: p.retentionDays, ...p.features },
  }
}


const price = (field: string) =>
  z.preprocess((v) => (typeof v === 'string' && v.trim() !== '' ? Number(v) : v), z.number({ message: `${field} must be a number.` }).min(0, `${field} must not be negative.`).max(1_000_000, `${field} is too large.`))
const limitNumber = (field: string) =>
  z.number({ message: `${field} must be a whole number.` }).int(`${field} must be a whole number.`).min(0, `${field} must not be negative (0 means unlimited).`).max(2 ** 31 - 1, `${field} is too large.`)
const featureSwitch = (f: string) =>
  z.object({
    enabled: boolish(`limits.${f}.enabled`).transform((b) => (b ? '1' : '0') as '0' | '1'),
    count: optional(z.union([z.string().regex(/^\d{1,9}$/, `limits.${f}.count must be a number.`), z.number().int().min(0).max(999_999_999)]).transform(String)),
  })

/** Body of the plan extension endpoints and `plans:create` / `plans:update`. */
export const planInput = z.object({
  name: nameField('name'),
  free: optional(boolish('free')),
  default: optional(boolish('default')),
  prices: optional(z.object({ monthly: optional(price('prices.monthly')), yearly: optional(price('prices.yearly')), lifetime: optional(price('prices.lifetime')) })),
  limits: optional(
    z.object({
      links: optional(limitNumber('limits.links')),
      clicks: optional(limitNumber('limits.clicks')),
      retention: optional(limitNumber('limits.retention')),
      ...Object.fromEntries(FEATURES.map((f) => [f, optional(featureSwitch(f))])),
    }),
  ),
})
export type PlanInput = z.output<typeof planInput>

/** Turns planInput into column values; with `base`, unspecified parts keep the base plan's. */
export function planValues(input: Partial<PlanInput>, base?: Plan) {
  const features = { ...(base?.features ?? allFeatures('0', '0')) } as PlanFeatures
  const limits = (input.limits ?? {}) as Record<string, unknown>
  for (const f of FEATURES) {
    const sw = limits[f] as { enabled: '0' | '1'; count?: string } | undefined
    if (!sw) continue
    features[f] = (COUNTED_FEATURES as readonly string[]).includes(f) ? { enabled: sw.enabled, count: sw.count ?? features[f]?.count ?? '0' } : { enabled: sw.enabled }
  }
  // a new plan that names no price above 0 is free unless it says otherwise (a "pro" plan costing nothing misleads)
  const priced = Object.values(input.prices ?? {}).some((p) => typeof p === 'number' && p > 0)
  const free = input.free ?? base?.free ?? !priced
  return {
    name: input.name ?? base?.name ?? 'Plan',
    free,
    priceMonthly: input.prices?.monthly ?? base?.priceMonthly ?? (free ? null : 0),
    priceYearly: input.prices?.yearly ?? base?.priceYearly ?? (free ? null : 0),
    priceLifetime: input.prices?.lifetime ?? base?.priceLifetime ?? (free ? null : 0),
    maxLinks: (limits.links as number | undefined) ?? base?.maxLinks ?? 0,
    maxClicks: (limits.clicks as number | undefined) ?? base?.maxClicks ?? 0,
    retentionDays: (limits.retention as number | undefined) ?? base?.retentionDays ?? 0,
    features,
  }
}

/** Creates or updates a plan; `default: true` moves the default flag here (one default at a time). */
export async function savePlan(db: Db, input: Partial<PlanInput>, id?: number): Promise<Plan | undefined> {
  try {
    return await writePlan(db, input, id)
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict('A plan with that name already exists.', 'name')
    throw err
  }
}

function writePlan(db: Db, input: Partial<PlanInput>, id?: number): Promise<Plan | undefined> {
  return db.transaction(async (tx) => {
    const base = id ? await findPlan(tx, id) : undefined
    if (id && !base) return undefined
    if (input.default) await tx.update(plans).set({ isDefault: false })
    const values = { ...planValues(input, base), ...(input.default !== undefined ? { isDefault: input.default } : {}) }
    const [row] = id
      ? await tx.update(plans).set(values).where(eq(plans.id, id)).returning()
      : await tx.insert(plans).values(values).returning()
    return row
  })
}
