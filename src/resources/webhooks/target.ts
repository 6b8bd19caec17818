import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import { checkUrl } from '../../lib/url.js'
import { blockedReason, normaliseHost, pointsAtBlocked } from '../../lib/ssrf.js'

/**
 * Why a webhook URL cannot be a receiver, as a sentence fragment, or null when it can. The same
 * address rule as every delivery (the SSRF guard checks again at each send, so a name that later
 * resolves somewhere private is still refused); a name that does not resolve yet is accepted, its
 * deliveries fail and retry until it does.
 */
export async function receiverProblem(url: string, allowPrivate: boolean): Promise<string | null> {
  if (url.length > 2048) return 'must be at most 2048 characters.'
  const checked = checkUrl(url, { httpOnly: true })
  if (!checked.ok) return checked.message
  const host = normaliseHost(checked.parsed!.hostname)
  let addresses: string[]
  if (isIP(host)) addresses = [host]
  else {
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((a) => a.address)
    } catch {
      return null
    }
  }
  for (const a of addresses) {
    const why = blockedReason(a, { allowPrivate })
    if (why) return `${pointsAtBlocked(why)}.`
  }
  return null
}
