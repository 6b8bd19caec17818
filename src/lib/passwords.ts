import { availableParallelism } from 'node:os'
import argon2 from 'argon2'
import { Limiter } from './limiter.js'

export { BusyError } from './limiter.js'

// OWASP's argon2id floor (m=19 MiB, t=2, p=1): about 30 ms here, where the library default
// takes 120 ms and would make every login attempt a denial-of-service lever (DECISIONS §3).
const OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const

export const hashPassword = (plain: string) => argon2.hash(plain, OPTIONS)

export async function verifyPassword(hash: string, plain: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, plain)
  } catch {
    return false
  }
}

// Every argon2 verify a visitor without an account can trigger (link and statistics passwords,
// /login) shares these slots: one per core at most, and a short queue (a few hundred ms of work),
// so a burst from many addresses costs them 503s, not the server its CPU and 19 MiB per verify.
const guesses = new Limiter(Math.max(1, Math.min(4, availableParallelism())), 32)

/** verifyPassword for unauthenticated requests; throws BusyError when too many are already waiting. */
export const verifyGuess = (hash: string, plain: string) => guesses.run(() => verifyPassword(hash, plain))
