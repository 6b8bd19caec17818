import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import formbody from '@fastify/formbody'
import cookie from '@fastify/cookie'
import { linkStats } from '../clicks/stats.js'
import { toTimestamp } from '../http/format.js'
import { notFoundPage } from '../lib/html.js'
import { isApiPath, notFoundHandler } from '../http/errors.js'
import { BusyError, verifyGuess } from '../lib/passwords.js'
import { Throttle } from '../lib/throttle.js'
import { addressBlock } from '../lib/address-block.js'
import { MINUTE } from '../lib/time.js'
import { safeUrl, withParameters } from '../visit/url.js'
import { answerWhenSpooled } from '../visit/answer.js'
import { MAX_REFERRER, visitorFromRequest, type Visitor } from '../visit/visitor.js'
import { findStatsLink, liveClicks, type ServeDomain, type ServeLink } from './loader.js'
import { isActive, resolve, type Outcome, type VisitContext } from './resolve.js'
import { claimCappedVisit } from './click-cap.js'
import { recordVisit } from './record.js'
import { directPolicy, redirectTo, ROTATOR_POLICY, sendDestination, type DirectPolicy } from './respond.js'
import { visitContext } from './context.js'
import { hasUnlock, setUnlock, type UnlockKind } from './unlock.js'
import { expiredPage, homePage, passwordForm } from './pages/forms.js'
import { quarantinePage } from './pages/quarantine.js'
import { statsPage } from './pages/stats.js'
import { crawlerPage } from './pages/visit.js'

/** Stored aliases are [A-Za-z0-9_-]; anything with other characters can only be a miss. */
const ALIAS = /^[A-Za-z0-9_-]{1,128}$/
const SLUG = /^[A-Za-z0-9_.-]{1,128}$/
const MAX_PASSWORD = 1024
const PASSWORD_WINDOW = 15 * MINUTE

/** The visitor's raw query string, exactly as sent (forwarded without re-encoding). */
function rawQuery(req: FastifyRequest): string {
  const url = req.raw.url ?? ''
  const i = url.indexOf('?')
  return i >= 0 ? url.slice(i + 1) : ''
}

/** The path and query the visitor asked for: where a password form posts back to. */
function selfPath(req: FastifyRequest): string {
  return safeUrl(req.raw.url ?? '/')
}

/** One string form field; repeated or structured values count as absent. */
function formField(body: unknown, name: string): string | undefined {
  if (!body || typeof body !== 'object') return undefined
  const v = (body as Record<string, unknown>)[name]
  return typeof v === 'string' ? v : undefined
}

const schemesOf = new WeakMap<ServeLink, string[]>()

/** The schemes a link can send a visitor to, for the CSP of its password form (never the URLs); once per cached link. */
function destinationSchemes(link: ServeLink): string[] {
  let schemes = schemesOf.get(link)
  if (!schemes) schemesOf.set(link, (schemes = schemesIn(link)))
  return schemes
}

function schemesIn(link: ServeLink): string[] {
  const urls = [link.url, link.deepLink?.apple, link.deepLink?.google, ...link.targets.rotation]
  for (const list of [link.targets.device, link.targets.geo, link.targets.language]) for (const t of list) urls.push(t.url)
  const schemes = new Set<string>()
  for (const u of urls) {
    const m = u ? /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(u) : null
    if (m) schemes.add(`${m[1].toLowerCase()}:`)
  }
  return [...schemes].sort()
}

/**
 * What a visit's functions return: the reply (sent), a promise of it, or undefined when the answer
 * waits for the turn's spool write (visit/answer.ts); only a synchronous handler may return that.
 */
type Answered = FastifyReply | undefined | Promise<FastifyReply>

interface VisitOptions {
  source: 'link' | 'rotator'
  /** the branded domain of the link (short URL of crawler pages) */
  domain: ServeDomain | null
  /** a `direct` answer: the link's status and cache lifetime; 302 uncached for the rotator */
  direct: DirectPolicy
  /** hidden fields of the password form (the rotator's link id) */
  hidden?: Record<string, string>
}

const redirect: FastifyPluginAsync = async (app) => {
  await app.register(formbody, { bodyLimit: 16 * 1024 })
  const linkPasswords = new Throttle('link-password', 5, PASSWORD_WINDOW, app.redis)
  const statsPasswords = new Throttle('stats-password', 5, PASSWORD_WINDOW, app.redis)
  const cache = app.linkCache
  const config = app.config

  const shortUrlOf = (domain: { origin: string } | null, alias: string) => `${domain ? domain.origin : config.publicUrl}/${alias}`
  // one link is served on one domain, so its short URL is worked out once per cached link (only for
  // the pages that show it: a redirect never needs it)
  const shortUrls = new WeakMap<ServeLink, string>()
  const shortUrlOfLink = (domain: { origin: string } | null, link: ServeLink) => {
    let u = shortUrls.get(link)
    if (u === undefined) shortUrls.set(link, (u = shortUrlOf(domain, link.alias)))
    return u
  }
  // shared by every link with the same status and lifetime
  const policyOf = (link: ServeLink) => directPolicy(link, config.redirect.status)

  const record = (req: FastifyRequest, link: ServeLink, visitor: Visitor, source: VisitOptions['source'], rotation?: number) =>
    recordVisit(app.clicks, cache, req.method, link, visitor, source, rotation)

  /**
   * Checks a posted password for a link or its statistics: throttled per IP and link before
   * argon2 runs (5 attempts per 15 minutes, a right one starts afresh; then 429). Returns true when it was right (the
   * cookie is set); otherwise the reply has been sent.
   */
  async function checkPassword(
    req: FastifyRequest,
    reply: FastifyReply,
    kind: UnlockKind,
    linkId: number,
    hash: string,
    hidden: Record<string, string> | undefined,
    schemes: string[] = [],
  ): Promise<boolean> {
    const throttle = kind === 'link' ? linkPasswords : statsPasswords
    const key = `${addressBlock(req.ip)}|${linkId}`
    const form = { action: selfPath(req), purpose: kind, hidden, destinationSchemes: schemes }
    // the attempt is counted before it is checked, so simultaneous guesses cannot all slip in
    if (!(await throttle.take(key))) {
      reply.header('retry-after', Math.ceil(PASSWORD_WINDOW / 1000))
      await passwordForm(reply, 429, { ...form, error: 'Too many wrong passwords. Try again in 15 minutes.' })
      return false
    }
    const answer = formField(req.body, 'password') ?? ''
    let right = false
    try {
      right = answer !== '' && answer.length <= MAX_PASSWORD && (await verifyGuess(hash, answer))
    } catch (err) {
      if (!(err instanceof BusyError)) throw err
      reply.header('retry-after', 5)
      await passwordForm(reply, 503, { ...form, error: 'Too many passwords are being checked right now. Try again in a moment.' })
      return false
    }
    if (!right) {
      await passwordForm(reply, 401, { ...form, error: 'That password is not right.' })
      return false
    }
    await throttle.reset(key)
    setUnlock(reply, req, app.keys.cookie, kind, linkId, hash, Date.now())
    return true
  }

  /**
   * DECISIONS §5 steps 3 to 8 for a found link. Synchronous unless a password is posted or the link
   * is capped by clicks: a cached redirect is answered without a promise or a microtask.
   */
  function serve(req: FastifyRequest, reply: FastifyReply, link: ServeLink, o: VisitOptions): Answered {
    const visitor = visitorFromRequest(req)
    const posted = req.method === 'POST'
    if (posted) {
      // the Referer of a form post is the form itself; the form carried the original one
      visitor.referrer = (formField(req.body, 'ref') ?? '').slice(0, MAX_REFERRER)
    }
    const now = Date.now()
    const unlocked = link.passwordHash ? hasUnlock(req, app.keys.cookie, 'link', link.id, link.passwordHash, now) : false
    // clicks are read again in answer(), after a password check
    const ctx = visitContext(link, visitor, rawQuery(req), unlocked, 0)
    // A posted password is checked only where it would be asked for (an active, locked link), so
    // a disabled or expired link never runs argon2 or counts against the throttle.
    if (posted && link.passwordHash && !ctx.unlocked && isActive(link, liveClicks(link), now)) return unlockAndServe(req, reply, link, o, visitor, ctx)
    return answer(req, reply, link, o, visitor, ctx)
  }

  async function unlockAndServe(req: FastifyRequest, reply: FastifyReply, link: ServeLink, o: VisitOptions, visitor: Visitor, ctx: VisitContext) {
    const keepRef = formField(req.body, 'ref')
    const formHidden = { ...o.hidden, ...(keepRef ? { ref: keepRef } : {}) }
    if (!(await checkPassword(req, reply, 'link', link.id, link.passwordHash!, formHidden, destinationSchemes(link)))) return reply
    ctx.unlocked = true
    return (await answer(req, reply, link, o, visitor, ctx)) ?? reply
  }

  function answer(req: FastifyRequest, reply: FastifyReply, link: ServeLink, o: VisitOptions, visitor: Visitor, ctx: VisitContext): Answered {
    // clicks and time read after the password check: argon2 takes a while and clicks go on
    ctx.clicks = liveClicks(link)
    const outcome = resolve(link, ctx, Date.now())
    // a capped link lets exactly its expiration_clicks human visits through over every instance
    const counted = (outcome.kind === 'go' || outcome.kind === 'crawler') && req.method !== 'HEAD' && !visitor.isBot
    if (counted && link.expirationClicks) {
      return claimCappedVisit(app.db, link, app.log).then((claimed) =>
        claimed ? (respond(req, reply, link, o, visitor, outcome) ?? reply) : link.expirationUrl ? redirectTo(reply, 302, safeUrl(link.expirationUrl)) : expiredPage(reply),
      )
    }
    return respond(req, reply, link, o, visitor, outcome)
  }

  function respond(req: FastifyRequest, reply: FastifyReply, link: ServeLink, o: VisitOptions, visitor: Visitor, outcome: Outcome): FastifyReply | undefined {
    switch (outcome.kind) {
      case 'disabled':
        return notFoundPage(reply)
      case 'quarantined':
        return quarantinePage(reply, shortUrlOf(o.domain, link.alias))
      case 'expired':
        return outcome.url ? redirectTo(reply, 302, safeUrl(outcome.url)) : expiredPage(reply)
      case 'password': {
        const hidden = { ...o.hidden, ...(visitor.referrer ? { ref: visitor.referrer } : {}) }
        return passwordForm(reply, 200, { action: selfPath(req), purpose: 'link', hidden, destinationSchemes: destinationSchemes(link) })
      }
      case 'crawler':
        record(req, link, visitor, o.source)
        return answerWhenSpooled(app.clicks, reply, () => crawlerPage(reply, link, shortUrlOf(o.domain, link.alias), withParameters(link.url, '', link.parameters)))
      case 'go':
        record(req, link, visitor, o.source, outcome.rotation)
        return answerWhenSpooled(app.clicks, reply, () => sendDestination(reply, link, outcome.url, o.direct, o.domain, shortUrlOfLink))
    }
  }

  /** `/<alias>`: DECISIONS §5 steps 1 and 2, then serve; from the cache without a promise. */
  function visit(req: FastifyRequest<{ Params: { alias: string } }>, reply: FastifyReply): Answered {
    const alias = req.params.alias
    // `/API`, `/api%2Furls`: an API client that spelled a path differently gets the JSON 404, not a page
    if (isApiPath(`/${alias}`)) return notFoundHandler(req, reply)
    if (alias.endsWith('+')) return statistics(req, reply, alias.slice(0, -1))
    const domain = cache.domainFor(req.host)
    return domain instanceof Promise ? domain.then(async (d) => (await visitOn(req, reply, alias, d)) ?? reply) : visitOn(req, reply, alias, domain)
  }

  function visitOn(req: FastifyRequest, reply: FastifyReply, alias: string, domain: ServeDomain | null): Answered {
    const link = ALIAS.test(alias) ? cache.byAlias(domain?.id ?? null, alias) : null
    return link instanceof Promise ? link.then(async (l) => (await found(req, reply, l, domain)) ?? reply) : found(req, reply, link, domain)
  }

  function found(req: FastifyRequest, reply: FastifyReply, link: ServeLink | null, domain: ServeDomain | null): Answered {
    if (!link) return domain?.redirect404 ? redirectTo(reply, 302, safeUrl(domain.redirect404)) : notFoundPage(reply)
    return serve(req, reply, link, { source: 'link', domain, direct: policyOf(link) })
  }

  /**
   * `/<alias>+`: public links show their statistics, privacy 2 asks for the stats password, and
   * private, disabled and missing links get the same 404 page (a disabled link is answered as
   * missing everywhere). Read from the database (not the cache), so "private" and "missing" cost
   * the same query.
   */
  async function statistics(req: FastifyRequest, reply: FastifyReply, alias: string) {
    const domain = await cache.domainFor(req.host)
    if (!ALIAS.test(alias)) return notFoundPage(reply)
    const row = await findStatsLink(app.db, domain?.id ?? null, alias)
    const open = row && !row.disabled && (row.privacy === 0 || (row.privacy === 2 && row.hash))
    if (!row || !open) return notFoundPage(reply)
    // the statistics page shows the long URL: not for a link the blocklist matched
    if (row.quarantined) return quarantinePage(reply, shortUrlOf(domain, row.alias))
    if (row.privacy === 2) {
      const unlocked = hasUnlock(req, app.keys.cookie, 'stats', row.id, row.hash!, Date.now())
      if (!unlocked) {
        if (req.method !== 'POST') return passwordForm(reply, 200, { action: selfPath(req), purpose: 'stats' })
        if (!(await checkPassword(req, reply, 'stats', row.id, row.hash!, undefined))) return reply
      }
    }
    const stats = await linkStats(app.db, row)
    return statsPage(
      reply,
      { alias: row.alias, url: row.locked ? null : row.url, title: row.title, shortUrl: shortUrlOf(domain, row.alias), created: toTimestamp(row.createdAt) },
      stats,
    )
  }

  /** `/r/<slug>`: a random active link of the campaign, answered and counted as a visit of it. */
  async function rotator(req: FastifyRequest<{ Params: { slug: string } }>, reply: FastifyReply) {
    const slug = req.params.slug
    if (!SLUG.test(slug)) return notFoundPage(reply)
    const rotation = await cache.rotations.get(slug)
    if (rotation === null) return notFoundPage(reply)
    const now = Date.now()
    const campaignId = rotation.id

    let candidates: number[]
    const posted = req.method === 'POST' ? formField(req.body, 'link') : undefined
    if (posted !== undefined) {
      // the password form of a rotator visit names the link it was shown for
      candidates = /^\d{1,10}$/.test(posted) ? [Number(posted)] : []
    } else {
      candidates = rotation.linkIds
      for (let i = candidates.length - 1; i > 0; i--) {
        const j = Math.floor(Math.random() * (i + 1))
        ;[candidates[i], candidates[j]] = [candidates[j], candidates[i]]
      }
    }
    for (const id of candidates) {
      const link = await cache.byId(id)
      // a quarantined link is passed over: the campaign's visitor gets one of its other links
      if (!link || link.campaignId !== campaignId || link.quarantined || !isActive(link, liveClicks(link), now)) continue
      const domain = link.domainId ? await cache.domainById(link.domainId) : null
      return (await serve(req, reply, link, { source: 'rotator', domain, direct: ROTATOR_POLICY, hidden: { link: String(link.id) } })) ?? reply
    }
    return notFoundPage(reply)
  }

  // GET / – a branded domain's root goes to its redirectroot; otherwise the home page
  app.get('/', async (req, reply) => {
    const domain = await cache.domainFor(req.host)
    if (domain?.redirectRoot) return redirectTo(reply, 302, safeUrl(domain.redirectRoot))
    return homePage(reply, config.publicUrl)
  })

  // GET|HEAD /:alias – visit a short link (or /:alias+, its statistics page)
  app.get<{ Params: { alias: string } }>('/:alias', visit)

  // GET|HEAD /r/:slug – campaign rotator
  app.get<{ Params: { slug: string } }>('/r/:slug', rotator)

  // The password posts set the unlock cookie, so only their scope has the cookie plugin (its onSend
  // hook writes Set-Cookie); no parsing hook, the one cookie a visit checks is read where it is checked.
  await app.register(async (posts) => {
    await posts.register(cookie, { hook: false })
    // POST /:alias – the password form of a link (or of its statistics page)
    posts.post<{ Params: { alias: string } }>('/:alias', visit)
    // POST /r/:slug – the password form of the link a rotator visit landed on
    posts.post<{ Params: { slug: string } }>('/r/:slug', rotator)
  })
}
export default redirect
