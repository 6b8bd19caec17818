import { randomBytes } from 'node:crypto'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import formbody from '@fastify/formbody'
import { z } from 'zod'
import { html, messagePage, sendPage } from '../lib/html.js'
import { hashPassword, verifyPassword } from '../lib/passwords.js'
import { Throttle } from '../lib/throttle.js'
import { MINUTE } from '../lib/time.js'
import { apiKeyOf, findUserByEmail, findUserWithPlan, presentAccount } from '../resources/admin/users.js'
import { SESSION_COOKIE, SESSION_TTL, consumeSsoToken, createSession, endSession, sessionUser } from '../resources/admin/sso.js'

const loginBody = z.object({ email: z.string().max(254).default(''), password: z.string().max(1024).default('') })

const dashboard: FastifyPluginAsync = async (app) => {
  await app.register(formbody)
  const logins = new Throttle('login', 5, 15 * MINUTE, app.redis)
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

  function loginForm(reply: FastifyReply, status: number, error?: string) {
    return sendPage(reply, status, {
      title: 'Sign in · Kurz',
      body: html`<main><h1>Sign in</h1>${error ? html`<p class="error">${error}</p>` : ''}
<form method="post" action="/login">
<p><label>Email<br><input type="email" name="email" required autocomplete="username"></label></p>
<p><label>Password<br><input type="password" name="password" required autocomplete="current-password"></label></p>
<p><button type="submit">Sign in</button></p></form></main>`.value,
    })
  }

  // GET /sso/:token – single-use login URL from GET /api/user/login/:id
  app.get<{ Params: { token: string } }>('/sso/:token', async (req, reply) => {
    // link previewers probe with HEAD; only a real visit may spend the single use
    if (req.method === 'HEAD') return reply.code(200).header('cache-control', 'private, no-store').type('text/html; charset=utf-8').send()
    const userId = await consumeSsoToken(app.db, req.params.token)
    if (!userId) {
      return messagePage(reply, 410, 'Login link expired', 'This login link has already been used or has expired. Ask for a new one.')
    }
    startSession(reply, await createSession(app.db, userId))
    return reply.redirect('/dashboard', 302)
  })

  // GET /login – email and password form
  app.get('/login', async (_req, reply) => loginForm(reply, 200))

  // POST /login – throttled per IP and email before argon2 runs
  app.post('/login', async (req, reply) => {
    const parsed = loginBody.safeParse(req.body ?? {})
    const { email, password } = parsed.success ? parsed.data : { email: '', password: '' }
    const key = `${req.ip}|${email.toLowerCase()}`
    if (await logins.blocked(key)) return loginForm(reply.header('retry-after', 900), 429, 'Too many attempts. Try again in 15 minutes.')
    const user = email ? await findUserByEmail(app.db, email) : undefined
    // an unknown email costs one argon2 verify too, so response time does not tell which emails exist
    const hash = user?.passwordHash ?? (await dummyHash())
    if (!(await verifyPassword(hash, password)) || !user) {
      await logins.fail(key)
      return loginForm(reply, 401, 'Email or password is wrong.')
    }
    await logins.reset(key)
    startSession(reply, await createSession(app.db, user.id))
    return reply.redirect('/dashboard', 302)
  })

  // GET /logout – a sign-out button; signing out on a GET would let any site end a session
  app.get('/logout', async (_req, reply) =>
    sendPage(reply, 200, {
      title: 'Sign out · Kurz',
      body: html`<main><h1>Sign out</h1><form method="post" action="/logout"><button type="submit">Sign out</button></form></main>`.value,
    }),
  )

  // POST /logout – end the session
  app.post('/logout', async (req, reply) => {
    await endSession(app.db, req.cookies[SESSION_COOKIE])
    reply.clearCookie(SESSION_COOKIE, { path: '/' })
    return reply.redirect('/login', 302)
  })

  // GET /dashboard – who is signed in, their plan and API key
  app.get('/dashboard', async (req: FastifyRequest, reply) => {
    const userId = await sessionUser(app.db, req.cookies[SESSION_COOKIE])
    const found = userId ? await findUserWithPlan(app.db, userId) : undefined
    if (!found) return reply.redirect('/login', 302)
    const { user, plan } = found
    const account = presentAccount(user, plan)
    const key = await apiKeyOf(app.db, app.keys, user.id)
    return sendPage(reply, 200, {
      title: 'Dashboard · Kurz',
      body: html`<main><h1>Dashboard</h1>
<p>Signed in as <strong id="username">${user.username}</strong> (<span id="email">${user.email}</span>)${user.admin ? ' · admin' : ''}.</p>
<table>
<tr><th>Plan</th><td id="plan">${plan.name}</td></tr>
<tr><th>Status</th><td id="status">${account.status}</td></tr>
<tr><th>Plan expires</th><td>${account.expires ?? 'never'}</td></tr>
<tr><th>Registered</th><td>${account.registered}</td></tr>
<tr><th>API key</th><td><code id="apikey">${key ?? ''}</code></td></tr>
</table>
<p class="muted">Use the key as <code>Authorization: Bearer &lt;key&gt;</code> on ${app.config.publicUrl}/api/.</p>
<form method="post" action="/logout"><button type="submit">Sign out</button></form></main>`.value,
    })
  })
}
export default dashboard
