import { useLoad } from './hooks'

/**
 * Which API paths this server has, from its OpenAPI document: pages for features another part
 * of Kurz adds later (webhooks, import/export) say "not available yet" until the routes exist.
 */
export function useApiPaths() {
  return useLoad(async () => {
    try {
      const res = await fetch('/openapi.json', { credentials: 'same-origin' })
      if (!res.ok) return new Set<string>()
      const doc = (await res.json()) as { paths?: Record<string, unknown> }
      return new Set(Object.keys(doc.paths ?? {}))
    } catch {
      return new Set<string>()
    }
  }, [])
}
