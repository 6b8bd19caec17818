import argon2 from 'argon2'

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
