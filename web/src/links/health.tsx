import { api } from '../api/client'
import { useLoad } from '../ui/hooks'

/** `details.health` (DECISIONS 10.5), as GET /api/urls/health lists it. */
export interface LinkHealth {
  id: number
  state: 'ok' | 'broken' | 'unknown'
  status: number | null
  reason: string | null
  checkedAt: string | null
  /** matched the blocklist: visitors get a warning page (DECISIONS 10.6) */
  quarantined: boolean
}

/** The health of the links on the page, in one request; nothing while the page is empty. */
export function useLinkHealth(ids: number[]) {
  const key = ids.join(',')
  const loaded = useLoad(
    () => (key ? api.get<{ data: { health: LinkHealth[] } }>(`/api/urls/health?ids=${key}`) : Promise.resolve({ data: { health: [] } })),
    [key],
  )
  return new Map((loaded.data?.data.health ?? []).map((h) => [h.id, h]))
}

/** One line for a link's list entry: a quarantined link or a broken destination needs the reader's attention. */
export function HealthNote({ health }: { health?: LinkHealth }) {
  if (health?.quarantined) {
    return (
      <span className="badge warn" title="It matched this service's blocklist: visitors see a warning page. An administrator can release it.">
        Quarantined
      </span>
    )
  }
  if (!health || health.state === 'unknown') return null
  if (health.state === 'ok') return <span title={health.checkedAt ? `Checked ${health.checkedAt} UTC` : undefined}>Destination OK</span>
  return (
    <span className="badge warn" title={health.reason ?? undefined}>
      Destination broken{health.status ? ` (${health.status})` : ''}
    </span>
  )
}
