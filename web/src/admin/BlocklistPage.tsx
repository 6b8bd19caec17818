import { useState, type FormEvent } from 'react'
import { api, qs } from '../api/client'
import type { ListOf } from '../api/types'
import { useSession } from '../session'
import { announce } from '../ui/announce'
import { useConfirm } from '../ui/confirm'
import { formatDateTime } from '../ui/format'
import { useAction, useLoad } from '../ui/hooks'
import { AdminsOnly, Badge, EmptyState, ErrorNote, Field, Loading, Modal, PageHead, Pager } from '../ui/parts'
import { oneOf, pageParam, useQueryState } from '../ui/query'
import { useApiPaths } from '../ui/routes-available'
import { NotYet } from '../webhooks/NotYet'
import { useRefusal } from '../ui/refusal'

/** The block form's labels by body name (the value's depends on its kind): an API message names its field by the latter. */
const LABELS = {
  type: 'Kind',
  reason: 'Reason',
}

interface Entry {
  id: number
  type: 'domain' | 'keyword'
  value: string
  reason: string
  date: string
}
interface Report {
  id: number
  /** null once the link is deleted (reports outlive their link) */
  link: number | null
  shorturl: string
  /** where the link leads now ('' once it is deleted): shown as text, never a link to follow */
  url: string
  /** whether the link is quarantined now (false once it is deleted) */
  quarantined: boolean
  reason: string
  comment: string
  email: string
  date: string
}

/** Admin: blocked domains and keywords (matching links are quarantined) and what visitors reported. */
export function BlocklistPage() {
  const { user } = useSession()
  const paths = useApiPaths()
  if (!user.admin) return <AdminsOnly />
  return (
    <>
      <PageHead title="Blocklist" />
      {paths.loading && <Loading />}
      {paths.data && !paths.data.has('/api/blocklist') && <NotYet what="The blocklist and reports" />}
      {paths.data?.has('/api/blocklist') && (
        <>
          <Entries />
          {paths.data.has('/api/reports') && <Reports />}
        </>
      )}
    </>
  )
}

/** The kinds the list shows ('' is every kind), as in the address's `type`. */
const KINDS = ['', 'domain', 'keyword'] as const

/** The page's lists in the address: the entries' `type` and `page`, the reports' `reports_page`. */
function Entries() {
  const { params, set } = useQueryState()
  const type = oneOf(params.get('type'), KINDS, '')
  const page = pageParam(params.get('page'))
  const setPage = (p: number, fix?: boolean) => set({ page: p }, { replace: fix })
  const list = useLoad(() => api.get<ListOf<'entries', Entry>>(`/api/blocklist${qs({ type, page, limit: 50 })}`), [type, page])
  const [adding, setAdding] = useState(false)
  const remove = useAction()
  const confirm = useConfirm()
  const rows = list.data?.data.entries
  async function onDelete(e: Entry) {
    if (!(await confirm({ title: 'Remove this entry?', message: <p>New links may use <strong>{e.value}</strong> again. Links it quarantined stay so until released.</p>, confirm: 'Remove entry' }))) return
    if (await remove.run(() => api.del(`/api/blocklist/${e.id}/delete`))) {
      announce(`${e.value} removed from the blocklist.`)
      list.reload()
    }
  }
  return (
    <section className="card" aria-labelledby="entries-head">
      <div className="page-head">
        <h2 id="entries-head">Blocked domains and keywords</h2>
        <button type="button" onClick={() => setAdding(true)}>Block a domain or keyword</button>
      </div>
      <div className="toolbar">
        <Field label="Show">
          {(id) => (
            <select id={id} value={type} onChange={(e) => set({ type: e.target.value })}>
              <option value="">Everything</option>
              <option value="domain">Domains</option>
              <option value="keyword">Keywords</option>
            </select>
          )}
        </Field>
      </div>
      <ErrorNote message={list.error ?? remove.error} onRetry={list.error ? list.reload : undefined} />
      {list.loading && !rows && <Loading />}
      {rows?.length === 0 && <EmptyState level={3} title="Nothing blocked">Links to blocked domains, or with blocked keywords, are refused and existing ones quarantined.</EmptyState>}
      {rows && rows.length > 0 && (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Value</th>
                <th scope="col">Kind</th>
                <th scope="col" className="hide-small">Reason</th>
                <th scope="col" className="hide-small">Added</th>
                <th scope="col"><span className="offscreen">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              {rows.map((e) => (
                <tr key={e.id}>
                  <td><code>{e.value}</code></td>
                  <td>{e.type}</td>
                  <td className="hide-small">{e.reason || '—'}</td>
                  <td className="hide-small">{formatDateTime(e.date)}</td>
                  <td>
                    <div className="cell-actions">
                      <button type="button" className="secondary small" onClick={() => onDelete(e)} aria-label={`Remove ${e.value}`}>Remove</button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list.data && <Pager page={list.data.data.currentpage} maxPage={list.data.data.maxpage} total={list.data.data.result} noun="entries" onPage={setPage} />}
      <Modal title="Block a domain or keyword" open={adding} onClose={() => setAdding(false)}>
        {adding && <EntryForm onDone={() => (setAdding(false), list.reload())} />}
      </Modal>
    </section>
  )
}

function EntryForm({ onDone }: { onDone: () => void }) {
  const [type, setType] = useState<'domain' | 'keyword'>('domain')
  const [value, setValue] = useState('')
  const [reason, setReason] = useState('')
  const valueLabel = type === 'domain' ? 'Domain to block' : 'Keyword to block'
  const save = useAction()
  const refused = useRefusal(save.error, { ...LABELS, value: valueLabel })
  async function submit(e: FormEvent) {
    e.preventDefault()
    if (await save.run(() => api.post('/api/blocklist/add', { type, value: value.trim(), reason: reason.trim() || undefined }))) {
      announce('Added to the blocklist; matching links are being quarantined.')
      onDone()
    }
  }
  return (
    <form onSubmit={submit}>
      <Field label={LABELS.type}>
        {(id) => (
          <select id={id} {...refused.field('type')} value={type} onChange={(e) => setType(e.target.value as 'domain' | 'keyword')}>
            <option value="domain">Domain</option>
            <option value="keyword">Keyword</option>
          </select>
        )}
      </Field>
      <Field label={valueLabel} hint={type === 'domain' ? 'For example evil.example; its subdomains are blocked too.' : 'Matched in destination URLs.'}>
        {(id, hint) => <input id={id} {...refused.field('value', hint)} value={value} onChange={(e) => setValue(e.target.value)} required />}
      </Field>
      <Field label={LABELS.reason}>{(id) => <input id={id} {...refused.field('reason')} value={reason} onChange={(e) => setReason(e.target.value)} />}</Field>
      <ErrorNote {...refused.note} />
      <div className="actions">
        <button type="submit" disabled={save.busy}>Block</button>
      </div>
    </form>
  )
}

/** A reported link's quarantine as GET /api/reports says it, and this page's own releases. */
type Quarantine = 'yes' | 'no' | 'gone' | 'released'

function useQuarantine() {
  const [released, setReleased] = useState<number[]>([])
  const of = (r: Report): Quarantine => {
    if (r.link === null) return 'gone'
    if (released.includes(r.link)) return 'released'
    return r.quarantined ? 'yes' : 'no'
  }
  return { of, released: (id: number) => setReleased((l) => [...l, id]) }
}

const STATE: Record<Quarantine, { text: string; tone: 'plain' | 'good' | 'warn' }> = {
  yes: { text: 'Quarantined', tone: 'warn' },
  no: { text: 'Not quarantined', tone: 'plain' },
  gone: { text: 'Link deleted', tone: 'plain' },
  released: { text: 'Released', tone: 'good' },
}

function Reports() {
  const { params, set } = useQueryState()
  const page = pageParam(params.get('reports_page'))
  const setPage = (p: number, fix?: boolean) => set({ reports_page: p }, { page: 'reports_page', replace: fix })
  const list = useLoad(() => api.get<ListOf<'reports', Report>>(`/api/reports${qs({ page, limit: 50 })}`), [page])
  const act = useAction()
  const confirm = useConfirm()
  const rows = list.data?.data.reports
  const quarantine = useQuarantine()

  async function onRelease(r: Report) {
    const yes = await confirm({
      title: 'Release this link?',
      message: (
        <p>
          Visitors of <strong className="wrap-anywhere">{r.shorturl}</strong> reach its destination again instead of the warning page.
        </p>
      ),
      confirm: 'Release link',
    })
    if (!yes) return
    if (await act.run(() => api.post(`/api/url/${r.link}/release`))) {
      quarantine.released(r.link!)
      announce(`${r.shorturl} released from quarantine.`)
    }
  }

  async function onDismiss(r: Report) {
    const yes = await confirm({
      title: 'Dismiss this report?',
      message: (
        <p>
          The report about <strong className="wrap-anywhere">{r.shorturl}</strong> leaves this list. The link itself does not change.
        </p>
      ),
      confirm: 'Dismiss report',
    })
    if (!yes) return
    if (await act.run(() => api.del(`/api/reports/${r.id}/delete`))) {
      announce(`Report about ${r.shorturl} dismissed.`)
      list.reload()
    }
  }

  return (
    <section className="card" aria-labelledby="reports-head">
      <h2 id="reports-head">Reports from visitors</h2>
      <ErrorNote message={list.error ?? act.error} onRetry={list.error ? list.reload : undefined} />
      {list.loading && !rows && <Loading />}
      {rows?.length === 0 && <EmptyState level={3} title="No reports">Visitors report a link at its /report page; reports show up here.</EmptyState>}
      {rows && rows.length > 0 && (
        <ul className="link-list" aria-label="Reports">
          {rows.map((r) => {
            const state = quarantine.of(r)
            return (
              <li key={r.id} className="link-item report-item">
                <div>
                  <span className="short">{r.shorturl}</span>
                  {r.url && <span className="truncate sub wrap-anywhere" title={r.url}>→ {r.url}</span>}
                  <p className="report-reason">
                    <strong>{r.reason}</strong>
                    {r.comment && <span className="sub wrap-anywhere"> — {r.comment}</span>}
                  </p>
                  <div className="meta">
                    <span>From {r.email || 'an anonymous visitor'}</span>
                    <span>{formatDateTime(r.date)}</span>
                  </div>
                </div>
                <div className="actions-col">
                  <Badge tone={STATE[state].tone}>{STATE[state].text}</Badge>
                  {state === 'yes' && (
                    <button type="button" className="secondary small" disabled={act.busy} aria-label={`Release ${r.shorturl} from quarantine`} onClick={() => onRelease(r)}>
                      Release
                    </button>
                  )}
                  <button type="button" className="secondary small" disabled={act.busy} aria-label={`Dismiss report about ${r.shorturl} (${r.reason}, ${formatDateTime(r.date)})`} onClick={() => onDismiss(r)}>
                    Dismiss
                  </button>
                </div>
              </li>
            )
          })}
        </ul>
      )}
      {list.data && <Pager page={list.data.data.currentpage} maxPage={list.data.data.maxpage} total={list.data.data.result} noun="reports" onPage={setPage} />}
    </section>
  )
}
