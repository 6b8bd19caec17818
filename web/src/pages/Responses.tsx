import { api } from '../api/client'
import type { ListOf, OverlayItem } from '../api/types'
import { formatDateTime } from '../ui/format'
import { useLoad } from '../ui/hooks'
import { EmptyState, ErrorNote, Loading, MoreThanShown } from '../ui/parts'

type Response = { id: number; link: number | null; date: string } & Record<string, unknown>

/** Contact-form submissions and poll votes of one overlay, newest first; a poll also gets its tally. */
export function Responses({ overlay }: { overlay: OverlayItem }) {
  const list = useLoad(() => api.get<ListOf<'responses', Response>>(`/api/overlay/${overlay.id}/responses?limit=200`), [overlay.id])
  const rows = list.data?.data.responses ?? []
  const fields = [...new Set(rows.flatMap((r) => Object.keys(r)).filter((k) => !['id', 'link', 'date'].includes(k)))]
  const tally = new Map<string, number>()
  if (overlay.type === 'poll') for (const r of rows) tally.set(String(r.answer ?? r.option ?? '?'), (tally.get(String(r.answer ?? r.option ?? '?')) ?? 0) + 1)
  return (
    <>
      <ErrorNote message={list.error} onRetry={list.reload} />
      {list.loading && !list.data && <Loading />}
      {list.data && <MoreThanShown shown={rows.length} total={list.data.data.result} noun="responses" />}
      {list.data && rows.length === 0 && <EmptyState level={3} title="No responses yet">They appear here when visitors answer the overlay.</EmptyState>}
      {tally.size > 0 && (
        <ul>
          {[...tally].map(([answer, n]) => (
            <li key={answer}>
              {answer}: <strong>{n}</strong>
            </li>
          ))}
        </ul>
      )}
      {rows.length > 0 && (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">When</th>
                {fields.map((f) => (
                  <th scope="col" key={f}>{f}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id}>
                  <td>{formatDateTime(r.date)}</td>
                  {fields.map((f) => (
                    <td key={f}>{r[f] === undefined ? '' : String(r[f])}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  )
}
