import { createHash, createHmac } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { safeEqual } from '../lib/crypto.js'
import { DAY } from '../lib/time.js'
import { readCookie } from '../http/cookies.js'

/**
 * The cookie a right password earns (DECISIONS §5 step 4): per link and purpose (`link` opens the
 * link, `stats` its statistics page), valid 24 h, signed with HMAC(app.keys.cookie). The signature
 * covers the link id, the purpose, the expiry and a fingerprint of the current password hash, so
 * a cookie copied to another link, altered, expired, or issued before a password change opens
 * nothing.
 */
export type UnlockKind = 'link' | 'stats'

export const UNLOCK_TTL = DAY

export const unlockCookieName = (kind: UnlockKind, linkId: number) => `kurz_${kind === 'link' ? 'pw' : 'st'}_${linkId}`

const fingerprint = (passwordHash: string) => createHash('sha256').update(passwordHash).digest('base64url').slice(0, 16)

function signature(key: Buffer, kind: UnlockKind, linkId: number, passwordHash: string, expires: number): string {
  return createHmac('sha256', key).update(`unlock|${kind}|${linkId}|${expires}|${fingerprint(passwordHash)}`).digest('base64url')
}

export function unlockValue(key: Buffer, kind: UnlockKind, linkId: number, passwordHash: string, now: number): string {
  const expires = Math.floor((now + UNLOCK_TTL) / 1000)
  return `${expires}.${signature(key, kind, linkId, passwordHash, expires)}`
}

export function isUnlocked(key: Buffer, kind: UnlockKind, linkId: number, passwordHash: string, value: string | undefined, now: number): boolean {
  if (!value || value.length > 200) return false
  const m = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(value)
  if (!m) return false
  const expires = Number(m[1])
  if (expires * 1000 <= now) return false
  return safeEqual(m[2], signature(key, kind, linkId, passwordHash, expires))
}

export function hasUnlock(req: FastifyRequest, key: Buffer, kind: UnlockKind, linkId: number, passwordHash: string, now: number): boolean {
  return isUnlocked(key, kind, linkId, passwordHash, readCookie(req, unlockCookieName(kind, linkId)), now)
}

/** Only on the password posts: their scope registers @fastify/cookie (a visit carries none). */
export function setUnlock(reply: FastifyReply, req: FastifyRequest, key: Buffer, kind: UnlockKind, linkId: number, passwordHash: string, now: number) {
  reply.setCookie(unlockCookieName(kind, linkId), unlockValue(key, kind, linkId, passwordHash, now), {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    // behind a TLS-terminating proxy the request may arrive as http; PUBLIC_URL says what visitors use
    secure: req.protocol === 'https' || req.server.config.secure,
    maxAge: UNLOCK_TTL / 1000,
  })
}
