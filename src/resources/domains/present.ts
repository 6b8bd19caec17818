import type { Domain } from './repo.js'

/** SPEC.md "Branded domain": unset redirects read as "" (the fields are strings). */
export function presentDomain(d: Domain) {
  return { id: d.id, domain: d.domain, redirectroot: d.redirectRoot ?? '', redirect404: d.redirect404 ?? '' }
}
