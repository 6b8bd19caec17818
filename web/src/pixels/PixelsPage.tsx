import { useState, type FormEvent } from 'react'
import { api } from '../api/client'
import { PIXEL_TYPES, type ListOf, type Pixel } from '../api/types'
import { PlanNote, usePlan } from '../plan'
import { announce } from '../ui/announce'
import { useConfirm } from '../ui/confirm'
import { formatDate } from '../ui/format'
import { useAction, useLoad } from '../ui/hooks'
import { EmptyState, ErrorNote, Field, Loading, Modal, MoreThanShown, PageHead } from '../ui/parts'
import { useRefusal } from '../ui/refusal'

/** The pixel form's labels by body name: an API message names its field by the latter. */
const LABELS = {
  type: 'Provider',
  name: 'Pixel name',
  tag: 'Tag',
}

const typeName = (t: string) => PIXEL_TYPES.find(([v]) => v === t)?.[1] ?? t

export function PixelsPage() {
  const list = useLoad(() => api.get<ListOf<'pixels', Pixel>>('/api/pixels?limit=1000'), [])
  const [editing, setEditing] = useState<Pixel | 'new' | null>(null)
  const remove = useAction()
  const confirm = useConfirm()
  const rows = list.data?.data.pixels
  // creating a pixel needs `pixels` and room under its count; editing and deleting one do not
  const total = list.data?.data.result
  const canAdd = !usePlan().blocked('pixels', total)

  async function onDelete(p: Pixel) {
    if (!(await confirm({ title: 'Delete this pixel?', message: <p>Links stop firing <strong>{p.name}</strong>.</p>, confirm: 'Delete pixel' }))) return
    if (await remove.run(() => api.del(`/api/pixel/${p.id}/delete`))) {
      list.reload()
      announce(`Pixel ${p.name} deleted.`)
    }
  }

  return (
    <>
      <PageHead title="Pixels">
        {canAdd && <button type="button" onClick={() => setEditing('new')}>New pixel</button>}
      </PageHead>
      <PlanNote feature="pixels" have={total} />
      <ErrorNote message={list.error ?? remove.error} onRetry={list.error ? list.reload : undefined} />
      {list.loading && !rows && <Loading />}
      {rows && <MoreThanShown shown={rows.length} total={list.data!.data.result} noun="pixels" />}
      {rows?.length === 0 && (
        <EmptyState title="No pixels yet" action={canAdd && <button type="button" onClick={() => setEditing('new')}>Add a pixel</button>}>
          Retargeting pixels fire when someone opens a link they are attached to.
        </EmptyState>
      )}
      {rows && rows.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption className="offscreen">Your pixels</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Provider</th>
                <th scope="col" className="hide-small">Tag</th>
                <th scope="col" className="hide-small">Created</th>
                <th scope="col"><span className="offscreen">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              {rows.map((p) => (
                <tr key={p.id}>
                  <td>{p.name}</td>
                  <td>{typeName(p.type)}</td>
                  <td className="hide-small"><code>{p.tag}</code></td>
                  <td className="hide-small">{formatDate(p.date)}</td>
                  <td>
                    <div className="cell-actions">
                      <button type="button" className="secondary small" onClick={() => setEditing(p)} aria-label={`Edit ${p.name}`}>Edit</button>
                      <button type="button" className="secondary small" onClick={() => onDelete(p)} aria-label={`Delete ${p.name}`}>Delete</button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Modal title={editing === 'new' ? 'New pixel' : 'Edit pixel'} open={!!editing} onClose={() => setEditing(null)}>
        {editing && <PixelForm pixel={editing === 'new' ? undefined : editing} onDone={() => (setEditing(null), list.reload())} onCancel={() => setEditing(null)} />}
      </Modal>
    </>
  )
}

function PixelForm({ pixel, onDone, onCancel }: { pixel?: Pixel; onDone: () => void; onCancel: () => void }) {
  const [type, setType] = useState<string>(pixel?.type ?? 'gtmpixel')
  const [name, setName] = useState(pixel?.name ?? '')
  const [tag, setTag] = useState(pixel?.tag ?? '')
  const save = useAction()
  const refused = useRefusal(save.error, LABELS)
  async function submit(e: FormEvent) {
    e.preventDefault()
    const ok = await save.run(() => (pixel ? api.put(`/api/pixel/${pixel.id}/update`, { name: name.trim(), tag: tag.trim() }) : api.post('/api/pixel/add', { type, name: name.trim(), tag: tag.trim() })))
    if (ok) {
      announce('Pixel saved.')
      onDone()
    }
  }
  return (
    <form onSubmit={submit}>
      <Field label={LABELS.type}>
        {(id) => (
          <select id={id} {...refused.field('type')} value={type} onChange={(e) => setType(e.target.value)} disabled={!!pixel}>
            {PIXEL_TYPES.map(([v, l]) => (
              <option key={v} value={v}>{l}</option>
            ))}
          </select>
        )}
      </Field>
      <Field label={LABELS.name}>{(id) => <input id={id} {...refused.field('name')} value={name} onChange={(e) => setName(e.target.value)} required />}</Field>
      <Field label={LABELS.tag} hint="The provider's id, for example GTM-ABC1234.">
        {(id, hint) => <input id={id} {...refused.field('tag', hint)} value={tag} onChange={(e) => setTag(e.target.value)} required />}
      </Field>
      <ErrorNote {...refused.note} />
      <div className="actions">
        <button type="button" className="secondary" onClick={onCancel}>Cancel</button>
        <button type="submit" disabled={save.busy}>{pixel ? 'Save pixel' : 'Create pixel'}</button>
      </div>
    </form>
  )
}
