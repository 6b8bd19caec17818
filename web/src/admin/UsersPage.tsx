import { useEffect, useId, useState, type FormEvent } from 'react'
import { api, qs } from '../api/client'
import type { Plan, User } from '../api/types'
import { announce } from '../ui/announce'
import { useConfirm } from '../ui/confirm'
import { formatDate, localInputToApi } from '../ui/format'
import { useAction, useLoad } from '../ui/hooks'
import { AdminsOnly, Badge, CopyButton, EmptyState, ErrorNote, Field, Loading, Modal, NamedOptions, PageHead, Pager } from '../ui/parts'
import { oneOf, pageParam, textParam, useQueryState } from '../ui/query'
import { useSession } from '../session'
import { useRefusal } from '../ui/refusal'

/** The new user form's labels by body name: an API message names its field by the latter. */
const LABELS = {
  username: 'Username',
  email: 'Email',
  password: 'Password',
  planid: 'Plan',
  expiration: 'Plan expires',
}
/** The change of plan form's labels by body name. */
const PLAN_LABELS = {
  type: 'Billing period',
  expiration: 'Expires',
}

const PER_PAGE = 50
/** The Show select's choices ('' is everyone), as the address's `filter`. */
const FILTERS = ['', 'admin', 'pro', 'free'] as const

export function UsersPage() {
  const { user: me } = useSession()
  // the search, filter and page live in the address (reload and Back keep them), cleaned to what the API takes
  const { params, set } = useQueryState()
  const query = { search: textParam(params.get('search'), 254), filter: oneOf(params.get('filter'), FILTERS, ''), page: pageParam(params.get('page')) }
  // the box shows the applied search, also after Back or Forward
  const [search, setSearch] = useState(query.search)
  useEffect(() => setSearch(query.search), [query.search])
  const users = useLoad(() => api.get<{ data: User[] }>(`/api/users${qs({ search: query.search, filter: query.filter, limit: PER_PAGE, page: query.page })}`), [JSON.stringify(query)])
  const ssoLabel = useId()
  const plans = useLoad(() => api.get<{ data: Plan[] }>('/api/plans'), [])
  const [creating, setCreating] = useState(false)
  const [planFor, setPlanFor] = useState<User>()
  const [sso, setSso] = useState<{ user: User; url: string }>()
  const act = useAction()
  const confirm = useConfirm()
  const planName = (id: number | null) => plans.data?.data.find((p) => p.id === id)?.name ?? `#${id}`
  // rows wait for the plan names (or their failure), so a plan's number never shows in place of its name
  const rows = plans.loading && !plans.data ? undefined : users.data

  if (!me.admin) return <AdminsOnly />

  async function onDelete(u: User) {
    const yes = await confirm({ title: 'Delete this user?', message: <p><strong>{u.username}</strong> ({u.email}) and everything they own — links, QR codes, statistics — are deleted. This cannot be undone.</p>, confirm: 'Delete user' })
    if (yes && (await act.run(() => api.del(`/api/user/${u.id}/delete`)))) {
      announce(`User ${u.username} deleted.`)
      users.reload()
    }
  }

  return (
    <>
      <PageHead title="Users">
        <button type="button" onClick={() => setCreating(true)}>New user</button>
      </PageHead>
      <form className="toolbar" role="search" onSubmit={(e) => (e.preventDefault(), set({ search: search.trim() }))}>
        <Field label="Search by email" className="search">{(id) => <input id={id} type="search" value={search} onChange={(e) => setSearch(e.target.value)} />}</Field>
        <Field label="Show">
          {(id) => (
            <select id={id} value={query.filter} onChange={(e) => set({ search: search.trim(), filter: e.target.value })}>
              <option value="">Everyone</option>
              <option value="admin">Admins</option>
              <option value="pro">Paying</option>
              <option value="free">Free</option>
            </select>
          )}
        </Field>
        <button type="submit">Search</button>
      </form>
      <ErrorNote message={users.error ?? act.error} onRetry={users.error ? users.reload : undefined} />
      {!rows && !users.error && <Loading />}
      {rows?.data.length === 0 && <EmptyState title="No users match">Try another search or filter.</EmptyState>}
      {rows && rows.data.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption className="offscreen">Users</caption>
            <thead>
              <tr>
                <th scope="col">User</th>
                <th scope="col">Plan</th>
                <th scope="col" className="hide-small">Registered</th>
                <th scope="col"><span className="offscreen">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              {rows.data.map((u) => (
                <tr key={u.id}>
                  <td className="wrap-anywhere">
                    <strong>{u.username}</strong> {u.admin && <Badge>admin</Badge>}
                    <span className="sub truncate wrap-small">{u.email}</span>
                  </td>
                  <td>
                    {/* the plan's name once; its colour says whether the account pays */}
                    <Badge tone={u.status === 'pro' ? 'good' : 'plain'}>{planName(u.planid)}</Badge>
                    {u.expires && <span className="sub"> until {formatDate(u.expires)}</span>}
                  </td>
                  <td className="hide-small">{formatDate(u.registered)}</td>
                  <td>
                    <div className="cell-actions">
                      <button type="button" className="secondary small" onClick={() => (act.setError(undefined), setPlanFor(u))} aria-label={`Change plan of ${u.username}`}>Plan</button>
                      <button
                        type="button"
                        className="secondary small"
                        aria-label={`SSO URL of ${u.username}`}
                        onClick={() => act.run(async () => setSso({ user: u, url: (await api.get<{ url: string }>(`/api/user/login/${u.id}`)).url }))}
                      >
                        SSO URL
                      </button>
                      <button type="button" className="secondary small" onClick={() => onDelete(u)} disabled={u.id === me.id} aria-label={`Delete ${u.username}`}>Delete</button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {rows && <UsersPager page={query.page} shown={rows.data.length} onPage={(p) => set({ page: p })} />}
      <Modal title="New user" open={creating} onClose={() => setCreating(false)}>
        {creating && <UserForm plans={plans.data?.data ?? []} onDone={() => (setCreating(false), users.reload())} />}
      </Modal>
      <Modal title={`Plan of ${planFor?.username ?? ''}`} open={!!planFor} onClose={() => setPlanFor(undefined)}>
        {planFor && <PlanForm user={planFor} plans={plans.data?.data ?? []} onDone={() => (setPlanFor(undefined), users.reload())} />}
      </Modal>
      <Modal title={`SSO URL of ${sso?.user.username ?? ''}`} open={!!sso} onClose={() => setSso(undefined)}>
        {sso && (
          <>
            <p>This single-use link signs {sso.user.username} in without a password. It works once, within an hour.</p>
            {/* a read-only text box: its visible label names it, and screen readers read its value */}
            <p className="label" id={ssoLabel}>SSO URL</p>
            <p className="keybox">
              <code role="textbox" aria-readonly="true" aria-labelledby={ssoLabel} tabIndex={0}>{sso.url}</code>
              <CopyButton value={sso.url} label="Copy SSO URL" what="SSO URL copied" />
            </p>
          </>
        )}
      </Modal>
    </>
  )
}

/**
 * GET /api/users tells no total: a full page means there may be another, and a page less than full
 * is the last, so the total is known there (an empty page past the end knows only its number).
 */
function UsersPager({ page, shown, onPage }: { page: number; shown: number; onPage: (p: number) => void }) {
  if (shown === PER_PAGE || (shown === 0 && page > 1)) return <Pager page={page} more={shown === PER_PAGE} noun="users" onPage={onPage} />
  return <Pager page={page} maxPage={page} total={(page - 1) * PER_PAGE + shown} noun="users" onPage={onPage} />
}

function UserForm({ plans, onDone }: { plans: Plan[]; onDone: () => void }) {
  const [v, setV] = useState({ username: '', email: '', password: '', planid: '', expiration: '' })
  const save = useAction()
  const refused = useRefusal(save.error, LABELS)
  const set = (patch: Partial<typeof v>) => setV({ ...v, ...patch })
  async function submit(e: FormEvent) {
    e.preventDefault()
    const body = { username: v.username.trim(), email: v.email.trim(), password: v.password, planid: v.planid ? Number(v.planid) : undefined, expiration: v.expiration ? localInputToApi(v.expiration) : undefined }
    if (await save.run(() => api.post('/api/user/add', body))) {
      announce('User created.')
      onDone()
    }
  }
  return (
    <form onSubmit={submit}>
      <Field label={LABELS.username}>{(id) => <input id={id} {...refused.field('username')} value={v.username} onChange={(e) => set({ username: e.target.value })} required autoComplete="off" />}</Field>
      <Field label={LABELS.email}>{(id) => <input id={id} {...refused.field('email')} type="email" value={v.email} onChange={(e) => set({ email: e.target.value })} required autoComplete="off" />}</Field>
      <Field label={LABELS.password} hint="At least 5 characters.">{(id, hint) => <input id={id} {...refused.field('password', hint)} type="password" value={v.password} onChange={(e) => set({ password: e.target.value })} required autoComplete="new-password" />}</Field>
      <div className="row">
        <Field label={LABELS.planid}>
          {(id) => (
            <select id={id} {...refused.field('planid')} value={v.planid} onChange={(e) => set({ planid: e.target.value })}>
              <option value="">Default plan</option>
              <NamedOptions items={plans} />
            </select>
          )}
        </Field>
        <Field label={LABELS.expiration}>{(id) => <input id={id} {...refused.field('expiration')} type="datetime-local" value={v.expiration} onChange={(e) => set({ expiration: e.target.value })} />}</Field>
      </div>
      <ErrorNote {...refused.note} />
      <div className="actions">
        <button type="submit" disabled={save.busy}>Create user</button>
      </div>
    </form>
  )
}

function PlanForm({ user, plans, onDone }: { user: User; plans: Plan[]; onDone: () => void }) {
  const [planid, setPlanid] = useState(String(user.planid))
  const [type, setType] = useState('monthly')
  const [expiration, setExpiration] = useState('')
  const save = useAction()
  const refused = useRefusal(save.error, PLAN_LABELS)
  async function submit(e: FormEvent) {
    e.preventDefault()
    if (await save.run(() => api.put(`/api/plan/${planid}/user/${user.id}`, { type, expiration: expiration ? localInputToApi(expiration) : undefined }))) {
      announce(`Plan of ${user.username} changed.`)
      onDone()
    }
  }
  return (
    <form onSubmit={submit}>
      <Field label="New plan">
        {(id) => (
          <select id={id} value={planid} onChange={(e) => setPlanid(e.target.value)}>
            <NamedOptions items={plans} />
          </select>
        )}
      </Field>
      <Field label={PLAN_LABELS.type}>
        {(id) => (
          <select id={id} {...refused.field('type')} value={type} onChange={(e) => setType(e.target.value)}>
            <option value="monthly">Monthly</option>
            <option value="yearly">Yearly</option>
            <option value="lifetime">Lifetime</option>
          </select>
        )}
      </Field>
      <Field label={PLAN_LABELS.expiration} hint="Leave empty to follow the billing period.">{(id, hint) => <input id={id} {...refused.field('expiration', hint)} type="datetime-local" value={expiration} onChange={(e) => setExpiration(e.target.value)} />}</Field>
      <ErrorNote {...refused.note} />
      <div className="actions">
        <button type="submit" disabled={save.busy}>Change plan</button>
      </div>
    </form>
  )
}
