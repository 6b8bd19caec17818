import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { ENV_VARS, loadConfig } from '../../src/config.js'

describe('loadConfig', () => {
  it('has the DECISIONS §1 defaults', () => {
    const c = loadConfig({})
    expect(c).toEqual({
      listen: { port: 3000, host: '0.0.0.0' },
      publicUrl: 'http://localhost:3000',
      defaultHost: 'localhost:3000',
      secure: false,
      db: { kind: 'pglite', dir: './data' },
      dataDir: './data',
      secretKey: undefined,
      admin: { email: undefined, username: 'admin', password: undefined, apiKey: undefined },
      rateLimit: { max: 30, windowSeconds: 60, v1Max: 120, dashboardMax: 600 },
      redisUrl: undefined,
      trustProxy: false,
      corsOrigins: [],
      redirect: { status: 302, cacheSize: 100_000 },
      logLevel: 'info',
      logIps: false,
      allowPrivateTargets: false,
      healthCheckInterval: 21600,
      createLimitPerHour: 1000,
      webhookClickBacklog: 50_000,
      webhookKeepDays: 30,
      compat: { listError: 'string', v1: 'kurz' },
    })
    expect(Object.isFrozen(c)).toBe(true)
  })

  it('derives PUBLIC_URL from PORT, and the default host and https from PUBLIC_URL', () => {
    expect(loadConfig({ PORT: '8080' }).publicUrl).toBe('http://localhost:8080')
    const c = loadConfig({ PUBLIC_URL: 'https://Sho.RT/' })
    expect(c.publicUrl).toBe('https://Sho.RT')
    expect(c.defaultHost).toBe('sho.rt')
    expect(c.secure).toBe(true)
    expect(loadConfig({ PUBLIC_URL: 'http://kurz.test:8443' }).defaultHost).toBe('kurz.test:8443')
  })

  it('reads every variable', () => {
    const c = loadConfig({
      PORT: '4000', HOST: '127.0.0.1', PUBLIC_URL: 'https://go.example', DATABASE_URL: 'postgres://u@db:5432/kurz',
      DATA_DIR: '/var/lib/kurz', SECRET_KEY: 'k'.repeat(32), ADMIN_EMAIL: 'ops@example.com', ADMIN_USERNAME: 'ops',
      ADMIN_PASSWORD: 'hunter22', ADMIN_API_KEY: 'A'.repeat(32), RATE_LIMIT_MAX: '10', RATE_LIMIT_WINDOW: '30',
      V1_RATE_LIMIT_MAX: '50', DASHBOARD_RATE_LIMIT_MAX: '900', REDIS_URL: 'redis://cache:6379', TRUST_PROXY: 'true', REDIRECT_STATUS: '301', REDIRECT_CACHE_SIZE: '250000', LOG_LEVEL: 'warn', WEBHOOK_CLICK_BACKLOG: '1000', WEBHOOK_KEEP_DAYS: '7',
      CORS_ORIGINS: 'https://App.Example.com:443, http://localhost:5173/, https://app.example.com',
    })
    expect(c).toMatchObject({
      listen: { port: 4000, host: '127.0.0.1' },
      db: { kind: 'pg', url: 'postgres://u@db:5432/kurz' },
      dataDir: '/var/lib/kurz',
      secretKey: 'k'.repeat(32),
      admin: { email: 'ops@example.com', username: 'ops', password: 'hunter22', apiKey: 'A'.repeat(32) },
      rateLimit: { max: 10, windowSeconds: 30, v1Max: 50, dashboardMax: 900 },
      redisUrl: 'redis://cache:6379',
      trustProxy: true,
      corsOrigins: ['https://app.example.com', 'http://localhost:5173'],
      redirect: { status: 301, cacheSize: 250_000 },
      logLevel: 'warn',
      webhookClickBacklog: 1000,
      webhookKeepDays: 7,
    })
  })

  it('treats empty variables as unset (docker-compose FOO=)', () => {
    const c = loadConfig({ PORT: '', DATABASE_URL: '', REDIS_URL: ' ', ADMIN_USERNAME: '', SECRET_KEY: '', TRUST_PROXY: '' })
    expect(c.listen.port).toBe(3000)
    expect(c.db.kind).toBe('pglite')
    expect(c.redisUrl).toBeUndefined()
    expect(c.admin.username).toBe('admin')
    expect(c.trustProxy).toBe(false)
  })

  it.each([
    ['true', true], ['yes', true], ['false', false], ['0', false], ['no', false], ['1', 1], ['2', 2],
    ['10.0.0.0/8, 127.0.0.1', '10.0.0.0/8,127.0.0.1'], ['::1', '::1'],
  ])('TRUST_PROXY=%s', (value, expected) => {
    expect(loadConfig({ TRUST_PROXY: value }).trustProxy).toEqual(expected)
  })

  it.each([
    [{ PORT: 'eighty' }, /PORT/],
    [{ PORT: '70000' }, /PORT/],
    [{ PUBLIC_URL: 'ftp://x.example' }, /PUBLIC_URL/],
    [{ PUBLIC_URL: 'not a url' }, /PUBLIC_URL/],
    [{ PUBLIC_URL: 'https://example.com/short' }, /PUBLIC_URL must be an origin/],
    [{ PUBLIC_URL: 'https://example.com/?x=1' }, /PUBLIC_URL must be an origin/],
    [{ DATABASE_URL: 'mysql://db/kurz' }, /DATABASE_URL/],
    [{ SECRET_KEY: 'short' }, /SECRET_KEY.*32/],
    [{ ADMIN_EMAIL: 'nope' }, /ADMIN_EMAIL/],
    [{ ADMIN_USERNAME: 'a b' }, /ADMIN_USERNAME/],
    [{ ADMIN_PASSWORD: 'x'.repeat(1025) }, /ADMIN_PASSWORD/],
    [{ ADMIN_API_KEY: 'k'.repeat(257) }, /ADMIN_API_KEY/],
    [{ ADMIN_API_KEY: 'k'.repeat(15) }, /ADMIN_API_KEY must be 16 to 256/],
    [{ ADMIN_API_KEY: 'caf\u00e9-key' }, /ADMIN_API_KEY/],
    [{ ADMIN_API_KEY: 'has spaces in it, and more than 16' }, /ADMIN_API_KEY/],
    [{ RATE_LIMIT_MAX: '0' }, /RATE_LIMIT_MAX/],
    [{ RATE_LIMIT_WINDOW: '-5' }, /RATE_LIMIT_WINDOW/],
    [{ V1_RATE_LIMIT_MAX: 'lots' }, /V1_RATE_LIMIT_MAX/],
    [{ DASHBOARD_RATE_LIMIT_MAX: '0' }, /DASHBOARD_RATE_LIMIT_MAX/],
    [{ REDIS_URL: 'http://cache' }, /REDIS_URL/],
    [{ TRUST_PROXY: 'sometimes' }, /TRUST_PROXY/],
    [{ CORS_ORIGINS: 'app.example.com' }, /CORS_ORIGINS/],
    [{ CORS_ORIGINS: 'https://app.example.com/path' }, /CORS_ORIGINS/],
    [{ CORS_ORIGINS: 'https://app.example.com, ftp://files.example.com' }, /CORS_ORIGINS/],
    [{ CORS_ORIGINS: 'https://user:pw@app.example.com' }, /CORS_ORIGINS/],
    [{ REDIRECT_STATUS: '303' }, /REDIRECT_STATUS must be 301, 302, 307 or 308/],
    [{ REDIRECT_CACHE_SIZE: 'lots' }, /REDIRECT_CACHE_SIZE must be a whole number of links/],
    [{ REDIRECT_CACHE_SIZE: '10' }, /REDIRECT_CACHE_SIZE must be at least 100/],
    [{ WEBHOOK_CLICK_BACKLOG: '0' }, /WEBHOOK_CLICK_BACKLOG must be a whole number of deliveries from 1 up/],
    [{ WEBHOOK_KEEP_DAYS: '0' }, /WEBHOOK_KEEP_DAYS must be a whole number of days from 1 to 365/],
    [{ WEBHOOK_KEEP_DAYS: '2.5' }, /WEBHOOK_KEEP_DAYS must be a whole number of days from 1 to 365/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
    [{ LOG_IPS: 'sometimes' }, /LOG_IPS must be true or false/],
    [{ COMPAT_LIST_ERROR: 'int' }, /COMPAT_LIST_ERROR must be string or number/],
    [{ COMPAT_V1: 'laravel' }, /COMPAT_V1 must be kurz or phpshort/],
  ])('refuses %j naming the variable', (env, message) => {
    expect(() => loadConfig(env as Record<string, string>)).toThrow(message)
    expect(() => loadConfig(env as Record<string, string>)).toThrow(/^Invalid configuration: /)
  })

  it.each([
    [{ PORT: 'abc' }, 'PORT must be a whole number from 0 to 65535'],
    [{ PORT: '70000' }, 'PORT must be a whole number from 0 to 65535'],
    [{ RATE_LIMIT_MAX: '0' }, 'RATE_LIMIT_MAX must be a whole number of requests from 1 up'],
    [{ V1_RATE_LIMIT_MAX: '1.5' }, 'V1_RATE_LIMIT_MAX must be a whole number of requests from 1 up'],
    [{ RATE_LIMIT_WINDOW: '-5' }, 'RATE_LIMIT_WINDOW must be a whole number of seconds from 1 up'],
    [{ DASHBOARD_RATE_LIMIT_MAX: '1e3' }, 'DASHBOARD_RATE_LIMIT_MAX must be a whole number of requests from 1 up'],
    [{ PUBLIC_URL: 'ftp://x.example' }, 'PUBLIC_URL must be an http(s) URL'],
  ])('says %j in one sentence that names the variable once', (env, sentence) => {
    expect(() => loadConfig(env as Record<string, string>)).toThrow(new RegExp(`^Invalid configuration: ${sentence.replace(/[()]/g, '\\$&')}`))
  })

  it('reads whole numbers as numbers, with their defaults', () => {
    expect(loadConfig({ PORT: ' 8080 ', RATE_LIMIT_MAX: '45' })).toMatchObject({ listen: { port: 8080 }, rateLimit: { max: 45, windowSeconds: 60, v1Max: 120, dashboardMax: 600 } })
  })

  it('accepts the admin settings an operator may reasonably choose', () => {
    const c = loadConfig({ ADMIN_EMAIL: 'admin@localhost', ADMIN_PASSWORD: 'pw', ADMIN_API_KEY: 'admin-key-0123456' })
    expect(c.admin).toEqual({ email: 'admin@localhost', username: 'admin', password: 'pw', apiKey: 'admin-key-0123456' })
  })

  it('accepts LOG_LEVEL in any case and every redirect status', () => {
    expect(loadConfig({ LOG_LEVEL: 'DEBUG' }).logLevel).toBe('debug')
    for (const s of ['301', '302', '307', '308']) expect(loadConfig({ REDIRECT_STATUS: s }).redirect.status).toBe(Number(s))
  })

  it('reads HEALTH_CHECK_INTERVAL (0 turns the checker off) and refuses what is not whole seconds', () => {
    expect(loadConfig({ HEALTH_CHECK_INTERVAL: '0' }).healthCheckInterval).toBe(0)
    expect(loadConfig({ HEALTH_CHECK_INTERVAL: '3600' }).healthCheckInterval).toBe(3600)
    expect(() => loadConfig({ HEALTH_CHECK_INTERVAL: '-1' })).toThrow(/HEALTH_CHECK_INTERVAL/)
    expect(() => loadConfig({ HEALTH_CHECK_INTERVAL: 'often' })).toThrow(/HEALTH_CHECK_INTERVAL/)
  })

  it('reads LOG_IPS and the compatibility switches, in any case', () => {
    expect(loadConfig({ LOG_IPS: 'true' }).logIps).toBe(true)
    expect(loadConfig({ LOG_IPS: 'off' }).logIps).toBe(false)
    expect(loadConfig({ COMPAT_LIST_ERROR: 'Number', COMPAT_V1: 'PHPSHORT' }).compat).toEqual({ listError: 'number', v1: 'phpshort' })
  })

  it('reads exactly the variables of DECISIONS §1, each documented in README.md', () => {
    expect([...ENV_VARS].sort()).toEqual([
      'ADMIN_API_KEY', 'ADMIN_EMAIL', 'ADMIN_PASSWORD', 'ADMIN_USERNAME', 'ALLOW_PRIVATE_TARGETS', 'COMPAT_LIST_ERROR', 'COMPAT_V1', 'CORS_ORIGINS', 'CREATE_LIMIT_PER_HOUR', 'DASHBOARD_RATE_LIMIT_MAX', 'DATABASE_URL', 'DATA_DIR', 'HEALTH_CHECK_INTERVAL', 'HOST', 'LOG_IPS', 'LOG_LEVEL', 'MAX_CONNECTIONS', 'METRICS_TOKEN', 'PORT',
      'PUBLIC_URL', 'RATE_LIMIT_MAX', 'RATE_LIMIT_WINDOW', 'REDIRECT_CACHE_SIZE', 'REDIRECT_STATUS', 'REDIS_URL', 'SECRET_KEY', 'TRUST_PROXY', 'V1_RATE_LIMIT_MAX', 'WEBHOOK_CLICK_BACKLOG', 'WEBHOOK_KEEP_DAYS',
    ])
    const readme = readFileSync(resolve(import.meta.dirname, '../../README.md'), 'utf8')
    for (const name of ENV_VARS) expect(readme).toContain(`| \`${name}\` |`)
  })

  it('passes every variable through docker-compose.yml', () => {
    const compose = readFileSync(resolve(import.meta.dirname, '../../docker-compose.yml'), 'utf8')
    for (const name of ENV_VARS) expect(compose).toMatch(new RegExp(`^ {6}${name}: `, 'm'))
  })
})
