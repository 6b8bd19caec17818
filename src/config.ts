import { z } from 'zod'

const boolEnv = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .transform((v) => v === 'true' || v === '1' || v === 'yes')

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v))

const env = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  PUBLIC_URL: optionalString.pipe(z.url({ protocol: /^https?$/, message: 'PUBLIC_URL must be an http(s) URL' }).optional()),
  DATABASE_URL: optionalString,
  DATA_DIR: z.string().default('./data'),
  SECRET_KEY: optionalString.pipe(z.string().min(32, 'SECRET_KEY must be at least 32 bytes').optional()),
  ADMIN_EMAIL: optionalString,
  ADMIN_USERNAME: z.string().default('admin'),
  ADMIN_PASSWORD: optionalString,
  ADMIN_API_KEY: optionalString,
  RATE_LIMIT_MAX: z.coerce.number().int().positive().default(30),
  RATE_LIMIT_WINDOW: z.coerce.number().int().positive().default(60),
  V1_RATE_LIMIT_MAX: z.coerce.number().int().positive().default(120),
  REDIS_URL: optionalString,
  TRUST_PROXY: boolEnv.default(false),
  REDIRECT_STATUS: z.coerce
    .number()
    .pipe(z.union([z.literal(301), z.literal(302), z.literal(307), z.literal(308)], { message: 'REDIRECT_STATUS must be 301, 302, 307 or 308' }))
    .default(302),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
})

export type Config = ReturnType<typeof loadConfig>

/** Reads and validates the environment once; everything else gets the frozen result. */
export function loadConfig(source: Record<string, string | undefined> = process.env) {
  const parsed = env.safeParse(source)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new Error(`Invalid configuration: ${issue.path.join('.')}: ${issue.message}`)
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
    rateLimit: { max: e.RATE_LIMIT_MAX, windowSeconds: e.RATE_LIMIT_WINDOW, v1Max: e.V1_RATE_LIMIT_MAX },
    redisUrl: e.REDIS_URL,
    trustProxy: e.TRUST_PROXY,
    redirect: { status: e.REDIRECT_STATUS as 301 | 302 | 307 | 308 },
    logLevel: e.LOG_LEVEL,
  })
}
