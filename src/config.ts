import { z } from 'zod'

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()))

/**
 * TRUST_PROXY: what Fastify's `trustProxy` takes. A hop count ("1": the proxy in front of Kurz,
 * "2": a CDN and a balancer) or a comma-separated list of proxy addresses/CIDRs
 * ("10.0.0.0/8,127.0.0.1") trusts only what those proxies wrote; `true` believes any
 * X-Forwarded-For, so a client can pick its address (a warning at start says so).
 */
const trustProxyEnv = z
  .string()
  .trim()
  .transform((v, ctx): boolean | number | string => {
    const lower = v.toLowerCase()
    if (['', 'false', '0', 'no', 'off'].includes(lower)) return false
    if (['true', 'yes', 'on'].includes(lower)) return true
    if (/^\d{1,2}$/.test(v)) return Number(v)
    if (/^[0-9a-fA-F:.\/]+(\s*,\s*[0-9a-fA-F:.\/]+)*$/.test(v)) return v.split(',').map((x) => x.trim()).join(',')
    ctx.addIssue({ code: 'custom', message: 'TRUST_PROXY must be a hop count (1 for one proxy), a comma-separated list of proxy addresses, true or false' })
    return z.NEVER
  })

/**
 * CORS_ORIGINS: origins whose browser pages may call /api, comma-separated ("*" for any); each
 * an http(s) origin without a path, compared as the browser sends it (lower-case, no default port).
 */
const corsOriginsEnv = z.string().transform((v, ctx): string[] => {
  const origins: string[] = []
  for (const part of v.split(',').map((p) => p.trim()).filter(Boolean)) {
    if (part === '*') origins.push('*')
    else if (/^https?:\/\/[^/?#@\s]+\/?$/i.test(part) && URL.canParse(part)) origins.push(new URL(part).origin)
    else {
      ctx.addIssue({ code: 'custom', message: `CORS_ORIGINS must be origins such as https://app.example.com (comma-separated) or *; got ${part}` })
      return z.NEVER
    }
  }
  return [...new Set(origins)]
})

function flagEnv(name: string) {
  return z
    .string()
    .trim()
    .transform((v, ctx): boolean => {
      const lower = v.toLowerCase()
      if (['false', '0', 'no', 'off'].includes(lower)) return false
      if (['true', '1', 'yes', 'on'].includes(lower)) return true
      ctx.addIssue({ code: 'custom', message: `${name} must be true or false` })
      return z.NEVER
    })
}

/** A whole-number variable whose every refusal is one sentence naming it and the range it takes. */
function wholeNumber(name: string, min: number, max: number, fallback: number, unit = '') {
  const rule = `${name} must be a whole number${unit} from ${min}${max === Number.MAX_SAFE_INTEGER ? ' up' : ` to ${max}`}`
  return z
    .string()
    .trim()
    .refine((v) => /^\d+$/.test(v) && Number(v) >= min && Number(v) <= max, rule)
    .transform(Number)
    .default(fallback)
}

function lowerEnum<const T extends readonly [string, ...string[]]>(name: string, values: T) {
  return z.preprocess((v) => (typeof v === 'string' ? v.trim().toLowerCase() : v), z.enum(values, { message: `${name} must be ${values.join(' or ')}` }))
}

const env = z.object({
  PORT: wholeNumber('PORT', 0, 65535, 3000),
  HOST: z.string().default('0.0.0.0'),
  PUBLIC_URL: optionalString.pipe(
    z
      .url({ protocol: /^https?$/, message: 'PUBLIC_URL must be an http(s) URL' })
      // short links live at the root of the origin: /<alias>
      .refine((u) => {
        if (!URL.canParse(u)) return true // already reported as not a URL
        const p = new URL(u)
        return p.pathname.replace(/\/+$/, '') === '' && !p.search && !p.hash && !p.username && !p.password
      }, 'PUBLIC_URL must be an origin such as https://sho.rt, without a path')
      .optional(),
  ),
  DATABASE_URL: optionalString.pipe(
    z.string().regex(/^postgres(ql)?:\/\//i, 'DATABASE_URL must be a postgres:// URL (leave it unset for the embedded database)').optional(),
  ),
  DATA_DIR: z.string().default('./data'),
  SECRET_KEY: optionalString.pipe(z.string().min(32, 'SECRET_KEY must be at least 32 bytes').optional()),
  // Operator settings are checked only as far as they must be: a stricter rule (a TLD, a key
  // length) would stop a server whose operator chose, say, admin@localhost or a short key.
  ADMIN_EMAIL: optionalString.pipe(z.string().regex(/^[^\s@]+@[^\s@]+$/, 'ADMIN_EMAIL must be an email address').max(254).optional()),
  ADMIN_USERNAME: optionalString.pipe(
    z.string().regex(/^[A-Za-z0-9_.-]{3,32}$/, 'ADMIN_USERNAME must be 3 to 32 letters, digits, dots, dashes or underscores').default('admin'),
  ),
  ADMIN_PASSWORD: optionalString.pipe(z.string().max(1024, 'ADMIN_PASSWORD must be at most 1024 characters').optional()),
  // the shape keyFromHeader accepts, so the configured key can actually sign in; 16 characters at
  // least, since the key is the whole of the admin's credential
  ADMIN_API_KEY: optionalString.pipe(
    z.string().regex(/^[\x21-\x7e]{16,256}$/, 'ADMIN_API_KEY must be 16 to 256 visible ASCII characters (no spaces)').optional(),
  ),
  RATE_LIMIT_MAX: wholeNumber('RATE_LIMIT_MAX', 1, Number.MAX_SAFE_INTEGER, 30, ' of requests'),
  RATE_LIMIT_WINDOW: wholeNumber('RATE_LIMIT_WINDOW', 1, Number.MAX_SAFE_INTEGER, 60, ' of seconds'),
  V1_RATE_LIMIT_MAX: wholeNumber('V1_RATE_LIMIT_MAX', 1, Number.MAX_SAFE_INTEGER, 120, ' of requests'),
  DASHBOARD_RATE_LIMIT_MAX: wholeNumber('DASHBOARD_RATE_LIMIT_MAX', 1, Number.MAX_SAFE_INTEGER, 600, ' of requests'),
  REDIS_URL: optionalString.pipe(z.string().regex(/^rediss?:\/\//i, 'REDIS_URL must be a redis:// or rediss:// URL').optional()),
  TRUST_PROXY: trustProxyEnv.default(false),
  CORS_ORIGINS: corsOriginsEnv.default([]),
  // open connections at once; unset: the open-file limit less a reserve for Kurz's own files (http/connections.ts)
  MAX_CONNECTIONS: z
    .string()
    .trim()
    .refine((v) => /^\d+$/.test(v) && Number(v) >= 1 && Number.isSafeInteger(Number(v)), 'MAX_CONNECTIONS must be a whole number of connections from 1 up')
    .transform(Number)
    .optional(),
  REDIRECT_STATUS: z.coerce
    .number()
    .pipe(z.union([z.literal(301), z.literal(302), z.literal(307), z.literal(308)], { message: 'REDIRECT_STATUS must be 301, 302, 307 or 308' }))
    .default(302),
  // links the redirect cache holds (LRU): the working set of links visited within its 5-minute TTL
  REDIRECT_CACHE_SIZE: z.coerce
    .number({ message: 'REDIRECT_CACHE_SIZE must be a whole number of links' })
    .int('REDIRECT_CACHE_SIZE must be a whole number of links')
    .min(100, 'REDIRECT_CACHE_SIZE must be at least 100')
    .default(100_000),
  LOG_LEVEL: z.preprocess(
    (v) => (typeof v === 'string' ? v.trim().toLowerCase() : v),
    z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { message: 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent' }),
  ).default('info'),
  // request logs leave visitors' addresses out unless this is set (DECISIONS §10.7)
  LOG_IPS: flagEnv('LOG_IPS').default(false),
  // GET /metrics answers only `Authorization: Bearer <METRICS_TOKEN>` when it is set (DECISIONS §10.7)
  METRICS_TOKEN: optionalString.pipe(
    z.string().regex(/^[\x21-\x7e]{16,256}$/, 'METRICS_TOKEN must be 16 to 256 visible ASCII characters (no spaces)').optional(),
  ),
  // server-side fetches (webhooks, QR logos…) may reach private and loopback addresses (DECISIONS §10.3)
  ALLOW_PRIVATE_TARGETS: flagEnv('ALLOW_PRIVATE_TARGETS').default(false),
  // seconds between two health checks of a link's long URL; 0 turns the background checker off (DECISIONS §10.5)
  HEALTH_CHECK_INTERVAL: z.coerce.number({ message: 'HEALTH_CHECK_INTERVAL must be a whole number of seconds' }).int('HEALTH_CHECK_INTERVAL must be a whole number of seconds').min(0, 'HEALTH_CHECK_INTERVAL must be 0 (off) or more').default(21600),
  // links an hour one non-admin account may create, beside the plan's cap; 0 = no limit (DECISIONS §10.6)
  CREATE_LIMIT_PER_HOUR: z.coerce.number({ message: 'CREATE_LIMIT_PER_HOUR must be a whole number' }).int('CREATE_LIMIT_PER_HOUR must be a whole number').min(0, 'CREATE_LIMIT_PER_HOUR must be 0 (no limit) or more').default(1000),
  // pending webhook deliveries an account may have before its click events stop being queued (webhooks/backlog.ts)
  WEBHOOK_CLICK_BACKLOG: wholeNumber('WEBHOOK_CLICK_BACKLOG', 1, Number.MAX_SAFE_INTEGER, 50_000, ' of deliveries'),
  // days delivered and failed webhook deliveries are kept for their owners to read (webhooks/deliver.ts)
  WEBHOOK_KEEP_DAYS: wholeNumber('WEBHOOK_KEEP_DAYS', 1, 365, 30, ' of days'),
  // for clients written against installations that answer differently from SPEC.md (README)
  COMPAT_LIST_ERROR: lowerEnum('COMPAT_LIST_ERROR', ['string', 'number']).default('string'),
  COMPAT_V1: lowerEnum('COMPAT_V1', ['kurz', 'phpshort']).default('kurz'),
})

/** Every variable Kurz reads (README.md's table is checked against this list). */
export const ENV_VARS = Object.keys(env.shape) as (keyof typeof env.shape)[]

export type Config = ReturnType<typeof loadConfig>

/** Reads and validates the environment once; everything else gets the frozen result. */
export function loadConfig(source: Record<string, string | undefined> = process.env) {
  // A variable set to "" (docker-compose `FOO=`) means "not set": use the default.
  const given = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v.trim() !== ''))
  const parsed = env.safeParse(given)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const name = issue.path.join('.')
    // a message written for the variable names it already ("PUBLIC_URL must …"); zod's own does not
    throw new Error(`Invalid configuration: ${issue.message.startsWith(`${name} `) ? issue.message : `${name}: ${issue.message}`}`)
  }
  const e = parsed.data
  const publicUrl = (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '')
  const url = new URL(publicUrl)
  return Object.freeze({
    listen: { port: e.PORT, host: e.HOST },
    publicUrl,
    /** host[:port] of PUBLIC_URL, lower-case: the default short domain */
    defaultHost: url.host.toLowerCase(),
    secure: url.protocol === 'https:',
    db: e.DATABASE_URL ? ({ kind: 'pg', url: e.DATABASE_URL } as const) : ({ kind: 'pglite', dir: e.DATA_DIR } as const),
    dataDir: e.DATA_DIR,
    secretKey: e.SECRET_KEY,
    admin: { email: e.ADMIN_EMAIL, username: e.ADMIN_USERNAME, password: e.ADMIN_PASSWORD, apiKey: e.ADMIN_API_KEY },
    rateLimit: { max: e.RATE_LIMIT_MAX, windowSeconds: e.RATE_LIMIT_WINDOW, v1Max: e.V1_RATE_LIMIT_MAX, dashboardMax: e.DASHBOARD_RATE_LIMIT_MAX },
    redisUrl: e.REDIS_URL,
    trustProxy: e.TRUST_PROXY,
    /** browser origins allowed to call /api (CORS); empty: none */
    corsOrigins: e.CORS_ORIGINS,
    /** open connections at once (undefined: derived from the open-file limit) */
    maxConnections: e.MAX_CONNECTIONS,
    /** status of a direct redirect; links the redirect cache holds */
    redirect: { status: e.REDIRECT_STATUS as 301 | 302 | 307 | 308, cacheSize: e.REDIRECT_CACHE_SIZE },
    logLevel: e.LOG_LEVEL,
    logIps: e.LOG_IPS,
    /** bearer token GET /metrics asks for; undefined: /metrics is open */
    metricsToken: e.METRICS_TOKEN,
    allowPrivateTargets: e.ALLOW_PRIVATE_TARGETS,
    /** seconds; 0 = no background health checks */
    healthCheckInterval: e.HEALTH_CHECK_INTERVAL,
    /** links an hour per non-admin account; 0 = no limit */
    createLimitPerHour: e.CREATE_LIMIT_PER_HOUR,
    /** pending deliveries past which an account's click events are not queued */
    webhookClickBacklog: e.WEBHOOK_CLICK_BACKLOG,
    /** days delivered and failed deliveries are kept */
    webhookKeepDays: e.WEBHOOK_KEEP_DAYS,
    compat: { listError: e.COMPAT_LIST_ERROR, v1: e.COMPAT_V1 },
  })
}
