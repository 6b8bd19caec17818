import { lazy, Suspense, useEffect, useRef, useState, type SyntheticEvent } from 'react'
import { Link, useNavigate } from 'react-router'
import { api, qs } from '../api/client'
import type { V1Link, V1List } from '../api/types'
import { announce } from '../ui/announce'
import { useConfirm } from '../ui/confirm'
import { formatDate, formatNumber } from '../ui/format'
import { useAction, useLoad } from '../ui/hooks'
import { CopyButton, EmptyState, ErrorNote, Field, Loading, Modal, NamedOptions, PageHead, Pager } from '../ui/parts'
import { DEFAULT_SEARCH_BY, SearchInSelect, searchBy } from '../ui/LinkPicker'
import { idParam, oneOf, pageParam, textParam, useQueryState } from '../ui/query'
import { BulkActions, RowCheck, useSelection } from './BulkActions'
import { BulkCreate } from './BulkCreate'
import { LinkForm } from './LinkForm'
import { useLinkOptions } from './options'
import { HealthNote, useLinkHealth } from './health'

// the QR code library loads with the first QR code opened, not with the list
const LinkQr = lazy(() => import('./LinkQr').then((m) => ({ default: m.LinkQr })))

const PER_PAGE = 20
/** v1's sort values (the Sort by select offers each); the first is the default */
const SORTS = ['desc', 'asc', 'max', 'min'] as const

export function LinksPage() {
  const { params, set, clear } = useQueryState()
  const navigate = useNavigate()
  const confirm = useConfirm()
  const options = useLinkOptions()
  const [creating, setCreating] = useState(false)
  const changed = useRef(false)
  const asking = useRef(false)
  const [bulk, setBulk] = useState(false)
  const [qrOf, setQrOf] = useState<V1Link>()
  const [created, setCreated] = useState<string>()
  const create = useAction()
  const remove = useAction()

  // every value as the API takes it: one typed into the address or left from an older version is
  // its default (the select then shows what the list is), not a request refused at every Try again
  const q = {
    search: textParam(params.get('search'), 255),
    by: searchBy(params.get('by')),
    sort: oneOf(params.get('sort'), SORTS, 'desc'),
    domain: idParam(params.get('domain')),
    space: idParam(params.get('channel')),
    campaign: idParam(params.get('campaign')),
    page: pageParam(params.get('page')),
  }
  // the box shows the applied search, also after Back, Forward or "Clear search and filters"
  const [search, setSearch] = useState(q.search)
  useEffect(() => setSearch(q.search), [q.search])
  const list = useLoad(
    () => api.get<V1List>(`/api/v1/links${qs({ search: q.search, by: q.by, sort: q.sort, domain: q.domain, space: q.space, campaign: q.campaign, per_page: PER_PAGE, page: q.page })}`),
    [JSON.stringify(q)],
  )
  // a filter applies at once, with the words in the box as they are now: the list never shows the
  // last submitted words while the box says something else
  const filter = (patch: Record<string, string>) => set({ search: search.trim(), ...patch })

  async function onCreate(body: Record<string, unknown>) {
    let short = ''
    const ok = await create.run(async () => {
      short = (await api.post<{ shorturl: string }>('/api/url/add', body)).shorturl
    })
    if (!ok) return
    closeNew()
    setCreated(short)
    announce('Link created.')
    list.reload()
  }

  const closeNew = () => {
    changed.current = false
    setCreating(false)
  }
  /**
   * Escape, ✕ or Cancel on the New link form: with changes in it, it asks first, the form kept open
   * meanwhile. The Modal passes its event: Escape's `cancel` is stopped here. A browser may close
   * the dialog anyway (Escape again with no other input since); keeping on editing opens it again.
   */
  async function requestCloseNew(e?: SyntheticEvent) {
    if (!changed.current) return closeNew()
    e?.preventDefault()
    const dialog = e?.currentTarget instanceof Element ? e.currentTarget.closest('dialog') : null
    if (asking.current) return
    asking.current = true
    const discard = await confirm({ title: 'Discard this link?', message: <p>What you typed in the form will be lost.</p>, confirm: 'Discard', cancel: 'Keep editing' })
    asking.current = false
    if (discard) closeNew()
    else if (dialog && !dialog.open) dialog.showModal()
  }

  async function onDelete(link: V1Link) {
    const yes = await confirm({
      title: 'Delete this link?',
      message: (
        <p>
          <strong>{link.short_url}</strong> will stop working and its statistics are deleted. This cannot be undone.
        </p>
      ),
      confirm: 'Delete link',
    })
    if (!yes) return
    if (await remove.run(() => api.del(`/api/url/${link.id}/delete`))) {
      announce(`Link ${link.short_url} deleted.`)
      list.reload()
    }
  }

  const filtered = !!(q.search || q.domain || q.space || q.campaign)
  const data = list.data
  const health = useLinkHealth(data?.data.map((l) => l.id) ?? [])
  const picked = useSelection(JSON.stringify(q), data?.data.map((l) => l.id) ?? [])
  return (
    <>
      <PageHead title="Links">
        <button type="button" className="secondary" onClick={() => setBulk(true)}>
          Bulk create
        </button>
        <button type="button" onClick={() => (create.setError(undefined), setCreating(true))}>
          New link
        </button>
      </PageHead>

      {created && (
        <div className="success keybox" role="status">
          <span>
            Your short link: <strong>{created}</strong>
          </span>
          <CopyButton value={created} label="Copy short URL" />
          <button type="button" className="ghost small" onClick={() => setCreated(undefined)}>
            Dismiss
          </button>
        </div>
      )}

      <form
        className="toolbar"
        role="search"
        onSubmit={(e) => {
          e.preventDefault()
          set({ search: search.trim() })
        }}
      >
        <div className="toolbar-row">
          <Field label="Search links" className="search">
            {(id) => <input id={id} type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="Part of an address, alias or title" />}
          </Field>
          <SearchInSelect value={q.by} onChange={(by) => filter({ by: by === DEFAULT_SEARCH_BY ? '' : by })} />
          <button type="submit">Search</button>
        </div>
        <div className="toolbar-row filters">
          <Field label="Sort by">
            {(id) => (
              <select id={id} value={q.sort} onChange={(e) => filter({ sort: e.target.value })}>
                <option value="desc">Newest first</option>
                <option value="asc">Oldest first</option>
                <option value="max">Most clicks</option>
                <option value="min">Fewest clicks</option>
              </select>
            )}
          </Field>
          <Field label="Domain filter">
            {(id) => (
              <select id={id} value={q.domain} onChange={(e) => filter({ domain: e.target.value })}>
                <option value="">All domains</option>
                <PendingOption value={q.domain} among={options.data?.domains} />
                {options.data?.domains.map((d) => (
                  <option key={d.id} value={d.id}>
                    {d.domain.replace(/^https?:\/\//, '')}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Channel filter">
            {(id) => (
              <select id={id} value={q.space} onChange={(e) => filter({ channel: e.target.value })}>
                <option value="">All channels</option>
                <PendingOption value={q.space} among={options.data?.channels} />
                <NamedOptions items={options.data?.channels} />
              </select>
            )}
          </Field>
          <Field label="Campaign filter">
            {(id) => (
              <select id={id} value={q.campaign} onChange={(e) => filter({ campaign: e.target.value })}>
                <option value="">All campaigns</option>
                <PendingOption value={q.campaign} among={options.data?.campaigns} />
                <NamedOptions items={options.data?.campaigns} />
              </select>
            )}
          </Field>
        </div>
      </form>

      <ErrorNote message={remove.error} />
      <ErrorNote message={list.error} onRetry={list.reload} />
      {list.loading && !data && <Loading what="Loading your links" />}
      {data && <BulkActions selection={picked} links={data.data} options={options.data} onDone={list.reload} />}
      {data && data.data.length === 0 && (
        filtered ? (
          <EmptyState title="No links match" action={<button type="button" className="secondary" onClick={() => (setSearch(''), clear())}>Clear search and filters</button>}>
            Try other words or another filter.
          </EmptyState>
        ) : (
          <EmptyState title="No links yet" action={<button type="button" onClick={() => setCreating(true)}>Create your first link</button>}>
            Shorten a long address, then share the short one and watch its clicks here.
          </EmptyState>
        )
      )}
      {data && data.data.length > 0 && (
        <ul className="link-list" aria-label="Your links" aria-busy={list.loading}>
          {data.data.map((link) => (
            <li key={link.id} className="link-item pickable">
              <RowCheck selection={picked} link={link} />
              <div>
                <Link className="short" to={`/links/${link.id}`}>
                  {link.short_url}
                </Link>
                <span className="truncate sub" title={link.url}>
                  {link.title ? `${link.title} — ` : ''}
                  {link.url}
                </span>
                <div className="meta">
                  <span>{formatDate(link.created_at)}</span>
                  {link.space && (
                    <span>
                      <span className="swatch" style={{ background: link.space.color || 'transparent' }} />
                      {link.space.name}
                    </span>
                  )}
                  {link.password && <span>Password</span>}
                  {link.ends_at && <span>Expires {formatDate(link.ends_at)}</span>}
                  {link.disabled ? <span>Disabled</span> : null}
                  <HealthNote health={health.get(link.id)} />
                </div>
              </div>
              <div className="clicks">
                {formatNumber(link.clicks)}
                <small>clicks</small>
              </div>
              <div className="cell-actions">
                <CopyButton value={link.short_url} label="Copy" what="Short URL copied" />
                <button type="button" className="secondary small" onClick={() => setQrOf(link)} aria-label={`QR code of ${link.short_url}`}>
                  QR
                </button>
                <button type="button" className="secondary small" onClick={() => navigate(`/links/${link.id}/edit`)} aria-label={`Edit ${link.short_url}`}>
                  Edit
                </button>
                <button type="button" className="secondary small" onClick={() => onDelete(link)} aria-label={`Delete ${link.short_url}`}>
                  Delete
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
      {data && <Pager page={data.meta.current_page} maxPage={data.meta.last_page} total={data.meta.total} noun="links" onPage={(p, fix) => set({ page: p }, { replace: fix })} />}

      <Modal title="New link" open={creating} onClose={requestCloseNew} wide>
        {options.data ? (
          <LinkForm mode="create" options={options.data} busy={create.busy} error={create.error} onSubmit={onCreate} onCancel={requestCloseNew} onChanged={(c) => (changed.current = c)} />
        ) : (
          <Loading />
        )}
      </Modal>
      <Modal title="Bulk create links" open={bulk} onClose={() => setBulk(false)} wide>
        <BulkCreate
          onDone={() => {
            list.reload()
          }}
        />
      </Modal>
      <Modal title="QR code" open={!!qrOf} onClose={() => setQrOf(undefined)}>
        {qrOf && (
          <Suspense fallback={<Loading />}>
            <LinkQr url={qrOf.short_url} name={qrOf.alias} />
          </Suspense>
        )}
      </Modal>
    </>
  )
}

/** A filter named in the address stays selected while its list loads (or after
 * the object is gone), instead of the select falling back to "All". */
function PendingOption({ value, among }: { value: string; among?: { id: number | string }[] }) {
  if (!value || among?.some((o) => String(o.id) === value)) return null
  return <option value={value}>{among ? `#${value} (not found)` : 'Loading…'}</option>
}
