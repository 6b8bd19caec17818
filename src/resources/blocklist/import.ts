import type { Db } from '../../db/client.js'
import { domainValue, Matcher, type Entry } from './match.js'
import { insertEntries } from './repo.js'
import { rescanLinks } from './rescan.js'

/** Names hosts files map to an address that are not sites to block. */
const NOT_SITES = new Set(['localhost', 'localhost.localdomain', 'local', 'broadcasthost', 'ip6-localhost', 'ip6-loopback', 'ip6-localnet', 'ip6-mcastprefix', 'ip6-allnodes', 'ip6-allrouters', 'ip6-allhosts', '0.0.0.0'])
const ADDRESS = /^(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9a-f:]*:[0-9a-f:.]*)$/i
const INSERT_CHUNK = 1000

export interface ParsedBlocklist {
  domains: string[]
  /** lines that named no domain, with their number (the first few, for the operator) */
  skipped: { line: number; text: string }[]
  skippedCount: number
}

/**
 * A hosts-format file (`0.0.0.0 evil.example`, several names per line allowed) or one domain per
 * line; `#` starts a comment. Addresses and the names hosts files give to this machine are not
 * entries.
 */
export function parseBlocklistFile(text: string): ParsedBlocklist {
  const domains = new Set<string>()
  const skipped: ParsedBlocklist['skipped'] = []
  let skippedCount = 0
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.replace(/#.*/, '').trim()
    if (!line) return
    const tokens = line.split(/\s+/)
    const names = tokens.length > 1 && ADDRESS.test(tokens[0]) ? tokens.slice(1) : tokens.length === 1 ? tokens : null
    const values = names?.filter((n) => !NOT_SITES.has(n.toLowerCase())).map(domainValue)
    if (!values || values.some((v) => v === null)) {
      skippedCount++
      if (skipped.length < 20) skipped.push({ line: i + 1, text: raw.slice(0, 200) })
      return
    }
    for (const v of values) domains.add(v!)
  })
  return { domains: [...domains], skipped, skippedCount }
}

/**
 * `npm run cli -- blocklist:import <file>`: adds the file's domains (those already listed are
 * left as they are), then quarantines existing links the new ones match, as the admin endpoint
 * does. `quarantined` hears of the links quarantined (the CLI tells running servers over Redis).
 */
export async function importBlocklist(
  db: Db,
  text: string,
  reason: string,
  quarantined: (ids: number[]) => Promise<void>,
): Promise<{ read: number; added: number; alreadyListed: number; skipped: number; skippedLines: ParsedBlocklist['skipped']; quarantined: number }> {
  const parsed = parseBlocklistFile(text)
  const added: Entry[] = []
  for (let i = 0; i < parsed.domains.length; i += INSERT_CHUNK) {
    const chunk = parsed.domains.slice(i, i + INSERT_CHUNK).map((value) => ({ type: 'domain' as const, value, reason }))
    added.push(...(await insertEntries(db, chunk)))
  }
  const count = added.length ? await rescanLinks(db, new Matcher(added), quarantined) : 0
  return {
    read: parsed.domains.length,
    added: added.length,
    alreadyListed: parsed.domains.length - added.length,
    skipped: parsed.skippedCount,
    skippedLines: parsed.skipped,
    quarantined: count,
  }
}
