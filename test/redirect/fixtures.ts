import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import { expect } from 'vitest'
import { count, eq } from 'drizzle-orm'
import { clicks, linkPixels, links, linkTargets, type TargetKind } from '../../src/db/schema/index.js'
import { hashPassword } from '../../src/lib/passwords.js'
import type { TestApp, TestUser } from '../helpers/app.js'

/** Creates a link through the management API and returns its id. */
export async function addLink(u: TestUser, body: Record<string, unknown>): Promise<number> {
  const res = await u.api.post('/api/url/add', body)
  if (res.statusCode !== 200) throw new Error(`POST /api/url/add ${res.statusCode} ${res.body}`)
  return res.json().id as number
}

/** Creates a link through the v1 interface (form-encoded), for v1-only fields. */
export async function addV1Link(t: TestApp, u: TestUser, form: Record<string, string>): Promise<number> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/links',
    headers: { authorization: `Bearer ${u.key}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    payload: new URLSearchParams(form).toString(),
  })
  if (res.statusCode !== 201) throw new Error(`POST /api/v1/links ${res.statusCode} ${res.body}`)
  return res.json().data.id as number
}

export interface InsertLink extends Partial<typeof links.$inferInsert> {
  password?: string
  targets?: { kind: TargetKind; key?: string; match?: string; url: string }[]
  pixelIds?: number[]
}

/** Inserts a link row directly (states the interfaces cannot create, such as an already-expired link). */
export async function insertLink(t: TestApp, userId: number, o: InsertLink): Promise<typeof links.$inferSelect> {
  const { password, targets, pixelIds, ...values } = o
  const [row] = await t.app.db
    .insert(links)
    .values({ alias: `l${Math.random().toString(36).slice(2, 10)}`, url: 'https://example.com/', ...values, userId, passwordHash: password ? await hashPassword(password) : values.passwordHash })
    .returning()
  if (targets?.length) {
    await t.app.db.insert(linkTargets).values(
      targets.map((x, i) => ({ linkId: row.id, kind: x.kind, key: x.key ?? x.match ?? null, match: x.match ?? null, url: x.url, position: i })),
    )
  }
  if (pixelIds?.length) await t.app.db.insert(linkPixels).values(pixelIds.map((pixelId) => ({ linkId: row.id, pixelId })))
  await t.app.linkCache.invalidate(row.id)
  return row
}

export interface VisitOptions {
  host?: string
  headers?: Record<string, string>
  method?: InjectOptions['method']
  form?: Record<string, string>
  remoteAddress?: string
}

/** One visit through app.inject: GET unless told, form-encoded body for POST. */
export function visit(t: TestApp, path: string, o: VisitOptions = {}): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { host: o.host ?? 'kurz.test', ...o.headers }
  if (o.form) headers['content-type'] = 'application/x-www-form-urlencoded'
  return t.app.inject({
    method: o.method ?? (o.form ? 'POST' : 'GET'),
    url: path,
    headers,
    payload: o.form ? new URLSearchParams(o.form).toString() : undefined,
    remoteAddress: o.remoteAddress,
  })
}

export async function clickRows(t: TestApp, linkId: number): Promise<number> {
  await t.app.clicks.flush()
  const [{ n }] = await t.app.db.select({ n: count() }).from(clicks).where(eq(clicks.linkId, linkId))
  return n
}

export async function counters(t: TestApp, linkId: number) {
  await t.app.clicks.flush()
  const [row] = await t.app.db
    .select({ clicks: links.clicks, uniqueClicks: links.uniqueClicks, botClicks: links.botClicks, lastRotation: links.lastRotation })
    .from(links)
    .where(eq(links.id, linkId))
  return row
}

/** The redirect answer: status and Location, nothing else needed. */
export function expectRedirect(res: LightMyRequestResponse, status: number, location: string) {
  expect({ status: res.statusCode, location: res.headers.location }).toEqual({ status, location })
}

/** An HTML page with the strict CSP of lib/html.ts. */
export function expectPage(res: LightMyRequestResponse, status: number) {
  expect(res.statusCode).toBe(status)
  expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
  expect(res.headers['content-security-policy']).toMatch(/default-src 'none'/)
  expect(res.headers['content-security-policy']).toMatch(/base-uri 'none'/)
  expect(res.headers['x-content-type-options']).toBe('nosniff')
}

/** Cookie `name=value` pairs from a Set-Cookie answer, ready for a Cookie header. */
export function cookiesOf(res: LightMyRequestResponse): string {
  const set = res.headers['set-cookie']
  const list = Array.isArray(set) ? set : set ? [set] : []
  return list.map((c) => c.split(';')[0]).join('; ')
}
