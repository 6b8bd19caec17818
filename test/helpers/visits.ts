import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import { expect, vi } from 'vitest'
import { count, eq } from 'drizzle-orm'
import { clicks, links } from '../../src/db/schema/index.js'
import type { TestApp } from './app.js'
import { UA } from '../redirect/user-agents.js'

/* Visiting short links through app.inject, and what a visit's answer must look like. */

export interface VisitOptions {
  host?: string
  headers?: Record<string, string>
  method?: InjectOptions['method']
  form?: Record<string, string>
  remoteAddress?: string
}

/**
 * A visit answered at `at` from a German iPhone unless told otherwise, expected to redirect (only
 * Date is faked: the click writer's flush timers stay real). The statistics tests place clicks in time with it.
 */
export async function visitAt(t: TestApp, at: string, path: string, o: { ip: string; ua?: string; referer?: string }) {
  vi.useFakeTimers({ toFake: ['Date'] })
  vi.setSystemTime(new Date(at))
  const headers: Record<string, string> = { 'user-agent': o.ua ?? UA.iPhone, 'accept-language': 'de-DE,de;q=0.9' }
  if (o.referer) headers.referer = o.referer
  const res = await visit(t, path, { remoteAddress: o.ip, headers })
  vi.useRealTimers()
  expect(res.statusCode, res.body).toBe(302)
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
