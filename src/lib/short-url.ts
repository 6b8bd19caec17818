/**
 * A link's short URL: scheme + host of its branded domain, else PUBLIC_URL, then `/` + alias.
 * Every resource that shows links (links, v1, channels, campaigns, pages) builds it here, so none
 * of them needs the links resource for it.
 */
export function shortUrlOf(config: { publicUrl: string }, link: { alias: string }, domain: { domain: string } | null): string {
  return `${domain ? domain.domain.replace(/\/+$/, '') : config.publicUrl}/${link.alias}`
}
