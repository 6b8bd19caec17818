import { expect } from 'vitest'
import { escapeHtml } from '../../src/lib/escape-html.js'
import type { TestApp, TestUser } from '../helpers/app.js'
import { visit } from '../helpers/visits.js'

/* The dry-run (POST /api/url/:id/resolve) and the visit it describes, side by side. */

export interface Visitor {
  ip?: string
  useragent?: string
  language?: string
  query?: string
}

export type DryRun = { status: number; location: string | null; page: string; matched: { kind: string; key: string | null } | null; steps: string[] }

export async function dryRun(u: TestUser, id: number, v: Visitor): Promise<DryRun> {
  const res = await u.api.post(`/api/url/${id}/resolve`, { ...v })
  if (res.statusCode !== 200) throw new Error(`resolve ${res.statusCode} ${res.body}`)
  expect(res.json().error).toBe(0)
  return res.json().data
}

/** The visit the dry-run describes, through the redirect itself. */
export function realVisit(t: TestApp, alias: string, v: Visitor) {
  const headers: Record<string, string> = {}
  if (v.useragent) headers['user-agent'] = v.useragent
  if (v.language) headers['accept-language'] = v.language
  return visit(t, `/${alias}${v.query ? `?${v.query}` : ''}`, { headers, remoteAddress: v.ip })
}

/** Dry-run first (a visit may move a rotation or count toward expiry), then the visit; they must agree. */
export async function expectAgreement(t: TestApp, u: TestUser, id: number, alias: string, v: Visitor): Promise<DryRun> {
  const dry = await dryRun(u, id, v)
  const res = await realVisit(t, alias, v)
  const seen = { status: res.statusCode, location: (res.headers.location as string | undefined) ?? null }
  if (dry.status >= 300 && dry.status < 400) {
    expect(seen, JSON.stringify({ v, dry })).toEqual({ status: dry.status, location: dry.location })
    return dry
  }
  expect(seen.status, JSON.stringify({ v, dry })).toBe(dry.status)
  expect(seen.location).toBeNull()
  const marks: Record<string, RegExp> = {
    password: /name="password"/,
    preview: /property="og:title"/,
    frame: /<iframe/,
    overlay: /<iframe/,
    splash: /http-equiv="refresh"/,
    pixels: /http-equiv="refresh"/,
  }
  if (marks[dry.page]) expect(res.body, dry.page).toMatch(marks[dry.page])
  if (dry.location) expect(res.body).toContain(escapeHtml(dry.location))
  return dry
}
