import { randomBytes } from 'node:crypto'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import formbody from '@fastify/formbody'
import cookie from '@fastify/cookie'
import { z } from 'zod'
import { html, messagePage, raw, sendPage } from '../lib/html.js'
import { BusyError, hashPassword, verifyGuess } from '../lib/passwords.js'
import { loginCsrf } from '../http/login-csrf.js'
import { Throttle } from '../lib/throttle.js'
import { addressBlock } from '../lib/address-block.js'
import { MINUTE } from '../lib/time.js'
import { findUserByEmail, presentAccount } from '../resources/admin/users.js'
import { findUserWithPlan } from '../accounts/effective-plan.js'
import { unauthorized } from '../http/errors.js'
import { allowedFeatures, featureCounts } from '../accounts/plan-rules.js'
import { csrfTokenFor } from '../http/session-auth.js'
import { appShell, ICON_PATH, sendAsset, sendIcon, SPA_CSP, webRoot } from './static.js'
import { consumeSsoToken, ssoTokenValid } from '../resources/admin/sso.js'
import { SESSION_COOKIE, SESSION_TTL, createSession, endSession, sessionUser } from '../accounts/sessions.js'

/** The sign-in card: off the screen's edges on a phone, fields as wide as the card (lib/html.ts styles the rest). */
const LOGIN_STYLE = `main.login{max-width:26rem;margin:3rem auto;padding:2rem}
main.login input:not([type=hidden]),main.login button{width:100%;box-sizing:border-box}
main.login label{display:block;font-weight:600}main.login input{margin-top:.3rem;font-weight:400}
main.login .notice{background:#ecfdf5;color:#065f46;border-radius:8px;padding:.65rem .9rem}
@media (prefers-color-scheme:dark){main.login .notice{background:#12362b;color:#a7f3d0}}
@media (max-width:30rem){main.login{margin:1rem .75rem;padding:1.25rem}}`

/** What the sign-in page says when it was sent there on purpose (?done=…): nothing else shows. */
const NOTICES: Record<string, string> = {
  password: 'Your password was changed and every session was signed out. Sign in with the new password.',
}

const loginBody = z.object({ email: z.string().max(254).default(''), password: z.string().max(1024).default(''), csrf: z.string().max(128).optional() })

/**
 * Failed sign-ins an address (an IPv6 /64) may make in 15 minutes, whatever the emails: the budget
 * per address and email alone let one address try a few passwords on each of thousands of emails.
 * An office behind one NAT with a hundred people fails a few times in a bad quarter hour; each
 * email adds 5 at most, so this takes six accounts' full budgets, and leaves a sprayer 2,880
 * guesses a day per address where it had no bound.
 */
const ADDRESS_FAILURES = 30

/** Where signing in lands without a page to return to (the app opens the link list there). */
const LANDING = '/dashboard'
const BASE = 'http://kurz.invalid'

/**
 * The dashboard page a sign-in may return to (`next`), or undefined: only a path of /dashboard on
 * this origin, never an open redirect. No `//` (another host), no backslash (browsers read it as
 * a slash), no control characters or spaces, and the URL parser's own reading of it must be the
 * path as given, so a dot segment (`..`, `%2e%2e`) cannot climb out of /dashboard nor a scheme or
 * a fragment slip in.
 */
function dashboardPath(next: unknown): string | undefined {
  if (typeof next !== 'string' || next.length > 2048) return undefined
  if (!/^\/dashboard(?:[/?]|$)/.test(next) || next.includes('//') || next.includes('\\') || /[\x00-\x20\x7f]/.test(next)) return undefined
  let url: URL
  try {
    url = new URL(next, BASE)
  } catch {
    return undefined
  }
  return url.origin === BASE && url.pathname + url.search === next ? next : undefined
}

/** `next` of a query or form body: one string value, else none. */
const nextOf = (fields: unknown) => dashboardPath(fields && typeof fields === 'object' ? (fields as Record<string, unknown>).next : undefined)

const dashboard: FastifyPluginAsync<{ webRoot?: string }> = async (app, opts) => {
  const root = opts.webRoot ?? webRoot()
  await app.register(formbody)
  // sessions and the login form's CSRF cookie: parsed for this plugin's routes only, never on a visit
  await app.register(cookie)
  const logins = new Throttle('login', 5, 15 * MINUTE, app.redis)
  const fromAddress = new Throttle('login-address', ADDRESS_FAILURES, 15 * MINUTE, app.redis)
  let dummy: Promise<string> | undefined
  const dummyHash = () => (dummy ??= hashPassword(randomBytes(16).toString('hex')))

  function startSession(reply: FastifyReply, token: string) {
    reply.setCookie(SESSION_COOKIE, token, {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: app.config.secure,
      maxAge: SESSION_TTL / 1000,
    })
  }

  const csrf = loginCsrf(app)

  /**
   * The sign-in form; after a refusal it keeps the email typed (escaped like every value) and puts
   * the cursor in the password field. The page to return to rides in a hidden field, checked again
   * when it comes back. Its own few rules keep the card off the screen's edges and its fields as
   * wide as the card on a phone.
   */
  function loginForm(reply: FastifyReply, status: number, o: { error?: string; email?: string; next?: string; notice?: string } = {}) {
    const { error, email = '', next, notice } = o
    const token = csrf.issue(reply.request, reply)
    return sendPage(reply, status, {
      title: 'Sign in · Kurz',
      head: html`<link rel="icon" href="${ICON_PATH}" type="image/svg+xml"><style>${raw(LOGIN_STYLE)}</style>`.value,
      body: html`<main class="login"><h1>Sign in</h1>${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}${error ? html`<p class="error" role="alert">${error}</p>` : ''}
<form method="post" action="/login">${token ? html`<input type="hidden" name="csrf" value="${token}">` : ''}${next ? html`<input type="hidden" name="next" value="${next}">` : ''}
<p><label>Email<br><input type="email" name="email" value="${email}" required autocomplete="username"${raw(email ? '' : ' autofocus')}></label></p>
<p><label>Password<br><input type="password" name="password" required autocomplete="current-password"${raw(email ? ' autofocus' : '')}></label></p>
<p><button type="submit">Sign in</button></p></form></main>`.value,
    })
  }

  // GET /sso/:token – single-use login URL from GET /api/user/login/:id
  app.get<{ Params: { token: string } }>('/sso/:token', async (req, reply) => {
    // link previewers probe with HEAD: it says whether the URL still works, and only a real visit spends it
    if (req.method === 'HEAD') {
      const valid = await ssoTokenValid(app.db, req.params.token)
      return reply.code(valid ? 200 : 410).header('cache-control', 'private, no-store').type('text/html; charset=utf-8').send()
    }
    const userId = await consumeSsoToken(app.db, req.params.token)
    if (!userId) {
      return messagePage(reply, 410, 'Login link expired', 'This login link has already been used or has expired. Ask for a new one.')
    }
    startSession(reply, await createSession(app.db, userId))
    return reply.redirect('/dashboard', 302)
  })

  // GET /favicon.svg – Kurz's icon, named by the dashboard's and the sign-in page's <link rel="icon">
  // (browser UI, no interface for a client: left out of the API document like /login)
  app.get(ICON_PATH, { schema: { hide: true } }, async (_req, reply) => sendIcon(reply))

  // GET /login – email and password form; ?next=<dashboard path> is where signing in returns, and
  // ?done=password (the Account page after a password change) says why the session ended
  app.get('/login', async (req, reply) => {
    const done = (req.query as Record<string, unknown>).done
    const notice = typeof done === 'string' && Object.hasOwn(NOTICES, done) ? NOTICES[done] : undefined
    return loginForm(reply, 200, { next: nextOf(req.query), notice })
  })

  // POST /login – refused from other sites; throttled per IP and email, and per address, before argon2 runs
  app.post('/login', async (req, reply) => {
    const parsed = loginBody.safeParse(req.body ?? {})
    const { email, password, csrf: token } = parsed.success ? parsed.data : { email: '', password: '', csrf: undefined }
    const next = nextOf(req.body)
    if (!csrf.accepts(req, token)) return loginForm(reply, 403, { error: 'This sign-in form came from another site or is out of date: sign in again here.', next })
    const throttled = () => loginForm(reply.header('retry-after', 900), 429, { error: 'Too many attempts. Try again in 15 minutes.', email, next })
    const address = addressBlock(req.ip)
    const key = `${address}|${email.toLowerCase()}`
    // counted before it is checked, so simultaneous guesses cannot all slip in; the address is
    // counted only past the email's budget, so one email hammered adds 5 to it, not every refusal
    if (!(await logins.take(key))) return throttled()
    if (!(await fromAddress.take(address))) {
      await logins.giveBack(key)
      return throttled()
    }
    const user = email ? await findUserByEmail(app.db, email) : undefined
    // an unknown email costs one argon2 verify too, so response time does not tell which emails exist
    const hash = user?.passwordHash ?? (await dummyHash())
    let right: boolean
    try {
      right = await verifyGuess(hash, password)
    } catch (err) {
      if (!(err instanceof BusyError)) throw err
      await fromAddress.giveBack(address)
      return loginForm(reply.header('retry-after', 5), 503, { error: 'Too many sign-ins are being checked right now. Try again in a moment.', email, next })
    }
    if (!right || !user) return loginForm(reply, 401, { error: 'Email or password is wrong.', email, next })
    // the address keeps its failures: a sprayer's own account must not wipe them
    await Promise.all([logins.reset(key), fromAddress.giveBack(address)])
    startSession(reply, await createSession(app.db, user.id))
    return reply.redirect(next ?? LANDING, 302)
  })

  const logoutPage = (reply: FastifyReply, status: number, note?: string) =>
    sendPage(reply, status, {
      title: 'Sign out · Kurz',
      body: html`<main><h1>Sign out</h1>${note ? html`<p class="error" role="alert">${note}</p>` : ''}<form method="post" action="/logout"><button type="submit">Sign out</button></form></main>`.value,
    })

  // GET /logout – a sign-out button; signing out on a GET would let any site end a session
  app.get('/logout', async (_req, reply) => logoutPage(reply, 200))

  // POST /logout – end the session; a post from another site is refused like one to /login (its
  // Lax cookie is not even sent, so it would only clear the browser's copy of a live session)
  app.post('/logout', async (req, reply) => {
    if (!csrf.accepts(req, undefined)) return logoutPage(reply, 403, 'Another site asked to sign you out. Press the button if you meant to.')
    await endSession(app.db, req.cookies[SESSION_COOKIE])
    reply.clearCookie(SESSION_COOKIE, { path: '/' })
    return reply.redirect('/login', 302)
  })

  async function signedIn(req: FastifyRequest) {
    const token = req.cookies[SESSION_COOKIE]
    const userId = await sessionUser(app.db, token)
    const found = userId ? await findUserWithPlan(app.db, userId) : undefined
    return found && token ? { ...found, token } : undefined
  }

  // GET /api/session – who is signed in and the CSRF token their requests carry (cookie only, DECISIONS §10.1);
  // the plan's features and caps let the dashboard lock what the plan lacks before anyone fills it in
  app.get('/api/session', async (req, reply) => {
    reply.header('cache-control', 'private, no-store')
    const found = await signedIn(req)
    if (!found) throw unauthorized('You are not signed in: sign in at /login.')
    const { user, plan, token } = found
    return {
      error: 0,
      user: { ...presentAccount(user, plan), admin: user.admin, plan: { id: plan.id, name: plan.name, free: plan.free, features: allowedFeatures(user, plan), counts: featureCounts(user, plan) } },
      csrfToken: csrfTokenFor(app.keys, token),
      publicUrl: app.config.publicUrl,
    }
  })

  // GET /dashboard/assets/:name – the build's hashed files, public and cached for a year
  app.get<{ Params: { name: string } }>('/dashboard/assets/:name', async (req, reply) => sendAsset(reply, root, req.params.name))

  /** The sign-in form, to return to this dashboard page after (the landing page needs no `next`). */
  const signInFor = (req: FastifyRequest) => {
    const next = dashboardPath(req.url)
    return next && next !== LANDING && next !== `${LANDING}/` ? `/login?next=${encodeURIComponent(next)}` : '/login'
  }

  // GET /dashboard and /dashboard/* – the app shell when signed in, else the sign-in form
  const serveShell = async (req: FastifyRequest, reply: FastifyReply) => {
    if (!(await signedIn(req))) return reply.redirect(signInFor(req), 302)
    const page = await appShell(root)
    if (!page) return messagePage(reply, 503, 'Dashboard not built', 'The dashboard has not been built yet: run npm run build, then start Kurz again.')
    return reply
      .code(200)
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', SPA_CSP)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'strict-origin-when-cross-origin')
      .header('cache-control', 'private, no-store')
      .send(page)
  }
  app.get('/dashboard', serveShell)
  app.get('/dashboard/*', serveShell)
}
export default dashboard
