import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { asc, eq } from 'drizzle-orm'
import type { Db } from '../db/client.js'
import { apiKeys, deploymentSettings } from '../db/schema/index.js'
import { claimSetting, readSetting } from '../db/deployment-settings.js'
import { decrypt, deriveKeys, encrypt, hmac, resolveSecret, type Keys } from '../lib/crypto.js'

/**
 * One secret per deployment. API keys are found by an HMAC of it and kept sealed with it, so an
 * instance or a CLI run with another secret would make keys nobody else accepts and accept none of
 * theirs, without a word. The first start records a check value (an HMAC: it reveals nothing of
 * the secret); every later start, and every CLI command, compares and refuses on a mismatch.
 */
export class SecretMismatch extends Error {}

const CHECK = 'secret_check'

const checkValue = (secret: string) => deriveKeys(secret).secretCheck

/** Where this process's secret comes from, in the words an operator would look for. */
function sourceOf(secretKey: string | undefined, dataDir: string): string {
  return secretKey ? 'SECRET_KEY' : `${join(dataDir, 'secret.key')} (SECRET_KEY is not set, so this process uses the secret generated there)`
}

/**
 * The deployment's keys, once the secret is known to be the deployment's. A database from before
 * the check (no value recorded) is proved by opening one of its API keys: a wrong secret cannot.
 */
export async function deploymentKeys(db: Db, config: { secretKey?: string; dataDir: string }): Promise<Keys> {
  const recorded = await readCheck(db)
  if (!config.secretKey && recorded !== undefined) finishRotation(config.dataDir, recorded)
  const secret = resolveSecret(config.secretKey, config.dataDir)
  const keys = deriveKeys(secret)
  const mine = keys.secretCheck
  if (recorded === undefined) {
    const [some] = await db.select({ sealed: apiKeys.keyEncrypted }).from(apiKeys).orderBy(asc(apiKeys.id)).limit(1)
    if (some && !opens(keys, some.sealed)) throw mismatch(config)
    // several instances starting at once: the first write wins and the others compare against it
    if ((await claimSetting(db, CHECK, mine)) !== mine) throw mismatch(config)
  } else if (recorded !== mine) throw mismatch(config)
  return keys
}

/**
 * True once `secret:rotate` has moved the deployment to another secret than `keys`': a running
 * instance then finds no API key; /readyz says so, so that a balancer stops sending it requests.
 */
export async function secretRotatedAway(db: Db, keys: Keys): Promise<boolean> {
  const recorded = await readCheck(db)
  return recorded !== undefined && recorded !== keys.secretCheck
}

const readCheck = (db: Db) => readSetting(db, CHECK)

function opens(keys: Keys, sealed: string): boolean {
  try {
    decrypt(keys.apiKeySeal, sealed)
    return true
  } catch {
    return false
  }
}

function mismatch(config: { secretKey?: string; dataDir: string }): SecretMismatch {
  return new SecretMismatch(
    `The secret from ${sourceOf(config.secretKey, config.dataDir)} is not the one this database's API keys were made with. ` +
      'Every instance and every CLI run sharing a database needs the same SECRET_KEY: set it to the value the others use. ' +
      'To change the secret on purpose, stop every instance and run `npm run cli -- secret:rotate` with the current secret and NEW_SECRET_KEY set.',
  )
}

/**
 * Re-keys the deployment to `next`: every API key (revoked ones too, so they still answer
 * "expired") is looked up and sealed with the new secret, and the check value changes, in one
 * transaction. A secret generated into DATA_DIR/secret.key is replaced there after the commit.
 */
export async function rotateSecret(db: Db, config: { secretKey?: string; dataDir: string }, next: string): Promise<{ apiKeys: number; secretFile?: string }> {
  const current = await deploymentKeys(db, config)
  const fresh = deriveKeys(next)
  if (fresh.apiKeySeal.equals(current.apiKeySeal)) throw new SecretMismatch('NEW_SECRET_KEY is the secret in use now; nothing to rotate.')
  const file = join(config.dataDir, 'secret.key')
  // the new secret is on disk before the database changes, so a crash between the two loses nothing
  if (!config.secretKey) writeFileSync(`${file}.next`, next + '\n', { mode: 0o600 })
  const count = await db.transaction(async (tx) => {
    // holds off a second rotation (or a first start recording its check) until this one commits
    await tx.select().from(deploymentSettings).where(eq(deploymentSettings.name, CHECK)).for('update')
    const rows = await tx.select({ id: apiKeys.id, sealed: apiKeys.keyEncrypted }).from(apiKeys)
    for (const row of rows) {
      const plain = decrypt(current.apiKeySeal, row.sealed)
      await tx.update(apiKeys).set({ keyHash: hmac(fresh.apiKeyLookup, plain), keyEncrypted: encrypt(fresh.apiKeySeal, plain) }).where(eq(apiKeys.id, row.id))
    }
    await tx.update(deploymentSettings).set({ value: checkValue(next) }).where(eq(deploymentSettings.name, CHECK))
    return rows.length
  }).catch((err: unknown) => {
    if (!config.secretKey) rmSync(`${file}.next`, { force: true })
    throw err
  })
  if (config.secretKey) return { apiKeys: count }
  renameSync(`${file}.next`, file)
  return { apiKeys: count, secretFile: file }
}

/** A rotation that committed but stopped before replacing DATA_DIR/secret.key: finish it. */
function finishRotation(dataDir: string, recorded: string): void {
  const next = join(dataDir, 'secret.key.next')
  if (existsSync(next) && checkValue(readFileSync(next, 'utf8').trim()) === recorded) renameSync(next, join(dataDir, 'secret.key'))
}
