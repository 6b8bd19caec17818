/**
 * Operator commands: `npm run cli -- <command> [options]`. Same configuration and database as the
 * server (loadConfig, createDb, runMigrations) and the same services as the admin endpoints.
 * Every command prints JSON on stdout; bad input prints a message on stderr and exits 1.
 */
import { randomBytes } from 'node:crypto'
import { realpathSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { eq, sql } from 'drizzle-orm'
import { z } from 'zod'
import { loadConfig, type Config } from './config.js'
import { createDb, type DbHandle } from './db/client.js'
import { runMigrations } from './db/migrate.js'
import { plans } from './db/schema/index.js'
import { zodToApiError, ApiError } from './http/errors.js'
import { email as emailField, password as passwordField, username as usernameField } from './http/fields.js'
import type { Keys } from './lib/crypto.js'
import { deploymentKeys, rotateSecret } from './accounts/deployment-secret.js'
import { findPlan, listPlans, planInput, presentPlan, savePlan, seedPlans, type Plan } from './resources/admin/plans.js'
import { apiKeysOf, createUser, findUserByEmail, listUsers, presentUser, rotateApiKey } from './resources/admin/users.js'
import { assertDataDirFree, ensureDataDir } from './lib/data-lock.js'
import { OPS, OPS_HELP } from './cli/ops.js'
import { IMPORT_HELP, ImportCliError, runImport } from './cli/import.js'
import { BLOCKLIST_HELP, runBlocklistImport } from './cli/blocklist.js'

const HELP = `Kurz operator commands

Usage: npm run cli -- <command> [options]

Commands:
  users:create --email <email> --username <name> [--password <pw>] [--admin] [--plan <id|name>]
                          create a user; prints the user with the generated API key
                          (and the generated password when --password is not given)
  users:list [--filter admin|free|pro] [--email <part>] [--limit <n>] [--page <n>]
                          list users, newest first, with their API keys
  keys:rotate <email>     issue a new API key for that user; the old key stops working
  secret:rotate           change the deployment's secret, keeping every API key working: stop every
                          instance, run it with the current secret and NEW_SECRET_KEY (at least 32
                          characters), then start them with SECRET_KEY set to the new value; with
                          no SECRET_KEY, DATA_DIR/secret.key gets a new generated secret
  plans:list              list plans (same shape as GET /api/plans)
  plans:create --json '<plan>'
                          create a plan; the JSON is the body of POST /api/plan/add, e.g.
                          '{"name":"Team","free":false,"prices":{"monthly":19},"limits":{"links":0,"api":{"enabled":true}}}'
  plans:update <id> --json '<changes>'
                          change a plan; fields not sent keep their values (PUT /api/plan/:id/update)
${OPS_HELP}
${IMPORT_HELP}
${BLOCKLIST_HELP}

Options:
  -h, --help              show this help

The database and secret come from the same environment as the server (DATABASE_URL, or DATA_DIR
for the embedded database, and SECRET_KEY). With the embedded database, stop the server first:
only one process may open DATA_DIR at a time.`

class CliError extends Error {}

function fail(message: string): never {
  throw new CliError(message)
}

function check<T>(schema: z.ZodType<T>, value: unknown): T {
  const r = schema.safeParse(value)
  if (!r.success) fail(zodToApiError(r.error).message)
  return r.data
}

interface Ctx {
  handle: DbHandle
  keys: Keys
  config: Config
  env: Record<string, string | undefined>
}

async function open(config: Config, env: Record<string, string | undefined>): Promise<Ctx> {
  if (config.db.kind === 'pglite') {
    assertDataDirFree(config.dataDir)
    const open = ensureDataDir(config.dataDir)
    if (open) process.stderr.write(`${open}\n`)
  }
  const handle = await createDb(config.db)
  await runMigrations(handle)
  await seedPlans(handle.db)
  return { handle, config, env, keys: await deploymentKeys(handle.db, config) }
}

async function planByRef(ctx: Ctx, ref: string): Promise<Plan> {
  const plan = /^\d{1,10}$/.test(ref)
    ? await findPlan(ctx.handle.db, Number(ref))
    : (await ctx.handle.db.select().from(plans).where(sql`lower(${plans.name}) = lower(${ref})`))[0]
  if (!plan) fail(`No plan "${ref}": see npm run cli -- plans:list.`)
  return plan
}

function parseJsonOption(raw: string | undefined, command: string): unknown {
  if (raw === undefined) fail(`${command} needs --json '{...}' with the plan fields.`)
  let value: unknown
  try {
    value = JSON.parse(raw)
  } catch {
    fail('--json is not valid JSON.')
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) fail(`--json must be a JSON object of plan fields ('{"name":"Team",...}'), not ${Array.isArray(value) ? 'a list' : 'a single value'}.`)
  return value
}

/** A whole-number option, or one sentence naming it and its range. */
function wholeOption(name: string, raw: string, min: number, max: number): number {
  const n = /^\d{1,10}$/.test(raw.trim()) ? Number(raw) : NaN
  if (!(n >= min && n <= max)) fail(`--${name} must be a whole number from ${min} to ${max}.`)
  return n
}

/** node:util parseArgs' refusals, in one line that names the option (its own run over several lines). */
function argsProblem(command: string, err: { code?: string; message?: string }): string {
  const option = /'(-[^']*)'/.exec(err.message ?? '')?.[1]
  if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option) return `${command} has no option ${option} (--help for usage).`
  if (err.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option && /ambiguous/.test(err.message ?? '')) {
    return `${option} needs a value; a value that starts with a dash is written ${option}=<value> (--help for usage).`
  }
  return `${(err.message ?? 'bad arguments').split('\n')[0]} (--help for usage).`
}

type Handler = (ctx: Ctx, positionals: string[], values: Record<string, string | boolean | undefined>) => Promise<unknown>

const COMMANDS: Record<string, { options: Record<string, { type: 'string' | 'boolean' }>; positionals: number; run: Handler }> = {
  'users:create': {
    options: { email: { type: 'string' }, username: { type: 'string' }, password: { type: 'string' }, admin: { type: 'boolean' }, plan: { type: 'string' } },
    positionals: 0,
    async run(ctx, _p, v) {
      if (v.email === undefined) fail('users:create needs --email.')
      if (v.username === undefined) fail('users:create needs --username.')
      const mail = check(emailField('email'), v.email)
      const name = check(usernameField('username'), v.username)
      const generated = v.password === undefined
      const pass = generated ? randomBytes(12).toString('base64url') : check(passwordField('password'), v.password)
      const plan = typeof v.plan === 'string' ? await planByRef(ctx, v.plan) : undefined
      const { user, apiKey } = await createUser(ctx.handle.db, ctx.keys, { email: mail, username: name, password: pass, admin: v.admin === true, planId: plan?.id })
      const [withPlan] = await ctx.handle.db.select().from(plans).where(eq(plans.id, user.planId!))
      return { ...presentUser(user, withPlan ?? null, apiKey), ...(generated ? { password: pass } : {}) }
    },
  },
  'users:list': {
    options: { filter: { type: 'string' }, email: { type: 'string' }, limit: { type: 'string' }, page: { type: 'string' } },
    positionals: 0,
    async run(ctx, _p, v) {
      const filter = v.filter === undefined ? undefined : check(z.enum(['admin', 'free', 'pro'], { message: 'filter must be one of: admin, free, pro.' }), v.filter)
      const limit = typeof v.limit === 'string' ? wholeOption('limit', v.limit, 1, 100_000) : 1000
      const page = typeof v.page === 'string' ? wholeOption('page', v.page, 1, 1_000_000_000) : 1
      const rows = await listUsers(ctx.handle.db, { filter, email: v.email as string | undefined, limit, offset: (page - 1) * limit })
      const keys = await apiKeysOf(ctx.handle.db, ctx.keys, rows.map((r) => r.user.id))
      return rows.map(({ user, plan }) => presentUser(user, plan, keys.get(user.id) ?? null))
    },
  },
  'keys:rotate': {
    options: {},
    positionals: 1,
    async run(ctx, [mail]) {
      const user = await findUserByEmail(ctx.handle.db, mail)
      if (!user) fail(`No user has the email ${mail}.`)
      const apikey = await rotateApiKey(ctx.handle.db, ctx.keys, user.id)
      return { id: user.id, email: user.email, username: user.username, apikey }
    },
  },
  'secret:rotate': {
    options: {},
    positionals: 0,
    async run(ctx) {
      const given = ctx.env.NEW_SECRET_KEY?.trim()
      if (!given && ctx.config.secretKey) fail('secret:rotate needs the new secret in NEW_SECRET_KEY (at least 32 characters), e.g. NEW_SECRET_KEY="$(openssl rand -base64 48)".')
      if (given !== undefined && given !== '' && given.length < 32) fail('NEW_SECRET_KEY must be at least 32 characters.')
      const next = given || randomBytes(48).toString('base64url')
      const done = await rotateSecret(ctx.handle.db, ctx.config, next)
      return {
        rotated: true,
        apiKeys: done.apiKeys,
        ...(done.secretFile ? { secretFile: done.secretFile } : {}),
        next: done.secretFile
          ? `The new secret is in ${done.secretFile}; start the server as before.`
          : "Start every instance (and every later CLI run) with SECRET_KEY set to NEW_SECRET_KEY's value; the old secret is refused from now on.",
      }
    },
  },
  'plans:list': {
    options: {},
    positionals: 0,
    async run(ctx) {
      return (await listPlans(ctx.handle.db)).map(presentPlan)
    },
  },
  'plans:create': {
    options: { json: { type: 'string' } },
    positionals: 0,
    async run(ctx, _p, v) {
      const input = check(planInput, parseJsonOption(v.json as string | undefined, 'plans:create'))
      return presentPlan((await savePlan(ctx.handle.db, input))!)
    },
  },
  'plans:update': {
    options: { json: { type: 'string' } },
    positionals: 1,
    async run(ctx, [id], v) {
      if (!/^\d{1,10}$/.test(id)) fail(`plans:update needs a plan id, not "${id}".`)
      const input = check(planInput.partial(), parseJsonOption(v.json as string | undefined, 'plans:update'))
      const plan = await savePlan(ctx.handle.db, input, Number(id))
      if (!plan) fail(`No plan has the id ${id}: see npm run cli -- plans:list.`)
      return presentPlan(plan)
    },
  },
  import: {
    options: { user: { type: 'string' }, format: { type: 'string' } },
    positionals: 1,
    async run(ctx, [file], v) {
      return runImport(ctx.handle, ctx.config, file, v)
    },
  },
  'blocklist:import': {
    options: { reason: { type: 'string' } },
    positionals: 1,
    async run(ctx, [file], v) {
      return runBlocklistImport(ctx.handle, ctx.config, file, v.reason as string | undefined)
    },
  },
}

interface Io {
  env: Record<string, string | undefined>
  stdout: { write(s: string): unknown }
  stderr: { write(s: string): unknown }
}

/** Runs one command; returns the exit code. Tests call it in process with their own env and streams. */
export async function main(argv: string[], io: Io = { env: process.env, stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  const [command, ...rest] = argv
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    io.stdout.write(HELP + '\n')
    return command === undefined ? 1 : 0
  }
  const ops = Object.hasOwn(OPS, command) ? OPS[command] : undefined
  const spec = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : ops ? { options: {}, positionals: ops.positionals, run: undefined } : undefined
  if (!spec) {
    io.stderr.write(`Unknown command "${command}". Commands: ${[...Object.keys(COMMANDS), ...Object.keys(OPS)].join(', ')} (--help for details).\n`)
    return 1
  }
  let ctx: Ctx | undefined
  try {
    const { values, positionals } = (() => {
      try {
        return parseArgs({ args: rest, options: { ...spec.options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true })
      } catch (err) {
        fail(argsProblem(command, err as { code?: string; message?: string }))
      }
    })()
    if (values.help) {
      io.stdout.write(HELP + '\n')
      return 0
    }
    if (positionals.length !== spec.positionals) {
      fail(spec.positionals ? `${command} takes ${spec.positionals} argument (--help for usage).` : `${command} takes no arguments, got "${positionals.join(' ')}".`)
    }
    const config = loadConfig(io.env)
    let result: unknown
    if (ops) result = await ops.run(config, positionals)
    else {
      ctx = await open(config, io.env)
      result = await spec.run!(ctx, positionals, values as Record<string, string | boolean | undefined>)
    }
    io.stdout.write(JSON.stringify(result, null, 2) + '\n')
    return 0
  } catch (err) {
    if (err instanceof CliError || err instanceof ApiError || err instanceof ImportCliError) io.stderr.write(`Error: ${err.message}\n`)
    else io.stderr.write(`Error: ${(err as Error)?.message ?? String(err)}\n`)
    return 1
  } finally {
    await ctx?.handle.close()
  }
}

// run as a script (npm run cli), not when a test imports main()
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  process.exitCode = await main(process.argv.slice(2))
}
