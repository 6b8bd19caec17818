import { useState, type FormEvent } from 'react'
import { api } from '../api/client'
import type { Domain, ListOf } from '../api/types'
import { PlanNote, usePlan } from '../plan'
import { announce } from '../ui/announce'
import { useConfirm } from '../ui/confirm'
import { useAction, useLoad } from '../ui/hooks'
import { EmptyState, ErrorNote, Field, Loading, Modal, MoreThanShown, PageHead } from '../ui/parts'
import { useRefusal } from '../ui/refusal'

/** The domain form's labels by body name: an API message names its field by the latter. */
const LABELS = {
  domain: 'Domain name',
  redirectroot: 'Root redirect',
  redirect404: 'Not-found redirect',
}

export function DomainsPage() {
  const list = useLoad(() => api.get<ListOf<'domains', Domain>>('/api/domains?limit=1000'), [])
  const [editing, setEditing] = useState<Domain | 'new' | null>(null)
  const remove = useAction()
  const confirm = useConfirm()
  const rows = list.data?.data.domains
  // POST /api/domain/add needs `domain`, `multiple` once the user has a domain (any: the total, not
  // the rows shown), and room under the plan's count of domains
  const { blocked, locked } = usePlan()
  const total = list.data?.data.result
  const lockedBy = locked('domain') ? 'domain' : locked('multiple') && total ? 'multiple' : blocked('domain', total) ? 'domain' : undefined
  // without `multiple`, Add waits until the list says there is no domain yet
  const canAdd = !lockedBy && (total !== undefined || !locked('multiple'))

  async function onDelete(d: Domain) {
    if (!(await confirm({ title: 'Delete this domain?', message: <p>Links on <strong>{d.domain}</strong> stop working. This cannot be undone.</p>, confirm: 'Delete domain' }))) return
    if (await remove.run(() => api.del(`/api/domain/${d.id}/delete`))) {
      announce(`Domain ${d.domain} deleted.`)
      list.reload()
    }
  }

  return (
    <>
      <PageHead title="Domains">
        {canAdd && (
          <button type="button" onClick={() => setEditing('new')}>
            Add domain
          </button>
        )}
      </PageHead>
      {lockedBy && <PlanNote feature={lockedBy} have={total} />}
      <p className="sub">Point the domain's DNS at this server first; then short links can live on it.</p>
      <ErrorNote message={list.error ?? remove.error} onRetry={list.error ? list.reload : undefined} />
      {list.loading && !rows && <Loading />}
      {rows && <MoreThanShown shown={rows.length} total={list.data!.data.result} noun="domains" />}
      {rows?.length === 0 && (
        <EmptyState title="No branded domains yet" action={canAdd && <button type="button" onClick={() => setEditing('new')}>Add a domain</button>}>
          Use your own domain for short links, such as go.example.com.
        </EmptyState>
      )}
      {rows && rows.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption className="offscreen">Your domains</caption>
            <thead>
              <tr>
                <th scope="col">Domain</th>
                <th scope="col" className="hide-small">Root redirects to</th>
                <th scope="col" className="hide-small">Unknown paths go to</th>
                <th scope="col"><span className="offscreen">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              {rows.map((d) => (
                <tr key={d.id}>
                  <td className="short">{d.domain}</td>
                  <td className="hide-small"><span className="truncate">{d.redirectroot || '—'}</span></td>
                  <td className="hide-small"><span className="truncate">{d.redirect404 || '—'}</span></td>
                  <td>
                    <div className="cell-actions">
                      <button type="button" className="secondary small" onClick={() => setEditing(d)} aria-label={`Edit ${d.domain}`}>Edit</button>
                      <button type="button" className="secondary small" onClick={() => onDelete(d)} aria-label={`Delete ${d.domain}`}>Delete</button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Modal title={editing === 'new' ? 'Add domain' : 'Edit domain'} open={!!editing} onClose={() => setEditing(null)}>
        {editing && <DomainForm domain={editing === 'new' ? undefined : editing} onDone={() => (setEditing(null), list.reload())} onCancel={() => setEditing(null)} />}
      </Modal>
    </>
  )
}

function DomainForm({ domain, onDone, onCancel }: { domain?: Domain; onDone: () => void; onCancel: () => void }) {
  const [name, setName] = useState(domain?.domain ?? 'https://')
  const [root, setRoot] = useState(domain?.redirectroot ?? '')
  const [notFound, setNotFound] = useState(domain?.redirect404 ?? '')
  const save = useAction()
  const refused = useRefusal(save.error, LABELS)
  async function submit(e: FormEvent) {
    e.preventDefault()
    const body = { redirectroot: root.trim() || (domain ? null : undefined), redirect404: notFound.trim() || (domain ? null : undefined) }
    const ok = await save.run(() => (domain ? api.put(`/api/domain/${domain.id}/update`, body) : api.post('/api/domain/add', { domain: name.trim(), ...body })))
    if (ok) {
      announce(domain ? 'Domain saved.' : 'Domain added.')
      onDone()
    }
  }
  return (
    <form onSubmit={submit}>
      <Field label={LABELS.domain} hint="With http:// or https://, for example https://go.example.com">
        {(id, hint) => <input id={id} {...refused.field('domain', hint)} value={name} onChange={(e) => setName(e.target.value)} disabled={!!domain} required />}
      </Field>
      <Field label={LABELS.redirectroot} hint="Where visitors of the bare domain go (optional).">
        {(id, hint) => <input id={id} {...refused.field('redirectroot', hint)} type="url" value={root} onChange={(e) => setRoot(e.target.value)} />}
      </Field>
      <Field label={LABELS.redirect404} hint="Where unknown short links on this domain go (optional).">
        {(id, hint) => <input id={id} {...refused.field('redirect404', hint)} type="url" value={notFound} onChange={(e) => setNotFound(e.target.value)} />}
      </Field>
      <ErrorNote {...refused.note} />
      <div className="actions">
        <button type="button" className="secondary" onClick={onCancel}>Cancel</button>
        <button type="submit" disabled={save.busy}>{domain ? 'Save domain' : 'Add domain'}</button>
      </div>
    </form>
  )
}
