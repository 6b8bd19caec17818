import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { customAlphabet } from 'nanoid'

export const sha256 = (value: string) => createHash('sha256').update(value).digest('hex')

/** Per-purpose keys derived from SECRET_KEY, so one leak (a cookie key, say) reveals nothing else. */
export function deriveKey(secret: string, purpose: string): Buffer {
  return createHmac('sha256', secret).update(`kurz:${purpose}`).digest()
}

export const hmac = (key: Buffer, value: string) => createHmac('sha256', key).update(value).digest('hex')

export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/** AES-256-GCM: iv.tag.ciphertext, base64url. */
export function encrypt(key: Buffer, plain: string): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
  return [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url')).join('.')
}

export function decrypt(key: Buffer, sealed: string): string {
  const [iv, tag, body] = sealed.split('.').map((p) => Buffer.from(p, 'base64url'))
  const decipher = createDecipheriv('aes-256-gcm', key, iv)
  decipher.setAuthTag(tag)
  return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8')
}

const URL_SAFE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-'
/** API keys: 32 random URL-safe characters (DECISIONS §3). */
export const newApiKey = customAlphabet(URL_SAFE, 32)
/** 256-bit bearer tokens (SSO, sessions). */
export const newToken = () => randomBytes(32).toString('base64url')

/** SECRET_KEY, else one generated once into DATA_DIR/secret.key and reused on every start. */
export function resolveSecret(secretKey: string | undefined, dataDir: string): string {
  if (secretKey) return secretKey
  const file = join(dataDir, 'secret.key')
  if (existsSync(file)) return readFileSync(file, 'utf8').trim()
  mkdirSync(dataDir, { recursive: true })
  const secret = randomBytes(48).toString('base64url')
  writeFileSync(file, secret + '\n', { mode: 0o600, flag: 'wx' })
  return secret
}

export interface Keys {
  /** HMAC key for API-key lookup */
  apiKeyLookup: Buffer
  /** AES key for the recoverable copy of API keys */
  apiKeySeal: Buffer
  /** HMAC key for signed cookies (link passwords) */
  cookie: Buffer
  /** HMAC key for visitor hashes */
  visitor: Buffer
  /** names the secret without revealing it: the deployment records it (accounts/deployment-secret.ts) */
  secretCheck: string
}

export function deriveKeys(secret: string): Keys {
  return {
    apiKeyLookup: deriveKey(secret, 'api-key-lookup'),
    apiKeySeal: deriveKey(secret, 'api-key-seal'),
    cookie: deriveKey(secret, 'cookie'),
    visitor: deriveKey(secret, 'visitor'),
    secretCheck: hmac(deriveKey(secret, 'secret-check'), 'kurz'),
  }
}
