import type { Config } from '../../config.js'
import type { Campaign } from './repo.js'

/**
 * SPEC.md "Campaign": the name travels as both `name` and `domain` (DECISIONS §7); `rotator` is
 * the /r/<slug> URL or false; `list` the public list page of the owner.
 */
export function presentCampaign(config: Config, username: string, c: Campaign) {
  return {
    id: c.id,
    name: c.name,
    domain: c.name,
    public: c.public,
    rotator: c.slug ? `${config.publicUrl}/r/${c.slug}` : (false as const),
    list: `${config.publicUrl}/u/${encodeURIComponent(username)}/${c.id}`,
  }
}
